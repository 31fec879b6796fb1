package cache

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHierarchy(t *testing.T) {
	tests := []struct {
		spec string
		want Hierarchy
		text string // String() of the result, when it differs from spec
	}{
		{
			spec: "L1=48KiB/64B/12,L2=1280KiB/64B/20",
			want: Hierarchy{{Name: "L1", Size: 48 << 10, Line: 64, Assoc: 12}, {Name: "L2", Size: 1280 << 10, Line: 64, Assoc: 20}},
		},
		{ // Cray T3E (IMH paper, Section 2): direct-mapped L1 with 32 B lines, 3-way S cache with 64 B lines
			spec: "L1=8KiB/32B/1,S=96KiB/64B/3",
			want: Hierarchy{{Name: "L1", Size: 8 << 10, Line: 32, Assoc: 1}, {Name: "S", Size: 96 << 10, Line: 64, Assoc: 3}},
		},
		{
			spec: "L1=32KiB/64B/8,L2=512KiB/64B/8,L3=32MiB/64B/16",
			want: Hierarchy{
				{Name: "L1", Size: 32 << 10, Line: 64, Assoc: 8},
				{Name: "L2", Size: 512 << 10, Line: 64, Assoc: 8},
				{Name: "L3", Size: 32 << 20, Line: 64, Assoc: 16},
			},
		},
		{
			spec: "TLB=4KiB/64B/full",
			want: Hierarchy{{Name: "TLB", Size: 4096, Line: 64, Assoc: 0}},
		},
		{
			spec: " L1 = 1024B / 64B / 2 , L2=1GiB/128B/8",
			want: Hierarchy{{Name: "L1", Size: 1024, Line: 64, Assoc: 2}, {Name: "L2", Size: 1 << 30, Line: 128, Assoc: 8}},
			text: "L1=1KiB/64B/2,L2=1GiB/128B/8",
		},
		{
			spec: "L1=96B/32B/3",
			want: Hierarchy{{Name: "L1", Size: 96, Line: 32, Assoc: 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseHierarchy(tt.spec)
			if err != nil {
				t.Fatalf("ParseHierarchy: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseHierarchy mismatch (-want +got):\n%s", diff)
			}
			wantText := tt.text
			if wantText == "" {
				wantText = tt.spec
			}
			if text := got.String(); text != wantText {
				t.Errorf("String() = %q, want %q", text, wantText)
			}
			again, err := ParseHierarchy(got.String())
			if err != nil {
				t.Fatalf("ParseHierarchy(String()): %v", err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("round trip mismatch (-first +second):\n%s", diff)
			}
		})
	}
}

func TestParseHierarchyErrors(t *testing.T) {
	tests := []struct {
		spec    string
		col     int
		message string // a substring of SpecError.Msg
	}{
		{"", 1, "empty cache level"},
		{"L1=32KiB/64B/8,", 16, "empty cache level"},
		{"L1", 1, `"L1" has no =`},
		{"L1=32KiB/64B", 4, "2 /-separated fields"},
		{"L1=32KiB/64/8", 10, `"64" has no unit; write 64B or 64KiB`},
		{"L1=32KB/64B/8", 4, `unit "KB"; use B, KiB, MiB or GiB`},
		{"L1=KiB/64B/8", 4, "does not start with a number"},
		{"L1=99999999999GiB/64B/8", 4, "larger than 16GiB"},
		{"L1=32KiB/64B/eight", 14, `"eight" is not a positive count`},
		{"L1=32KiB/64B/0", 14, `"0" is not a positive count`},
		{"L1=32KiB/48B/8", 1, "line size 48B is not a power of two"},
		{"L1=1000B/64B/1", 1, "not a whole number of 64B lines"},
		{"L1=640B/64B/4", 1, "10 lines of 64B, not a whole number of sets of 4 ways (a multiple of line × ways = 256B)"},
		{"L3=20MiB/64B/24", 1, "size 20MiB is 327680 lines of 64B, not a whole number of sets of 24 ways (a multiple of line × ways = 1536B)"},
		{"L1=128B/64B/4", 1, "4 ways but only 2 lines"},
		{"L1=2GiB/64B/8", 1, "more than the 16777216 a simulator can hold"},
		{"L-1=32KiB/64B/8", 1, `name "L-1" must be letters`},
		{"L1=32KiB/64B/8,L2=32KiB/64B/8", 16, "L2 (32KiB) must be larger than L1 (32KiB)"},
		{"L1=32KiB/64B/8, L1=64KiB/64B/8", 17, "L1 is used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := ParseHierarchy(tt.spec)
			var specErr *SpecError
			if !errors.As(err, &specErr) {
				t.Fatalf("ParseHierarchy(%q) error = %v, want a *SpecError", tt.spec, err)
			}
			if specErr.Col != tt.col || !strings.Contains(specErr.Msg, tt.message) {
				t.Errorf("got column %d message %q, want column %d message containing %q", specErr.Col, specErr.Msg, tt.col, tt.message)
			}
			if text := err.Error(); !strings.Contains(text, SpecForm) || !strings.Contains(text, tt.spec) {
				t.Errorf("Error() = %q, want the spec and the accepted form", text)
			}
		})
	}
}

func TestLevelShape(t *testing.T) {
	tests := []struct {
		level             Level
		lines, ways, sets int
	}{
		{Level{Name: "L1", Size: 48 << 10, Line: 64, Assoc: 12}, 768, 12, 64},
		{Level{Name: "L1", Size: 4096, Line: 64, Assoc: 0}, 64, 64, 1},
		{Level{Name: "S", Size: 96 << 10, Line: 64, Assoc: 3}, 1536, 3, 512},
	}
	for _, tt := range tests {
		got := []int{tt.level.Lines(), tt.level.Ways(), tt.level.Sets()}
		if diff := cmp.Diff([]int{tt.lines, tt.ways, tt.sets}, got); diff != "" {
			t.Errorf("%v: lines, ways, sets mismatch (-want +got):\n%s", tt.level, diff)
		}
	}
}

// TestAnySetCount checks that a level of any whole number of sets is valid
// (issue 15: server L3s have 20,480 or 57,344 sets) with the shape the spec
// gives, reads back from its String, and that a size that is not a whole
// number of sets, or a line that is not a power of two, is still refused.
func TestAnySetCount(t *testing.T) {
	tests := []struct {
		spec              string
		lines, ways, sets int
		refused           string // a substring of the error when the level is refused
	}{
		{spec: "L3=20MiB/64B/16", lines: 327680, ways: 16, sets: 20480},
		{spec: "L2=1280KiB/64B/20", lines: 20480, ways: 20, sets: 1024}, // Intel 1.25 MiB L2
		{spec: "L3=32MiB/64B/16", lines: 524288, ways: 16, sets: 32768},
		{spec: "L1=48KiB/64B/12", lines: 768, ways: 12, sets: 64},
		{spec: "L3=39424KiB/64B/11", lines: 630784, ways: 11, sets: 57344}, // Xeon Platinum 8180
		{spec: "L1=384B/64B/2", lines: 6, ways: 2, sets: 3},
		{spec: "L1=448B/64B/1", lines: 7, ways: 1, sets: 7},
		{spec: "L3=20MiB/64B/24", refused: "327680 lines of 64B, not a whole number of sets of 24 ways"},
		{spec: "L1=640B/64B/4", refused: "10 lines of 64B, not a whole number of sets of 4 ways"},
		{spec: "L1=960B/48B/4", refused: "line size 48B is not a power of two"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			h, err := ParseHierarchy(tt.spec)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("ParseHierarchy(%q) error = %v, want one containing %q", tt.spec, err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseHierarchy: %v", err)
			}
			l := h[0]
			got := []int{l.Lines(), l.Ways(), l.Sets()}
			if diff := cmp.Diff([]int{tt.lines, tt.ways, tt.sets}, got); diff != "" {
				t.Errorf("lines, ways, sets mismatch (-want +got):\n%s", diff)
			}
			if text := h.String(); text != tt.spec {
				t.Errorf("String() = %q, want %q", text, tt.spec)
			}
			if err := h.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			NewSimulator(h) // must not panic
		})
	}
}

func TestValidateEmpty(t *testing.T) {
	if err := (Hierarchy{}).Validate(); err == nil {
		t.Error("Validate accepted a hierarchy with no levels")
	}
}
