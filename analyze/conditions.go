package analyze

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"perfc/analyze/symbolic"
	"perfc/lang"
)

// This file states where each layer condition breaks: the model reports a
// condition as text with the footprint's formula in the parameters ("… from
// L1 while 72*N + 64 B <= 32 KiB: holds (1792 B)"); per parameter of the
// formula, the others held at their values, the largest value for which it
// holds (a failing condition) or the smallest for which it fails (a holding
// one) is found by bisection on the formula, read back from its printed
// form (symbolic.Poly.String's grammar). A formula that is not a polynomial
// in the kernel's parameters and lets (an atom in brackets) or that does not
// grow with a parameter gets no limit for it.

// ConditionLimit is a layer condition with the sizes at which it changes.
type ConditionLimit struct {
	Condition string `json:"condition"`
	Holds     bool   `json:"holds"`
	// Limits lists, per parameter of the footprint, where the condition
	// changes, the other parameters as they are: "holds while N <= 13"
	// for a condition that fails, "breaks at N = 14" for one that holds.
	Limits []string `json:"limits,omitempty"`
}

// conditionLimits works out the limits of every condition of a level of
// size bytes.
func conditionLimits(k *lang.Checked, conds []string, size int64) []ConditionLimit {
	env := symbolValues(k)
	params := map[string]bool{}
	for _, p := range k.Params {
		params[p.Name] = true
	}
	var out []ConditionLimit
	for _, c := range conds {
		cl := ConditionLimit{Condition: c, Holds: strings.Contains(c, ": holds")}
		if f, ok := conditionFormula(c); ok {
			for _, v := range f.Vars() {
				if !params[v] {
					continue
				}
				if lim, ok := limitOf(f, v, env, size, cl.Holds); ok {
					cl.Limits = append(cl.Limits, lim)
				}
			}
		}
		out = append(out, cl)
	}
	return out
}

// symbolValues is the value of every parameter and constant let of k.
func symbolValues(k *lang.Checked) map[string]*big.Rat {
	env := map[string]*big.Rat{}
	for _, p := range k.Params {
		if p.Value.Kind() != lang.InvalidValue {
			env[p.Name] = p.Value.Rat()
		}
	}
	for _, obj := range k.Info.Defs {
		if obj != nil && obj.Kind == lang.LetObj && obj.Value.Kind() != lang.InvalidValue && obj.Value.Rat() != nil {
			env[obj.Name] = obj.Value.Rat()
		}
	}
	return env
}

// conditionFormula reads the footprint formula of a condition back: the
// text between "while " and " B <= ", without an "about " in front.
func conditionFormula(c string) (symbolic.Poly, bool) {
	_, rest, ok := strings.Cut(c, " while ")
	if !ok {
		return symbolic.Poly{}, false
	}
	text, _, ok := strings.Cut(rest, " B <= ")
	if !ok {
		return symbolic.Poly{}, false
	}
	return parsePoly(strings.TrimPrefix(text, "about "))
}

// parsePoly parses symbolic.Poly.String's form: terms joined by " + " and
// " - " (a leading "-" for a negative first term), each num*V^k*W/den with
// the numerator and denominator optional.
func parsePoly(s string) (symbolic.Poly, bool) {
	if strings.ContainsAny(s, "[]()") {
		return symbolic.Poly{}, false
	}
	sum := symbolic.Int(0)
	sign := int64(1)
	if strings.HasPrefix(s, "-") {
		sign, s = -1, s[1:]
	}
	for {
		i, next := nextSign(s)
		t, ok := parseTerm(s[:i])
		if !ok {
			return symbolic.Poly{}, false
		}
		sum = sum.Add(t.Scale(big.NewRat(sign, 1)))
		if i == len(s) {
			return sum, true
		}
		sign, s = next, s[i+3:]
	}
}

// nextSign finds the next " + " or " - " of s: its index (len(s) when none)
// and the sign it gives the term after it.
func nextSign(s string) (int, int64) {
	p, m := strings.Index(s, " + "), strings.Index(s, " - ")
	switch {
	case p < 0 && m < 0:
		return len(s), 1
	case m < 0 || (p >= 0 && p < m):
		return p, 1
	}
	return m, -1
}

// parseTerm parses num*V^k*W/den.
func parseTerm(s string) (symbolic.Poly, bool) {
	body, den, hasDen := strings.Cut(s, "/")
	t := symbolic.Int(1)
	for i, f := range strings.Split(body, "*") {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil && i == 0 {
			t = t.Scale(big.NewRat(n, 1))
			continue
		}
		name, exp, hasExp := strings.Cut(f, "^")
		k := 1
		if hasExp {
			e, err := strconv.Atoi(exp)
			if err != nil || e < 1 {
				return symbolic.Poly{}, false
			}
			k = e
		}
		if name == "" || !isName(name) {
			return symbolic.Poly{}, false
		}
		t = t.Mul(symbolic.Var(name).Pow(k))
	}
	if hasDen {
		d, err := strconv.ParseInt(den, 10, 64)
		if err != nil || d == 0 {
			return symbolic.Poly{}, false
		}
		t = t.Scale(big.NewRat(1, d))
	}
	return t, true
}

// isName reports whether s is an identifier.
func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// limitOf finds where f <= size changes as v moves from its value, the
// other symbols fixed, for f growing with v: for a condition that holds,
// the smallest v at which it fails; for one that fails, the largest at
// which it holds.
func limitOf(f symbolic.Poly, v string, env map[string]*big.Rat, size int64, holds bool) (string, bool) {
	v0, ok := env[v]
	if !ok || !v0.IsInt() || !v0.Num().IsInt64() {
		return "", false
	}
	at := func(x int64) (*big.Rat, bool) {
		e := make(map[string]*big.Rat, len(env))
		for n, r := range env {
			e[n] = r
		}
		e[v] = big.NewRat(x, 1)
		val, err := f.Eval(e)
		return val, err == nil
	}
	fits := func(x int64) (bool, bool) {
		val, ok := at(x)
		return ok && val.Cmp(big.NewRat(size, 1)) <= 0, ok
	}
	cur := v0.Num().Int64()
	if a, ok1 := at(cur); !ok1 {
		return "", false
	} else if b, ok2 := at(cur + 1); !ok2 || b.Cmp(a) <= 0 {
		return "", false // the footprint does not grow with v
	}
	if a, ok1 := fits(cur); !ok1 || a != holds {
		return "", false
	}
	if holds {
		// Grow until it fails, then bisect: lo fits, hi does not.
		lo, hi := cur, cur+1
		for {
			ok, valid := fits(hi)
			if !valid {
				return "", false
			}
			if !ok {
				break
			}
			if hi > 1<<50 {
				return "", false // it does not grow with v
			}
			lo, hi = hi, 2*hi
		}
		_, hi = bisectFits(lo, hi, fits)
		return fmt.Sprintf("breaks at %s = %d", v, hi), true
	}
	// It fails at cur: bisect between 0 and cur for the largest that fits.
	if ok, _ := fits(0); !ok {
		return fmt.Sprintf("fails for every %s", v), true
	}
	lo, _ := bisectFits(0, cur, fits)
	return fmt.Sprintf("holds while %s <= %d", v, lo), true
}

// bisectFits narrows lo (which fits) and hi (which does not) to
// neighbours: the largest value that fits and the smallest that fails.
func bisectFits(lo, hi int64, fits func(int64) (bool, bool)) (int64, int64) {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok, _ := fits(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, hi
}
