package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// kerncraftHierarchy is the hierarchy of the Kerncraft comparison: the
// capacities of one core of an Intel Xeon Scalable (Skylake-SP) processor,
// 32 KiB L1, 1 MiB L2, and an 8 MiB share of the L3, all fully associative
// (the model, like Kerncraft's layer conditions, assumes no conflict
// misses).
const kerncraftHierarchy = "L1=32KiB/64B/full,L2=1MiB/64B/full,L3=8MiB/64B/full"

// kerncraftCase is one kernel of analyze/testdata/kerncraft at one size.
type kerncraftCase struct {
	file string   // under testdata/kerncraft
	defs []string // sizes
	// why names the layer conditions the size sits between.
	why string
}

// kerncraftCases lists, for every translated kernel, sizes on both sides of
// each of its layer conditions at every level.
func kerncraftCases() []kerncraftCase {
	return []kerncraftCase{
		{"copy.spmd", []string{"N=2000"}, "all fits L1"},
		{"copy.spmd", []string{"N=600000"}, "fits no level"},
		{"daxpy.spmd", []string{"N=1500"}, "all fits L1"},
		{"daxpy.spmd", []string{"N=600000"}, "fits no level"},
		{"triad.spmd", []string{"N=900"}, "all fits L1"},
		{"triad.spmd", []string{"N=300000"}, "fits no level"},
		{"sum.spmd", []string{"N=3000"}, "all fits L1"},
		{"sum.spmd", []string{"N=1100000"}, "fits no level"},
		{"2d-5pt.spmd", []string{"M=40", "N=500"}, "rows fit L1"},
		{"2d-5pt.spmd", []string{"M=40", "N=1500"}, "rows fit L2 only"},
		{"2d-5pt.spmd", []string{"M=6", "N=40000"}, "rows fit L3 only"},
		{"2d-5pt.spmd", []string{"M=4", "N=300000"}, "rows fit no level"},
		{"3d-7pt.spmd", []string{"M=12", "N=24"}, "planes fit L1"},
		{"3d-7pt.spmd", []string{"M=8", "N=100"}, "rows fit L1, planes L2"},
		{"3d-7pt.spmd", []string{"M=5", "N=250"}, "planes fit L3 only"},
		{"3d-7pt.spmd", []string{"M=4", "N=720"}, "rows fit L2, planes no level"},
		{"3d-27pt.spmd", []string{"M=12", "N=24"}, "planes fit L1"},
		{"3d-27pt.spmd", []string{"M=6", "N=100"}, "rows fit L1, planes L2"},
		{"3d-27pt.spmd", []string{"M=4", "N=250"}, "planes fit L3 only"},
		{"3d-long-range.spmd", []string{"M=12", "N=40"}, "rows fit L1, planes L2"},
		{"3d-long-range.spmd", []string{"M=10", "N=100"}, "rows fit L1, planes L3 only"},
		{"3d-long-range.spmd", []string{"M=9", "N=240"}, "rows fit L2, planes no level"},
		{"uxx.spmd", []string{"M=6", "N=150"}, "rows of three j iterations fit L1"},
		{"uxx.spmd", []string{"M=5", "N=200"}, "rows of one j iteration fit L1, of three not"},
		{"uxx.spmd", []string{"M=5", "N=300"}, "rows of one j iteration fit L1, of three not"},
		{"uxx.spmd", []string{"M=5", "N=400"}, "rows fit L2 only"},
		{"himeno.spmd", []string{"L=4", "M=20", "N=48"}, "planes fit L2"},
		{"himeno.spmd", []string{"L=3", "M=40", "N=700"}, "rows of 43.75 lines fit L1"},
		{"himeno.spmd", []string{"L=3", "M=10", "N=2000"}, "rows fit L2 only"},
		{"matvec.spmd", []string{"M=40", "N=200"}, "a column fits L1"},
		{"matvec.spmd", []string{"M=40", "N=1000"}, "a column fits L2 only"},
		{"matvec.spmd", []string{"M=20", "N=20000"}, "a column fits L3 only"},
		{"matvec-trans.spmd", []string{"M=40", "N=1000"}, "b and c fit L1"},
		{"matvec-trans.spmd", []string{"M=20", "N=4000"}, "b and c fit L2 only"},
		{"matvec-trans.spmd", []string{"M=5", "N=100000"}, "b and c fit L3 only"},
	}
}

// TestCacheModelKerncraft checks the analytic lines and write-backs of
// Kerncraft's example kernels against the exact fully associative LRU
// simulation, within 1 % at every level, at sizes on both sides of every
// layer condition.
func TestCacheModelKerncraft(t *testing.T) {
	h := mustCacheHierarchy(t, kerncraftHierarchy)
	for _, kc := range kerncraftCases() {
		t.Run(fmt.Sprintf("%s %v", kc.file, kc.defs), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "kerncraft", kc.file))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			checkAgainstSimulator(t, cacheCase{name: kc.file, src: string(src), defs: kc.defs, tol: 0.01, why: kc.why}, h)
			t.Logf("%v", time.Since(start))
		})
	}
}
