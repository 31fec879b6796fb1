package codegen

import (
	"regexp"
	"strings"
	"testing"
)

// TestWorkValuesAreOpaque generates a kernel with abstract work and checks
// that every initialised var of the work statements' nests (names ending in
// a prime, hex-mangled) starts from opaque, so that the Go compiler cannot
// fold their arithmetic away, that the kernel's own vars do not, and that
// every var of the nests is added to the checksum.
func TestWorkValuesAreOpaque(t *testing.T) {
	src := []byte(`kernel k(N = 16) {
  array a[N]: f64
  var s: f64 = 2.0
  work 3*N add f64, N rem i32, N sqrt f32, load 8*N bytes from a, store 8*N bytes to a
  s = s * 2.0
}
`)
	k := checkSource(t, "k.spmd", src, "")
	p, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var main string
	for _, f := range p.Files {
		if f.Name == "main.go" {
			main = string(f.Data)
		}
	}
	decl := regexp.MustCompile(`var (\w+) (\w+) = (.*) // `)
	work, own := 0, 0
	for _, m := range decl.FindAllStringSubmatch(main, -1) {
		name, typ, init := m[1], m[2], m[3]
		// The nest's names end in a prime: kx_<hex of name> ending in 27.
		if strings.HasPrefix(name, "kx_") && strings.HasSuffix(name, "27") {
			work++
			if want := "opaque[" + typ + "]("; !strings.HasPrefix(init, want) {
				t.Errorf("work var %s starts from %s, not through opaque", name, init)
			}
			continue
		}
		own++
		if strings.Contains(init, "opaque") {
			t.Errorf("the kernel's own var %s starts from %s", name, init)
		}
	}
	// 8 + 1 (add), 8 + 1 (rem), 8 + 1 (sqrt) accumulators and operands,
	// and the stored value.
	if work != 28 || own != 1 {
		t.Errorf("%d initialised work vars and %d of the kernel's, want 28 and 1:\n%s", work, own, main)
	}
	// Every var of the nest, the loaded value too, reaches the checksum:
	// stored one after another to d.last, all but the last would be dead.
	all := regexp.MustCompile(`var (kx_\w+27) `).FindAllStringSubmatch(main, -1)
	if len(all) != 29 {
		t.Errorf("%d work vars, want 29", len(all))
	}
	for _, m := range all {
		if !strings.Contains(main, "d.sink += float64("+m[1]+")") {
			t.Errorf("work var %s does not reach the checksum", m[1])
		}
	}
}

// TestInnerVarsKeepSlotsOfTheirOwn checks that the vars of an inner block
// are each kept in a slot of their own: stored one after another to one
// field, all but the last would be dead, and the compiler could drop the
// loop that computes the first.
func TestInnerVarsKeepSlotsOfTheirOwn(t *testing.T) {
	k := checkSource(t, "inner.spmd", []byte(`kernel inner(N = 8) {
  array a[N]: f64
  repeat 2 {
    var s, q: f64 = 0
    for i in 0..N {
      s += a[i]
      q += a[i] * a[i]
    }
  }
}
`), "")
	p, err := Generate(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := string(p.File("main.go"))
	for _, want := range []string{"d.last[0] = float64(", "d.last[1] = float64(", "last [2]float64"} {
		if !strings.Contains(src, want) {
			t.Errorf("main.go has no %q", want)
		}
	}
}
