// Package spmd is the runtime of the programs perfc generates. Package
// codegen embeds its source files and writes them, renamed to package main,
// next to the generated main.go, so that every generated program is
// self-contained (standard library only). Here it is an ordinary package so
// that the runtime is compiled, vetted and tested like the rest of perfc.
//
// A program runs P ranks as goroutines. Point-to-point messages are blocking
// rendezvous that copy bytes: whichever of sender and receiver arrives
// second copies and wakes the other, so every message costs one wake-up.
// The collectives are built on the same rendezvous, in a context of their
// own so that they never match a user's send or receive: binomial trees
// (bcast, reduce, scatter, gather), recursive doubling (allreduce, scan,
// allgather on a power of two), a ring (allgather otherwise), pairwise
// exchange (alltoall) and a dissemination barrier.
//
// The harness measures the timer resolution (PARKBENCH's TICK1), warms
// up, repeats the kernel until one measurement lasts at least -min-time,
// and reports the minimum, median and maximum over -samples measurements
// per region and in total. Built with the tag perfc_count, the program can
// instead count what ran (-count): every counted statement increments a
// counter, and the counts are priced with the statement's operations under
// the analyzer's rules (docs/counts.md); without the tag the constant
// counting is false and the compiler removes every counter.
//
// The generated main.go supplies one kernelDesc: the site table (one entry
// per counted place in the kernel), the regions and a constructor of a
// rank's program (its arrays, their initialisation and the kernel body).
package spmd
