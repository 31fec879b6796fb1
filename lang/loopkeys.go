package lang

import "strconv"

// loopOrdinals numbers the loops of k that share their position with an
// earlier loop of k, in the order Inspect visits them: 2 for the second
// loop at a position, 3 for the third. A work statement's lowered nest
// (checkwork.go) gives every loop of one item the item's position, so
// that reports name the item; the compiled program's loops are matched to
// the kernel's by position (package machinecode), and loops that shared
// one could be matched to none. A node met twice (a proc's loop expanded
// at two calls without a copy) keeps its first number: it is one loop of
// the kernel, counted as one. Nil when no two loops share a position.
func loopOrdinals(k *Kernel) map[Node]int {
	seen := map[Node]bool{}
	byPos := map[Pos]int{}
	var out map[Node]int
	Inspect(k, func(n Node) bool {
		switch n.(type) {
		case *ForStmt, *RepeatStmt:
		default:
			return true
		}
		if seen[n] {
			return true
		}
		seen[n] = true
		byPos[n.Pos()]++
		if i := byPos[n.Pos()]; i > 1 {
			if out == nil {
				out = map[Node]int{}
			}
			out[n] = i
		}
		return true
	})
	return out
}

// LoopSuffix is what tells loop n apart from earlier loops of the checked
// kernel at the same position: "" for the first (and for a node that is
// not a loop), "#2" for the second, and so on. Counting names a loop
// FILE:LINE:COL plus this suffix, and code generation writes LINE:COL plus
// it in the comment on the loop's first line, so that both name every loop
// alike and no two loops alike (docs/predict.md, "Reading the code").
func (c *Checked) LoopSuffix(n Node) string {
	if i, ok := c.loopOrdinals[n]; ok {
		return "#" + strconv.Itoa(i)
	}
	return ""
}
