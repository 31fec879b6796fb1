package symbolic

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// String prints p for humans, one rule for every polynomial:
//
//   - terms in canonical order (highest total degree first, see the package
//     documentation), joined by " + " or " - ", with a leading "-" when the
//     first coefficient is negative;
//   - a coefficient is a reduced fraction num/den split around the monomial:
//     num*m/den, where a numerator or denominator of 1 is omitted
//     (N^2/2, 3*N/2, BS*N, -N);
//   - a monomial is its variables in byte order joined by "*", each with
//     "^k" when its power k exceeds 1 (BS^2*N*i);
//   - a constant term is num/den or num, and the zero polynomial is "0".
//
// With ^ binding tighter than * and /, and * and / grouping left to right,
// every printed term reads back as its exact value: 3*N^2/2 = (3·N²)/2.
func (p Poly) String() string {
	if p.IsZero() {
		return "0"
	}
	var b strings.Builder
	for i, t := range p.terms {
		negative := t.coef.sign() < 0
		switch {
		case i == 0 && negative:
			b.WriteString("-")
		case negative:
			b.WriteString(" - ")
		case i > 0:
			b.WriteString(" + ")
		}
		writeTerm(&b, t.mono, new(big.Rat).Abs(t.coef.toBig()))
	}
	return b.String()
}

// writeTerm prints the positive coefficient c times the monomial m.
func writeTerm(b *strings.Builder, m monomial, c *big.Rat) {
	if len(m) == 0 {
		b.WriteString(c.RatString())
		return
	}
	if !isOne(c.Num()) {
		b.WriteString(c.Num().String())
		b.WriteString("*")
	}
	for i, f := range m {
		if i > 0 {
			b.WriteString("*")
		}
		b.WriteString(f.name)
		if f.exp > 1 {
			b.WriteString("^")
			b.WriteString(strconv.Itoa(f.exp))
		}
	}
	if !c.IsInt() {
		b.WriteString("/")
		b.WriteString(c.Denom().String())
	}
}

// isOne reports whether n is 1.
func isOne(n *big.Int) bool { return n.IsInt64() && n.Int64() == 1 }

// MarshalJSON encodes p as its String form, so machine-readable reports show
// the same closed form a person reads.
func (p Poly) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }
