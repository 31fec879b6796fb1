package codegen

import (
	"perfc/lang"
)

// memoryNeed estimates the memory a generated program needs, all ranks
// together: every rank's arrays, the P-block buffers and tree temporaries
// of the collectives that gather or spread blocks, the scratch buffers of
// reductions, in-place exchanges and `SIZE bytes` payloads, and the
// rendezvous slots. Payload sizes are bounded by the part of the array
// they select; a `SIZE bytes` payload whose size varies by rank or
// iteration is not known in advance and is not included.
func memoryNeed(k *lang.Checked) int64 {
	p := k.NumRanks()
	need := 2 * p * p * 8 // the slots' pointers, two contexts
	for _, a := range k.Info.Arrays {
		need += p * elements(a) * int64(a.Elem.Size())
	}
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok || s.Payload == nil {
			return true
		}
		need += commBuffers(k, s, payloadBound(k, s.Payload))
		return true
	})
	return need
}

// commBuffers is the extra memory, all ranks together, of one
// communication statement whose payload holds at most b bytes.
func commBuffers(k *lang.Checked, s *lang.CommStmt, b int64) int64 {
	p := k.NumRanks()
	switch s.Kind {
	case lang.Scatter, lang.Gather:
		roots := p // every rank may be the root once
		if s.Peer != nil && k.Info.Deps[s.Peer] == 0 {
			roots = 1
		}
		return roots*p*b + p*p*b // the root's blocks, the tree's temporaries and the rotation
	case lang.Allgather:
		return p * p * b
	case lang.Alltoall:
		return 2 * p * p * b
	case lang.Reduce, lang.Allreduce, lang.Scan:
		return 2 * p * b
	case lang.SendRecv, lang.Exchange, lang.Send, lang.Recv, lang.Bcast:
		return 2 * p * b // in-place copies, byte buffers
	}
	return 0
}

// payloadBound is the largest number of bytes a payload can hold.
func payloadBound(k *lang.Checked, pl *lang.Payload) int64 {
	if pl.Bytes != nil {
		if v, ok := k.Info.Values[pl.Bytes]; ok {
			if n, ok := v.Int64(); ok && n > 0 {
				return n
			}
		}
		return 0
	}
	obj := k.Info.Uses[pl.Name]
	if obj == nil {
		return 0
	}
	size := int64(obj.Elem.Size())
	if obj.Kind != lang.ArrayObj {
		return size
	}
	for _, d := range obj.Dims[min(len(pl.Index), len(obj.Dims)):] {
		size *= d
	}
	return size
}
