package analyze

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefOffsets checks RefCount.Loop and Offset on a 2-D stencil: each
// reference's address with its loop indices at 0, so that references of
// one loop differ by their distance (two rows between u[j+1][i] and
// u[j-1][i]); a reference outside loops has no loop, and one whose address
// is not a polynomial (i % 4) has no known offset.
func TestRefOffsets(t *testing.T) {
	src := `kernel k(n = 10) {
  array u[n+2][n+2], v[n+2][n+2], w[4]: f64
  region "r" {
    for j in 1..n+1 {
      for i in 1..n+1 {
        v[j][i] = u[j-1][i] + u[j+1][i] + u[j][i+1]
      }
    }
    w[2] = 1.0
    for i in 0..8 {
      w[i % 4] = 2.0
    }
  }
}
`
	rep, err := Analyze(loadKernel(t, "k.spmd", []byte(src), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Classes[0].Total.Refs {
		got[r.Text] = fmt.Sprintf("loop %q offset %d known %v", r.Loop, r.Offset, r.OffsetKnown)
	}
	const row = 8 * 12
	want := map[string]string{
		"v[j][i]":     fmt.Sprintf("loop %q offset %d known true", "k.spmd:5:7", 0),
		"u[j - 1][i]": fmt.Sprintf("loop %q offset %d known true", "k.spmd:5:7", -row),
		"u[j + 1][i]": fmt.Sprintf("loop %q offset %d known true", "k.spmd:5:7", row),
		"u[j][i + 1]": fmt.Sprintf("loop %q offset %d known true", "k.spmd:5:7", 8),
		"w[2]":        fmt.Sprintf("loop %q offset %d known true", "", 16),
		"w[i % 4]":    fmt.Sprintf("loop %q offset %d known false", "k.spmd:10:5", 0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
}
