package analyze

import "testing"

// TestRankSetString checks the written form of rank sets: short sets in
// full, long ones shortened with their count, and evenly spaced ones (a
// grid's edge) with their width and stride.
func TestRankSetString(t *testing.T) {
	set := func(add func(*RankSet)) RankSet {
		var s RankSet
		add(&s)
		return s
	}
	tests := []struct {
		name string
		s    RankSet
		want string
	}{
		{"empty", RankSet{}, ""},
		{"short", set(func(s *RankSet) {
			s.addSpan(0, 3)
			s.add(5)
			s.addSpan(7, 9)
		}), "0-3,5,7-9"},
		{"a grid's west edge", set(func(s *RankSet) {
			for r := int64(0); r < 30000; r++ {
				s.add(r * 30000)
			}
		}), "0,30000,60000,90000,120000,150000,180000,210000,240000,270000,300000,330000,…,899940000,899970000 (30,000 ranges of 1 rank every 30,000)"},
		{"blocks of two", set(func(s *RankSet) {
			for r := int64(0); r < 20; r++ {
				s.addSpan(10*r, 10*r+1)
			}
		}), "0-1,10-11,20-21,30-31,40-41,50-51,60-61,70-71,80-81,90-91,100-101,110-111,…,180-181,190-191 (20 ranges of 2 ranks every 10)"},
		{"uneven", set(func(s *RankSet) {
			for r := int64(0); r < 20; r++ {
				s.add(r * r)
			}
		}), "0-1,4,9,16,25,36,49,64,81,100,121,144,…,324,361 (20 ranks in 19 ranges)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
