package machines

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v4"
)

// position writes where a node is in the table: file:line:col.
func (d *decoder) position(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", d.file, n.Line, n.Column)
}

// checkSamples evaluates a cost at the sample points (costSamples) when the
// table loads, so that a cost that is negative or not finite there, such
// as a measured table whose end segment extrapolates below zero, is an
// error with its line before anything is priced.
func (d *decoder) checkSamples(n *yaml.Node, c *Cost) bool {
	for _, v := range costSamples() {
		if t := c.Eval(v); !usableTime(t) {
			what := ""
			if c.table != nil {
				what = " (the measured table is extended linearly beyond its points)"
			}
			d.errorf(n, "'%s' is %s at %s%s", c.key, badTime(t), describeVars(v, c.vars), what)
			return false
		}
	}
	return true
}

// usableTime reports whether t is a time perfc can price with: finite and
// not negative.
func usableTime(t float64) bool { return t >= 0 && !math.IsInf(t, 0) }

// Check evaluates the cost at v and returns it, or an error when it is
// negative or not finite there. The error names the entry as the table
// writes it, where it is written, the values of the variables it reads,
// the result and, when usedBy is not empty, what it prices: "m.yaml:14:26:
// 'time' (2000us - P*1us) is a negative time (-2.096ms) at bytes=8, P=4096
// (for bcast at k.spmd:5:3): …". The sample points checked at load time
// cannot cover every P and message size a kernel uses; pricing calls Check
// for the values it meets.
func (c *Cost) Check(v Vars, usedBy string) (float64, error) {
	t := c.Eval(v)
	if usableTime(t) {
		return t, nil
	}
	where := c.where
	if where == "" {
		where = "machine table"
	}
	if usedBy != "" {
		usedBy = " (for " + usedBy + ")"
	}
	return t, fmt.Errorf("%s: '%s' (%s) is %s at %s%s: a cost must not be negative or infinite; correct the entry or the range it is measured over",
		where, c.key, c.text, badTime(t), describeVars(v, c.vars), usedBy)
}
