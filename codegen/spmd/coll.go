//go:build !perfc_mpi

package spmd

// The collectives. Each is called by every rank with its own payload; the
// internal messages travel in the collective context, so they cannot
// match a user's send or receive. Algorithms follow MPICH: binomial trees
// on ranks relative to the root, recursive doubling where every rank needs
// the result, a ring for allgather on a rank count that is not a power of
// two, pairwise exchange for alltoall, a dissemination barrier.

// bcast copies the root's buf to every rank along a binomial tree.
func (r *rank) bcast(site, root int, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	p := r.w.size
	vr := (r.id - root + p) % p
	mask := 1
	for mask < p {
		if vr&mask != 0 {
			r.xrecv((vr-mask+root)%p, buf)
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < p {
			r.xsend((vr+mask+root)%p, buf)
		}
	}
}

// reduce combines every rank's buf element by element with op; the result
// replaces the root's buf, the other ranks' bufs are unchanged.
func (r *rank) reduce(site, root int, op redOp, el elemKind, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	p := r.w.size
	acc := r.scratchBuf(scrAcc, len(buf))
	copy(acc, buf)
	tmp := r.scratchBuf(scrTmp, len(buf))
	vr := (r.id - root + p) % p
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			r.xsend((vr-mask+root)%p, acc)
			break
		}
		if src := vr | mask; src < p {
			r.xrecv((src+root)%p, tmp)
			combine(op, el, acc, tmp)
		}
	}
	if vr == 0 {
		copy(buf, acc)
	}
}

// allreduce leaves the combination of every rank's buf in every buf:
// recursive doubling on the largest power of two of ranks, with the ranks
// beyond it folded in first and served last.
func (r *rank) allreduce(site int, op redOp, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	p := r.w.size
	pof2 := 1
	for pof2*2 <= p {
		pof2 *= 2
	}
	rem := p - pof2
	tmp := r.scratchBuf(scrTmp, len(buf))
	id, newRank := r.id, r.id-rem
	if id < 2*rem {
		if id%2 == 0 {
			r.xsend(id+1, buf)
			newRank = -1
		} else {
			r.xrecv(id-1, tmp)
			combine(op, el, buf, tmp)
			newRank = id / 2
		}
	}
	if newRank >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			partner := newRank ^ mask
			if partner < rem {
				partner = partner*2 + 1
			} else {
				partner += rem
			}
			r.xsendrecv(partner, buf, partner, tmp)
			combine(op, el, buf, tmp)
		}
	}
	if id < 2*rem {
		if id%2 == 1 {
			r.xsend(id-1, buf)
		} else {
			r.xrecv(id+1, buf)
		}
	}
}

// scan leaves in rank i's buf the combination of the bufs of ranks 0..i
// (an inclusive prefix), by recursive doubling.
func (r *rank) scan(site int, op redOp, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	p := r.w.size
	partial := r.scratchBuf(scrAcc, len(buf))
	copy(partial, buf)
	tmp := r.scratchBuf(scrTmp, len(buf))
	for mask := 1; mask < p; mask <<= 1 {
		partner := r.id ^ mask
		if partner >= p {
			continue
		}
		r.xsendrecv(partner, partial, partner, tmp)
		combine(op, el, partial, tmp)
		if partner < r.id {
			combine(op, el, buf, tmp)
		}
	}
}

// scatter sends block i of the root's P-block buffer to rank i, into its
// buf, along a binomial tree.
func (r *rank) scatter(site, root int, el elemKind, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	p, n := r.w.size, len(buf)
	vr := (r.id - root + p) % p
	var data []byte // blocks of relative ranks vr, vr+1, …
	if vr == 0 {
		var relative []byte
		if root != 0 {
			relative = r.scratchBuf(scrRotate, n*p)
		}
		data = rotate(r.bigBuf(false, buf, el), relative, root, n, p, true)
	}
	mask := 1
	for mask < p {
		if vr&mask != 0 {
			data = r.scratchBuf(scrTree, min(mask, p-vr)*n)
			r.xrecv((vr-mask+root)%p, data)
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < p {
			cnt := min(mask, p-vr-mask)
			r.xsend((vr+mask+root)%p, data[mask*n:(mask+cnt)*n])
		}
	}
	copy(buf, data[:n])
}

// gather collects every rank's buf into block i of the root's P-block
// buffer along a binomial tree.
func (r *rank) gather(site, root int, el elemKind, buf []byte) {
	r.checkRoot(root, site)
	r.enterColl(site, len(buf))
	p, n := r.w.size, len(buf)
	vr := (r.id - root + p) % p
	blocks := p // the size of vr's subtree
	if vr != 0 {
		blocks = min(vr&-vr, p-vr)
	}
	data := r.scratchBuf(scrTree, blocks*n)
	copy(data, buf)
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			r.xsend((vr-mask+root)%p, data)
			break
		}
		if src := vr + mask; src < p {
			cnt := min(mask, p-src)
			r.xrecv((src+root)%p, data[mask*n:(mask+cnt)*n])
		}
	}
	if vr == 0 {
		rotate(data, r.bigBuf(false, buf, el), root, n, p, false)
	}
}

// rotate copies p blocks of n bytes from src to dst, between the order
// by rank and the tree's order by rank relative to the root: toRelative
// puts the block of rank (j+root)%p at j, otherwise it puts block j at rank
// (j+root)%p. With root 0 the orders agree, and scatter reads src itself.
func rotate(src, dst []byte, root, n, p int, toRelative bool) []byte {
	if root == 0 && toRelative {
		return src
	}
	for j := 0; j < p; j++ {
		k := (j + root) % p
		if toRelative {
			copy(dst[j*n:(j+1)*n], src[k*n:(k+1)*n])
		} else {
			copy(dst[k*n:(k+1)*n], src[j*n:(j+1)*n])
		}
	}
	return dst
}

// allgather collects every rank's buf into block i of every rank's P-block
// buffer: recursive doubling on a power of two, a ring otherwise.
func (r *rank) allgather(site int, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	p, n, id := r.w.size, len(buf), r.id
	all := r.bigBuf(false, buf, el)
	copy(all[id*n:(id+1)*n], buf)
	if p&(p-1) == 0 {
		for mask := 1; mask < p; mask <<= 1 {
			partner := id ^ mask
			mine, theirs := id&^(mask-1), partner&^(mask-1)
			r.xsendrecv(partner, all[mine*n:(mine+mask)*n], partner, all[theirs*n:(theirs+mask)*n])
		}
		return
	}
	right, left := (id+1)%p, (id-1+p)%p
	for k := 0; k < p-1; k++ {
		out, in := (id-k+p)%p, (id-k-1+p)%p
		r.xsendrecv(right, all[out*n:(out+1)*n], left, all[in*n:(in+1)*n])
	}
}

// alltoall sends block j of a rank's P-block send buffer to rank j, into
// block i of rank j's P-block receive buffer, by pairwise exchange; the
// rank's own block is its buf.
func (r *rank) alltoall(site int, el elemKind, buf []byte) {
	r.enterColl(site, len(buf))
	p, n, id := r.w.size, len(buf), r.id
	out := r.bigBuf(false, buf, el)
	in := r.bigBuf(true, buf, el)
	copy(in[id*n:(id+1)*n], buf)
	for k := 1; k < p; k++ {
		to, from := (id+k)%p, (id-k+p)%p
		r.xsendrecv(to, out[to*n:(to+1)*n], from, in[from*n:(from+1)*n])
	}
}

// barrier returns when every rank has entered it: ceil(log2 P) rounds of
// empty messages at doubling distances (dissemination).
func (r *rank) barrier(site int) {
	r.enterColl(site, 0)
	p := r.w.size
	for k := 1; k < p; k <<= 1 {
		r.xsendrecv((r.id+k)%p, nil, (r.id-k+p)%p, nil)
	}
}
