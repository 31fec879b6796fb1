package codegen

import (
	"fmt"
	"math"
	"math/big"

	"perfc/codegen/spmd"
	"perfc/lang"
)

// memoryNeed estimates the memory a generated program needs, all ranks
// together: every rank's arrays, the P-block buffers and tree temporaries
// of the collectives that gather or spread blocks, the scratch buffers of
// reductions, in-place exchanges and `SIZE bytes` payloads, and the
// rendezvous slots. Payload sizes are bounded by the part of the array
// they select; a `SIZE bytes` payload whose size varies by rank counts at
// its largest over the ranks; one that varies by loop iteration is not
// known in advance and is not included. The sum is computed exactly: a
// kernel whose need does not fit in 64 bits is an error naming the largest
// part, so that no overflow can let it past the memory limit.
func memoryNeed(k *lang.Checked) (int64, error) {
	var t memTally
	p := k.NumRanks()
	t.add(product(2, p, p, 8), "the rendezvous slots") // two contexts of P×P pointers
	for _, a := range k.Info.Arrays {
		perRank := product(elements(a), int64(a.Elem.Size()))
		t.add(new(big.Int).Mul(perRank, big.NewInt(p)), fmt.Sprintf("array %s, %s per rank on %d ranks", a.Name, bigBytes(perRank), p))
	}
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok || s.Payload == nil || t.overflow() {
			return true
		}
		b := payloadBound(k, s.Payload)
		t.add(commBuffers(k, s, b), fmt.Sprintf("the buffers of the %s at line %d (payload up to %s)", s.Kind, k.File.Source.Position(s.Pos()).Line, bigBytes(big.NewInt(b))))
		return true
	})
	if t.overflow() {
		return 0, fmt.Errorf("the kernel needs %s of memory for its arrays and message buffers (%s: %s), more than any machine has; lower the sizes or the rank count with -D",
			bigBytes(&t.total), t.largestWhat, bigBytes(&t.largest))
	}
	return t.total.Int64(), nil
}

// memTally sums memory exactly and remembers its largest part, which the
// error for an impossible need names.
type memTally struct {
	total, largest big.Int
	largestWhat    string
}

// add adds n bytes, described by what.
func (t *memTally) add(n *big.Int, what string) {
	t.total.Add(&t.total, n)
	if n.Cmp(&t.largest) > 0 {
		t.largest.Set(n)
		t.largestWhat = what
	}
}

// overflow reports whether the total no longer fits in an int64.
func (t *memTally) overflow() bool { return !t.total.IsInt64() }

// product multiplies exactly.
func product(xs ...int64) *big.Int {
	out := big.NewInt(1)
	for _, x := range xs {
		out.Mul(out, big.NewInt(x))
	}
	return out
}

// bigBytes prints a byte count with a binary prefix, exactly in bytes
// beyond what an int64 holds.
func bigBytes(n *big.Int) string {
	if n.IsInt64() {
		return spmd.FormatBytes(n.Int64())
	}
	return n.String() + " B"
}

// commBuffers is the extra memory, all ranks together, of one
// communication statement whose payload holds at most b bytes.
func commBuffers(k *lang.Checked, s *lang.CommStmt, b int64) *big.Int {
	p := k.NumRanks()
	switch s.Kind {
	case lang.Scatter, lang.Gather:
		roots := p // every rank may be the root once
		if s.Peer != nil && k.Info.Deps[s.Peer] == 0 {
			roots = 1
		}
		// the root's blocks, the tree's temporaries and the rotation
		return new(big.Int).Add(product(roots, p, b), product(p, p, b))
	case lang.Allgather:
		return product(p, p, b)
	case lang.Alltoall:
		return product(2, p, p, b)
	case lang.Reduce, lang.Allreduce, lang.Scan:
		return product(2, p, b)
	case lang.SendRecv, lang.Exchange, lang.Send, lang.Recv, lang.Bcast:
		return product(2, p, b) // in-place copies, byte buffers
	case lang.ISend, lang.IRecv:
		return product(p, b) // the request's buffer of a var or byte payload
	case lang.Barrier:
		return new(big.Int)
	default:
		panic(lang.UnhandledComm("codegen: communication buffers", s.Kind))
	}
}

// payloadBound is the largest number of bytes a payload can hold: a
// `SIZE bytes` size that depends on the rank is evaluated on every rank;
// one that depends on a loop index, or cannot be evaluated, counts 0.
func payloadBound(k *lang.Checked, pl *lang.Payload) int64 {
	if pl.Bytes != nil {
		return bytesBound(k, pl.Bytes)
	}
	obj := k.Info.Uses[pl.Name]
	if obj == nil {
		return 0
	}
	size := int64(obj.Elem.Size())
	if obj.Kind != lang.ArrayObj {
		return size
	}
	for d, n := range obj.Dims {
		switch {
		case d >= len(pl.Subs):
			size *= n // no overflow: the checker bounds an array's bytes by 2^63
		case pl.Subs[d].IsRange():
			size *= rangeBound(k, pl.Subs[d], n)
		}
	}
	return size
}

// rangeBound is the most elements a range subscript of a dimension of n
// selects: hi − lo (every step-th) when its bounds are constants, n
// otherwise. A calibration kernel moves slices x[0:k] of one array at
// seventeen lengths; counting each as the whole array put its need at
// 26 GiB where it allocates about 2.
func rangeBound(k *lang.Checked, sub *lang.Subscript, n int64) int64 {
	lo, okLo := constInt(k, sub.Lo)
	hi, okHi := constInt(k, sub.Hi)
	if !okLo || !okHi {
		return n
	}
	lo, hi = max(lo, 0), min(hi, n)
	if hi <= lo {
		return 0
	}
	step := int64(1)
	if sub.Step != nil {
		if s, ok := constInt(k, sub.Step); ok && s > 0 {
			step = s
		}
	}
	return (hi - lo + step - 1) / step
}

// constInt is an expression's value when the checker folded it to an
// integer constant.
func constInt(k *lang.Checked, e lang.Expr) (int64, bool) {
	if e == nil {
		return 0, false
	}
	v, ok := k.Info.Values[e]
	if !ok {
		return 0, false
	}
	return v.Int64()
}

// bytesBound is the largest value of a `SIZE bytes` size over the ranks.
func bytesBound(k *lang.Checked, size lang.Expr) int64 {
	if v, ok := k.Info.Values[size]; ok {
		if n, ok := v.Int64(); ok && n > 0 {
			return n
		}
		return 0
	}
	if k.Info.Deps[size]&^lang.DepRank != 0 {
		return 0 // varies by iteration (or reads data): not known in advance
	}
	largest := int64(0)
	for r := range k.NumRanks() {
		n, err := k.EvalInt(size, &lang.Env{Rank: r})
		if err == nil && n > largest {
			largest = n
		}
		if largest == math.MaxInt64 {
			break
		}
	}
	return largest
}

// ScratchBytes is the memory of one rank's runtime buffers that its
// messages copy through, beside its arrays: the copy of what an in-place
// sendrecv or exchange sends (the largest such payload: the buffer is
// reused), the send and receive sides of `SIZE bytes` payloads, the
// running result and the partner's part of a reduce, allreduce or scan
// (codegen/spmd: rank.scratch), and the P-block buffers of scatter,
// gather, allgather and alltoall (rank.big and rank.big2, one per
// statement). They are working memory like the arrays: an exchange of
// 512 KiB in place touches 1 MiB per rank, which a 1 MiB L2 holds or not
// depending on where the pages fall; a scatter of m bytes on P ranks
// touches (P+1)·m on its root.
func ScratchBytes(k *lang.Checked) int64 {
	var replace, bytesOut, bytesIn, reduce, blocks, rotated int64
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok || s.Payload == nil {
			return true
		}
		b := payloadBound(k, s.Payload)
		// A byte payload is never in place: the runtime sends from one
		// of its buffers and receives into the other (sendrecv).
		inPlace := (s.Kind == lang.Exchange || s.Kind == lang.SendRecv && s.Into == nil) && s.Payload.Bytes == nil
		switch {
		case inPlace:
			replace = max(replace, b)
		case s.Kind == lang.Reduce || s.Kind == lang.Allreduce || s.Kind == lang.Scan:
			reduce = max(reduce, b)
		}
		big, rot := blockBuffers(k, s, b)
		blocks = satAdd(blocks, big)
		rotated = max(rotated, rot)
		if s.Payload.Bytes != nil && s.Kind != lang.Recv && s.Kind != lang.IRecv {
			bytesOut = max(bytesOut, b)
		}
		if s.Into != nil && s.Into.Bytes != nil {
			bytesIn = max(bytesIn, payloadBound(k, s.Into))
		} else if s.Payload.Bytes != nil && (s.Kind == lang.Recv || s.Kind == lang.IRecv || s.Kind == lang.SendRecv || s.Kind == lang.Exchange) {
			bytesIn = max(bytesIn, b)
		}
		return true
	})
	sum := satAdd(satAdd(replace, bytesOut), satAdd(bytesIn, satAdd(reduce, reduce)))
	return satAdd(sum, satAdd(blocks, rotated))
}

// blockBuffers is what one collective of b bytes a block holds on the
// rank that holds the most, its root (codegen/spmd coll.go): big, the
// statement's P-block buffers (scatter's and gather's on the root,
// allgather's on every rank, alltoall's two; counted for every statement,
// an upper bound where statements of one payload share them), with gather's
// tree of P blocks beside them; and rot, scatter's rotation into the
// tree's order, reused by every scatter, when its root may be another
// rank than 0.
func blockBuffers(k *lang.Checked, s *lang.CommStmt, b int64) (big, rot int64) {
	p := k.NumRanks()
	blocks := func(n int64) int64 {
		if b > 0 && p > math.MaxInt64/n/b {
			return math.MaxInt64
		}
		return n * p * b
	}
	switch s.Kind {
	case lang.Scatter:
		if root, ok := constInt(k, s.Peer); !ok || root != 0 {
			rot = blocks(1)
		}
		return blocks(1), rot
	case lang.Gather, lang.Alltoall:
		return blocks(2), 0
	case lang.Allgather:
		return blocks(1), 0
	}
	return 0, 0
}

// satAdd adds two byte counts, saturating at the largest int64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
