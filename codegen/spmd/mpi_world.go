//go:build perfc_mpi

package spmd

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The MPI transport: every rank is an MPI process running this program
// (started by mpirun, srun …), and the world is this process's view of
// them. Point-to-point messages keep the language's semantics: blocking,
// in order per pair of ranks (MPI's non-overtaking rule; every message
// travels on one communicator and is received with MPI_ANY_TAG), and a
// send completes when the receiver has started to receive it: MPI_Ssend,
// or MPI_Send for messages below -eager-limit bytes when it is given (the
// machine table's eager limit, below which a real MPI returns from a
// send before the receive). Collectives call the MPI collective of the
// same name, so that the library's own algorithms are what is measured.

func init() {
	// MPI is initialised for MPI_THREAD_FUNNELED: every MPI call must come
	// from the main thread, so the main goroutine, which runs the kernel,
	// stays on it.
	runtime.LockOSThread()
}

// backend names the transport in reports.
const backend = "mpi"

// perRankTimes is true: a measurement reports every rank's times too,
// gathered from the processes.
const perRankTimes = true

// stamp is a reading of the region timer: MPI_Wtime's seconds.
type stamp = float64

// readClock reads the region timer.
func readClock() stamp { return mpiWtime() }

// elapsedNs is the time from one reading to another.
func elapsedNs(from, to stamp) int64 { return int64(math.Round((to - from) * 1e9)) }

// world is this process's rank and what it knows of the others.
type world struct {
	k      *kernelDesc
	size   int
	id     int
	r      *rank
	prog   rankProgram
	stderr io.Writer
	once   sync.Once
	// eager is the size below which sends are MPI_Send rather than
	// MPI_Ssend (0: every send is synchronous).
	eager int
	// tagUB is MPI_TAG_UB: sites above it travel with tag 0 (errors
	// then cannot name the sender's statement).
	tagUB int
	// local is the number of ranks on this node, library MPI's name.
	local   int
	library string

	// What the watchdog reads: the operation this rank waits in
	// (opNone when it computes) and the operations completed so far.
	op   atomic.Uint64
	done atomic.Uint64
}

// rank is the one rank of this process.
type rank struct {
	id   int
	size int
	w    *world
	rankCommon
	// rq holds the requests of a kernel that posts them
	// (mpi_requests.go); nil otherwise.
	rq *mpiReqState
}

// mpiOptions are the MPI program's own flags.
type mpiOptions struct {
	eager int
	stall time.Duration
}

// runProgram is the main function of a generated MPI program: it starts
// MPI, checks the world against the kernel and the memory, times the
// kernel (or, with -count, counts one run), prints the result from rank 0
// and stops MPI. It returns the exit status; a fatal error ends every
// rank with MPI_Abort.
func runProgram(k *kernelDesc, args []string, stdout, stderr io.Writer, exit func(int)) int {
	if len(args) == 1 && args[0] == "-kernel-ranks" {
		// What a launcher asks before starting the program (perfc's
		// Launch with no rank count); answered without starting MPI.
		fmt.Fprintln(stdout, k.ranks)
		return 0
	}
	// Open MPI's handlers of SIGSEGV, SIGBUS and SIGFPE would take the
	// signals by which Go turns a nil dereference into a panic.
	os.Setenv("OMPI_MCA_opal_signal", "")
	id, size, err := mpiInit()
	if err != nil {
		fmt.Fprintf(stderr, "error: kernel %s: starting MPI: %v\n", k.name, err)
		return 1
	}
	w := &world{k: k, size: size, id: id, stderr: stderr, tagUB: mpiTagUpperBound(), library: mpiLibrary()}
	if id != 0 {
		stdout = io.Discard // rank 0 reports
	}
	code := w.main(args, stdout, stderr)
	if err := mpiFinalize(); err != nil && code == 0 {
		fmt.Fprintf(stderr, "error: rank %d: %v\n", id, err)
		code = 1
	}
	return code
}

// main is runProgram after MPI has started.
func (w *world) main(args []string, stdout, stderr io.Writer) int {
	k := w.k
	quiet := stderr
	if w.id != 0 {
		quiet = io.Discard // every rank finds the same errors; rank 0 says them
	}
	var mo mpiOptions
	o, err := parseOptions(k.name, args, quiet, func(fs *flag.FlagSet) {
		fs.IntVar(&mo.eager, "eager-limit", 0, "send messages of fewer bytes than this with MPI_Send (default 0: every send is MPI_Ssend, complete when received)")
		fs.DurationVar(&mo.stall, "stall", 20*time.Second, "report a deadlock when a rank has waited this long in one operation without progress")
	})
	if err == flag.ErrHelp {
		return 0
	}
	if err == nil && mo.stall <= 0 {
		err = fmt.Errorf("-stall %v: give a positive duration such as 20s", mo.stall)
	}
	if err != nil {
		fmt.Fprintln(quiet, "error:", err)
		return 2
	}
	if w.size != k.ranks {
		fmt.Fprintf(quiet, "error: kernel %s has %d ranks, but MPI started %d: launch it with mpirun -n %d, or generate it for %d ranks (-D P=%d or the grid's Px, Py)\n",
			k.name, k.ranks, w.size, k.ranks, w.size, w.size)
		return 2
	}
	w.eager = mo.eager
	if w.local, err = mpiLocalSize(); err != nil {
		w.local = 0
	}
	// The memory of this node's ranks, against this node's memory.
	need := k.memBytes / int64(max(k.ranks, 1)) * int64(max(w.local, 1))
	if err := CheckMemory(need, o.memLimit, MemAvailable); err != nil {
		fmt.Fprintf(stderr, "error: kernel %s, rank %d: %v\n", k.name, w.id, err)
		return 1
	}
	if o.count && !counting {
		fmt.Fprintln(quiet, "error: this build does not count; build it with the counting code: go build -tags perfc_count . and run it with -count")
		return 2
	}
	w.r = &rank{id: w.id, size: w.size, w: w, rankCommon: newRankCommon(k)}
	if len(k.requests) > 0 {
		w.r.rq = newMPIReqState(k)
	}
	w.prog = k.newRank()
	stop := make(chan struct{})
	defer close(stop)
	go w.watch(stop, mo.stall)
	defer w.recoverRank()
	if o.count {
		return w.report(stdout, o.json, w.countRun())
	}
	return w.report(stdout, o.json, w.measure(o))
}

// fatalf reports an error that ends the program on every rank: a message
// that does not fit, a peer that is not a rank, a failed MPI call.
func (w *world) fatalf(format string, args ...any) {
	w.once.Do(func() {
		fmt.Fprintf(w.stderr, "error: "+format+"\n", args...)
		mpiAbort(2)
	})
	panic(errFatal)
}

// errFatal unwinds after a fatal error (MPI_Abort does not return).
var errFatal = fmt.Errorf("fatal error reported")

// recoverRank turns a run-time error in the kernel (an index out of range,
// an integer division by zero) into a message naming the rank, and ends
// every rank.
func (w *world) recoverRank() {
	e := recover()
	if e == nil || e == errFatal {
		return
	}
	w.once.Do(func() {
		fmt.Fprintf(w.stderr, "error: rank %d stopped: %v\n%s\n", w.id, e, kernelFrame())
		mpiAbort(2)
	})
}

// keepRanks does nothing: an MPI rank is its process, kept for the
// program's life.
func (w *world) keepRanks() (stop func()) { return func() {} }

// runs executes the kernel body reps times. Before every run the rank
// re-initialises its data (untimed); the ranks start and end every run
// together (MPI_Barrier). It returns, for every rank, the nanoseconds
// spent in each region, summed over the runs (MPI_Allgather, so that
// every rank takes the same decisions from them).
func (w *world) runs(reps int) [][]int64 {
	r := w.r
	clear(r.regionNs)
	for range reps {
		w.prog.init(w.id)
		w.harnessBarrier(opStart)
		r.cur, r.stack = 0, r.stack[:0]
		r.resumed = readClock()
		w.prog.run(r)
		r.regionNs[r.cur] += elapsedNs(r.resumed, readClock())
		w.harnessBarrier(opEnd)
	}
	all := w.gatherInt64(r.regionNs)
	out := make([][]int64, w.size)
	n := len(r.regionNs)
	for i := range out {
		out[i] = all[i*n : (i+1)*n]
	}
	return out
}

// harnessBarrier lines the ranks up before or after a run.
func (w *world) harnessBarrier(op int) {
	w.begin(op, -1, -1)
	if err := mpiWorldBarrier(); err != nil {
		w.fatalf("rank %d: %v", w.id, err)
	}
	w.end()
}

// gatherInt64 returns every rank's xs (the same length on every rank),
// in rank order.
func (w *world) gatherInt64(xs []int64) []int64 {
	all := make([]int64, len(xs)*w.size)
	w.begin(opGather, -1, -1)
	if err := mpiWorldAllgather(asBytes(xs), asBytes(all)); err != nil {
		w.fatalf("rank %d: gathering the results: %v", w.id, err)
	}
	w.end()
	return all
}

// asBytes views numbers as their bytes.
func asBytes[T int64 | float64](xs []T) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafeBytes(xs)
}

// checksum sums every rank's data after the last run, in rank order (as
// the goroutine transport does, so that both give the same sum).
func (w *world) checksum() (string, bool) {
	mine := []int64{int64(math.Float64bits(w.prog.checksum()))}
	sum := 0.0
	for _, bits := range w.gatherInt64(mine) {
		sum += math.Float64frombits(uint64(bits))
	}
	return strconv.FormatFloat(sum, 'g', 17, 64), !math.IsInf(sum, 0) && !math.IsNaN(sum)
}

// clearCounters zeroes this rank's counters.
func (w *world) clearCounters() {
	clear(w.r.cnt)
	clear(w.r.bytes)
	clear(w.r.peer)
	if rq := w.r.rq; rq != nil {
		clear(rq.posted)
		clear(rq.completed)
		clear(rq.overlapped)
	}
}

// rankCounters gathers every rank's counters.
func (w *world) rankCounters() []rankCounters {
	r := w.r
	n, g := len(r.cnt), len(w.k.regions)
	mine := append(append(append(make([]int64, 0, 3*n+3*g), r.cnt...), r.bytes...), r.peer...)
	if r.rq != nil {
		mine = append(append(append(mine, r.rq.posted...), r.rq.completed...), r.rq.overlapped...)
	}
	all := w.gatherInt64(mine)
	out := make([]rankCounters, w.size)
	for i := range out {
		c := all[i*len(mine) : (i+1)*len(mine)]
		out[i] = rankCounters{cnt: c[:n], bytes: c[n : 2*n], peer: c[2*n : 3*n]}
		if r.rq != nil {
			q := c[3*n:]
			out[i].posted, out[i].completed, out[i].overlapped = q[:g], q[g:2*g], q[2*g:]
		}
	}
	return out
}

// transportNotes says how the ranks ran.
func (w *world) transportNotes() []string {
	send := "every send is MPI_Ssend (synchronous: it completes when the receive has started), as the language's send"
	if w.eager > 0 {
		send = fmt.Sprintf("sends of fewer than %d B are MPI_Send (the library may return before the receive), larger ones MPI_Ssend", w.eager)
	}
	notes := []string{fmt.Sprintf("ranks are MPI processes (%s); %s; collectives are the library's own", w.library, send)}
	if cores := hostCores(); w.local > cores {
		notes = append(notes, fmt.Sprintf("%d ranks share the %d cores of rank 0's node: a rank's time includes waiting for a core", w.local, cores))
	}
	return notes
}
