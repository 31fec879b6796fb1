package spmd

import "testing"

// TestOpaque checks that opaque hands back its argument unchanged in every
// element type a work statement's vars have (it only hides the value from
// the compiler).
func TestOpaque(t *testing.T) {
	if got := opaque(1.5); got != 1.5 {
		t.Errorf("opaque(1.5) = %v", got)
	}
	if got := opaque[float32](-0.25); got != -0.25 {
		t.Errorf("opaque[float32](-0.25) = %v", got)
	}
	if got := opaque[int64](7); got != 7 {
		t.Errorf("opaque[int64](7) = %v", got)
	}
	if got := opaque[int32](-3); got != -3 {
		t.Errorf("opaque[int32](-3) = %v", got)
	}
}
