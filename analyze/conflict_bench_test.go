package analyze

import (
	"testing"

	"perfc/analyze/cache"
	"perfc/examples"
	"perfc/lang"
	"perfc/parser"
)

// BenchmarkConflicts times the conflict check of matmul at N = 256 on a
// three-level hierarchy (it reports B's column walk in L1), which every
// analysis with caches runs.
func BenchmarkConflicts(b *testing.B) {
	f, err := parser.ParseFile("matmul.spmd", []byte(matmulBenchSrc))
	if err != nil {
		b.Fatal(err)
	}
	k, err := lang.Check(f, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	h, err := cache.ParseHierarchy("L1=32KiB/64B/8,L2=1MiB/64B/16,L3=32MiB/64B/16")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Conflicts(k, h, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// matmulBenchSrc is examples/matmul.spmd's loop nest.
const matmulBenchSrc = `kernel matmul(N = 256) {
  array A[N][N], B[N][N], C[N][N]: f64
  var s: f64 = 0
  for i in 0..N {
    for j in 0..N {
      s = 0.0
      for k in 0..N {
        s += A[i][k] * B[k][j]
      }
      C[i][j] = s
    }
  }
}`

// BenchmarkConflictsExamples times the conflict check of every example at
// its default sizes on a three-level set-associative hierarchy, for the
// representative of the first class.
func BenchmarkConflictsExamples(b *testing.B) {
	h, err := cache.ParseHierarchy("L1=32KiB/64B/8,L2=1MiB/64B/16,L3=32MiB/64B/16")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range examples.Names() {
		src, err := examples.Source(name)
		if err != nil {
			b.Fatal(err)
		}
		f, err := parser.ParseFile(name+".spmd", src)
		if err != nil {
			b.Fatal(err)
		}
		k, err := lang.Check(f, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Conflicts(k, h, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
