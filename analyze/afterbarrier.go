package analyze

import "perfc/lang"

// AfterBarrier reports, for every collective statement of body other than
// a barrier, whether the statement a rank runs just before it is a
// barrier: regions (and an empty one between) are transparent, a let runs
// nothing, and the first statement of a loop's body follows the body's
// last statement, as it does on every iteration but the first.
//
// Why: a collective called right after a barrier costs a time of its own,
// which the IMH benchmarks measure ([000] A.4-A.5: a barrier, then the
// call) and machine tables may give apart (collectives' `after_barrier:`,
// docs/predict.md, "Collectives after a barrier"). On this host an 8 B
// bcast on 2 ranks took 0.32 µs after a barrier against 0.11 µs called
// back to back, and a 488 KiB one on 4 ranks sharing 2 cores 28.3 µs
// against 32.9. A call after other work costs about what one back to back
// does (session 14: ddot's 8 B allreduce on 2 ranks measured 0.48-0.53
// µs, 0.56 back to back, 0.71 after a barrier), so only the barrier
// counts.
//
// A statement after an if, a wait, a message, a procedure call, work or
// a declaration is not after a barrier, nor is any statement of a
// procedure's body (absent from the map): the classification does not
// follow what ran before them.
func AfterBarrier(body *lang.Block) map[*lang.CommStmt]bool {
	out := map[*lang.CommStmt]bool{}
	barrierBlock(body, false, out)
	return out
}

// barrierBlock classifies the statements of b, the first of which follows
// a barrier when before says so.
func barrierBlock(b *lang.Block, before bool, out map[*lang.CommStmt]bool) {
	if b == nil {
		return
	}
	prev := before
	for _, s := range b.Stmts {
		barrierStmt(s, prev, out)
		prev = endsInBarrier(s, prev)
	}
}

// barrierStmt classifies s and the statements inside it, s following a
// barrier when before says so.
func barrierStmt(s lang.Stmt, before bool, out map[*lang.CommStmt]bool) {
	switch s := s.(type) {
	case *lang.CommStmt:
		if s.Kind.IsCollective() && s.Kind != lang.Barrier {
			out[s] = before
		}
	case *lang.RegionStmt:
		barrierBlock(s.Body, before, out)
	case *lang.Block:
		barrierBlock(s, before, out)
	case *lang.ForStmt:
		barrierBlock(s.Body, blockEndsInBarrier(s.Body, false), out)
	case *lang.RepeatStmt:
		barrierBlock(s.Body, blockEndsInBarrier(s.Body, false), out)
	case *lang.IfStmt:
		barrierBlock(s.Then, false, out)
		if s.Else != nil {
			barrierStmt(s.Else, false, out)
		}
	}
}

// endsInBarrier reports whether the last statement s runs is a barrier;
// before is the answer for a statement that runs nothing (an empty region
// or block, a let).
func endsInBarrier(s lang.Stmt, before bool) bool {
	switch s := s.(type) {
	case *lang.CommStmt:
		return s.Kind == lang.Barrier
	case *lang.RegionStmt:
		return blockEndsInBarrier(s.Body, before)
	case *lang.Block:
		return blockEndsInBarrier(s, before)
	case *lang.ForStmt:
		return blockEndsInBarrier(s.Body, false)
	case *lang.RepeatStmt:
		return blockEndsInBarrier(s.Body, false)
	case *lang.LetStmt:
		return before // a static name: no code
	}
	return false
}

// blockEndsInBarrier is endsInBarrier of a block's statements in turn.
func blockEndsInBarrier(b *lang.Block, before bool) bool {
	if b == nil {
		return before
	}
	for _, s := range b.Stmts {
		before = endsInBarrier(s, before)
	}
	return before
}
