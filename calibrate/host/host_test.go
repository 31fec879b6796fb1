package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/analyze/cache"
)

func TestCPUModel(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  9B45\nflags\t: fpu\n", "AMD EPYC 9B45"},
		{"arm", "processor\t: 0\nBogoMIPS\t: 50.00\nModel\t: Raspberry Pi 4\n", "Raspberry Pi 4"},
		{"none", "processor\t: 0\n", ""},
		{"empty value", "model name\t:\nmodel name\t: second\n", "second"},
	}
	for _, tc := range tests {
		if got := CPUModel([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCachesString(t *testing.T) {
	i := Info{Caches: cache.Hierarchy{
		{Name: "L1", Size: 48 << 10, Line: 64, Assoc: 12},
		{Name: "L2", Size: 1 << 20, Line: 64, Assoc: 16},
		{Name: "L3", Size: 1536 << 10, Line: 64, Assoc: 0},
	}}
	want := "L1 48KiB 12-way, L2 1MiB 16-way, L3 1536KiB fully associative, 64B lines"
	if diff := cmp.Diff(want, i.CachesString()); diff != "" {
		t.Error(diff)
	}
}

func TestReadThisHost(t *testing.T) {
	i, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	if i.Cores < 1 || len(i.Caches) == 0 || i.Go == "" || i.CPU == "" {
		t.Errorf("incomplete: %+v", i)
	}
}
