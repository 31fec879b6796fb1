package jsonwalk

import (
	"math"
	"reflect"
	"testing"
)

type term struct {
	Time   float64 `json:"time"`
	hidden float64
	Skip   float64 `json:"-"`
}

type region struct {
	Name  string `json:"name"`
	Terms []term `json:"terms"`
	Extra *term  `json:"extra,omitempty"`
	Plain float64
}

// nonFinite finds a float that is infinite or not a number.
func nonFinite(v reflect.Value) (found, enter bool) {
	if v.Kind() == reflect.Float64 {
		return math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0), false
	}
	return false, true
}

// TestFirst checks the paths First gives: JSON names, indices, pointers,
// fields without a tag, and the fields it must not enter.
func TestFirst(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		v    any
		path string
		ok   bool
	}{
		{"none", []region{{Terms: []term{{Time: 1}}}}, "", false},
		{"index and tag", []region{{}, {Terms: []term{{Time: 1}, {Time: inf}}}}, "[1].terms[1].time", true},
		{"pointer", &region{Extra: &term{Time: math.NaN()}}, "extra.time", true},
		{"untagged field", region{Plain: inf}, "Plain", true},
		{"unexported and '-' are left out", term{hidden: inf, Skip: inf}, "", false},
		{"the value itself", inf, "", true},
		{"nil pointer", (*region)(nil), "", false},
		{"nil", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _, ok := First(tt.v, nonFinite)
			if path != tt.path || ok != tt.ok {
				t.Errorf("First = %q, %v; want %q, %v", path, ok, tt.path, tt.ok)
			}
		})
	}
}

// TestFirstDoesNotEnter checks that a value the matcher declines to enter
// is not searched.
func TestFirstDoesNotEnter(t *testing.T) {
	v := region{Terms: []term{{Time: math.Inf(1)}}}
	_, _, ok := First(v, func(v reflect.Value) (bool, bool) {
		if v.Type() == reflect.TypeFor[[]term]() {
			return false, false
		}
		return nonFinite(v)
	})
	if ok {
		t.Error("First entered a slice the matcher declined")
	}
}
