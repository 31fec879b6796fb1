//go:build perfc_mpi

package spmd

// The MPI binding of the MPI transport: the few MPI calls the runtime
// makes, written as small C functions so that the Go side sees only ints,
// doubles and pointers (MPI's handles are pointers in Open MPI and ints in
// MPICH; here they never leave C). perfc gen --backend mpi replaces the
// pkg-config line below by the flags of `mpicc --showme` when pkg-config
// does not know Open MPI.
//
// Every function returns MPI's error code: the communicators return errors
// (MPI_ERRORS_RETURN) rather than abort, so that the runtime can name the
// statement that failed. Payload pointers are Go memory without Go
// pointers in it (arrays of numbers, byte buffers), which cgo allows.

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdint.h>
#include <string.h>

// perfc_comm carries the kernel's messages and collectives; MPI_COMM_WORLD
// carries the harness's own (barriers between runs, gathering the times),
// so that the two can never match each other.
static MPI_Comm perfc_comm = MPI_COMM_NULL;

static int perfc_init(int *rank, int *size, int *provided) {
	int argc = 0;
	char **argv = NULL;
	int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, provided);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &perfc_comm)) != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(perfc_comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

static int perfc_finalize(void) {
	MPI_Comm_free(&perfc_comm);
	return MPI_Finalize();
}

static void perfc_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static double perfc_wtime(void) { return MPI_Wtime(); }

static void perfc_error_string(int rc, char *buf) {
	int n = 0;
	if (MPI_Error_string(rc, buf, &n) != MPI_SUCCESS) n = 0;
	buf[n] = 0;
}

static int perfc_error_class(int rc) {
	int cls = rc;
	MPI_Error_class(rc, &cls);
	return cls;
}

static int perfc_is_truncate(int rc) { return perfc_error_class(rc) == MPI_ERR_TRUNCATE; }

static void perfc_library(char *buf) {
	int n = 0;
	MPI_Get_library_version(buf, &n);
	buf[n] = 0;
}

// perfc_local_size is the number of ranks on this rank's node (MPI_Comm_split_type).
static int perfc_local_size(int *n) {
	MPI_Comm node;
	int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_size(node, n);
	return MPI_Comm_free(&node);
}

static int perfc_tag_ub(void) {
	int *ub = NULL, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	return flag && ub ? *ub : 32767;
}

static MPI_Datatype perfc_type(int el) {
	switch (el) {
	case 1: return MPI_DOUBLE;
	case 2: return MPI_FLOAT;
	case 3: return MPI_INT64_T;
	case 4: return MPI_INT32_T;
	}
	return MPI_UNSIGNED_CHAR;
}

static MPI_Op perfc_op(int op) {
	switch (op) {
	case 1: return MPI_PROD;
	case 2: return MPI_MAX;
	case 3: return MPI_MIN;
	case 4: return MPI_BAND;
	case 5: return MPI_BOR;
	case 6: return MPI_BXOR;
	}
	return MPI_SUM;
}

// perfc_send sends n bytes: synchronously (MPI_Ssend, complete when the
// receive has started) unless sync is 0 (MPI_Send, which the library may
// buffer). The tag is the statement's site, which the receiver reads
// back to name it in errors.
static int perfc_send(void *buf, int n, int to, int tag, int sync) {
	if (sync) return MPI_Ssend(buf, n, MPI_BYTE, to, tag, perfc_comm);
	return MPI_Send(buf, n, MPI_BYTE, to, tag, perfc_comm);
}

// perfc_recv receives up to n bytes from `from` with any tag (the order
// per pair is MPI's), and returns the sender's tag and the bytes that came.
static int perfc_recv(void *buf, int n, int from, int *tag, int *count) {
	MPI_Status st;
	int rc = MPI_Recv(buf, n, MPI_BYTE, from, MPI_ANY_TAG, perfc_comm, &st);
	*tag = st.MPI_TAG;
	MPI_Get_count(&st, MPI_BYTE, count);
	return rc;
}

// perfc_sendrecv sends and receives at once; a peer of -1 is none
// (MPI_PROC_NULL). The send is synchronous (MPI_Issend) unless sync is 0.
static int perfc_sendrecv(void *sbuf, int sn, int to, int tag, int sync,
                          void *rbuf, int rn, int from, int *rtag, int *rcount) {
	MPI_Request req[2];
	MPI_Status st[2];
	int rc;
	if (to < 0) to = MPI_PROC_NULL;
	if (from < 0) from = MPI_PROC_NULL;
	rc = MPI_Irecv(rbuf, rn, MPI_BYTE, from, MPI_ANY_TAG, perfc_comm, &req[1]);
	if (rc != MPI_SUCCESS) return rc;
	if (sync) rc = MPI_Issend(sbuf, sn, MPI_BYTE, to, tag, perfc_comm, &req[0]);
	else rc = MPI_Isend(sbuf, sn, MPI_BYTE, to, tag, perfc_comm, &req[0]);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Waitall(2, req, st);
	if (rc == MPI_ERR_IN_STATUS) rc = st[1].MPI_ERROR != MPI_SUCCESS ? st[1].MPI_ERROR : st[0].MPI_ERROR;
	*rtag = st[1].MPI_TAG;
	MPI_Get_count(&st[1], MPI_BYTE, rcount);
	return rc;
}

static int perfc_bcast(void *buf, int n, int root) { return MPI_Bcast(buf, n, MPI_BYTE, root, perfc_comm); }

static int perfc_reduce(void *buf, int count, int el, int op, int root, int me) {
	if (me == root) return MPI_Reduce(MPI_IN_PLACE, buf, count, perfc_type(el), perfc_op(op), root, perfc_comm);
	return MPI_Reduce(buf, NULL, count, perfc_type(el), perfc_op(op), root, perfc_comm);
}

static int perfc_allreduce(void *buf, int count, int el, int op) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, count, perfc_type(el), perfc_op(op), perfc_comm);
}

static int perfc_scan(void *buf, int count, int el, int op) {
	return MPI_Scan(MPI_IN_PLACE, buf, count, perfc_type(el), perfc_op(op), perfc_comm);
}

static int perfc_scatter(void *all, void *buf, int n, int root) {
	return MPI_Scatter(all, n, MPI_BYTE, buf, n, MPI_BYTE, root, perfc_comm);
}

static int perfc_gather(void *buf, void *all, int n, int root) {
	return MPI_Gather(buf, n, MPI_BYTE, all, n, MPI_BYTE, root, perfc_comm);
}

static int perfc_allgather(void *buf, void *all, int n) {
	return MPI_Allgather(buf, n, MPI_BYTE, all, n, MPI_BYTE, perfc_comm);
}

static int perfc_alltoall(void *out, void *in, int n) {
	return MPI_Alltoall(out, n, MPI_BYTE, in, n, MPI_BYTE, perfc_comm);
}

static int perfc_barrier(void) { return MPI_Barrier(perfc_comm); }

// Non-blocking messages: a request's handle lives in Go memory (an array
// of MPI_Request, which holds no Go pointers).
static int perfc_isend(void *buf, int n, int to, int tag, int sync, MPI_Request *req) {
	if (sync) return MPI_Issend(buf, n, MPI_BYTE, to, tag, perfc_comm, req);
	return MPI_Isend(buf, n, MPI_BYTE, to, tag, perfc_comm, req);
}

static int perfc_irecv(void *buf, int n, int from, MPI_Request *req) {
	return MPI_Irecv(buf, n, MPI_BYTE, from, MPI_ANY_TAG, perfc_comm, req);
}

// perfc_waitall completes n requests and returns, for each, the sender's
// tag, the bytes received and its error.
static int perfc_waitall(int n, MPI_Request *reqs, int *tags, int *counts, int *errs) {
	MPI_Status st[n];
	int rc = MPI_Waitall(n, reqs, st);
	for (int i = 0; i < n; i++) {
		tags[i] = st[i].MPI_TAG;
		counts[i] = 0;
		MPI_Get_count(&st[i], MPI_BYTE, &counts[i]);
		errs[i] = rc == MPI_ERR_IN_STATUS ? st[i].MPI_ERROR : rc;
	}
	return rc;
}

// The harness's own calls, on MPI_COMM_WORLD.
static int perfc_world_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

static int perfc_world_allgather(void *mine, void *all, int n) {
	return MPI_Allgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, MPI_COMM_WORLD);
}
*/
import "C"

import (
	"math"
	"unsafe"
)

// mpiError is a failed MPI call.
type mpiError struct {
	call string
	rc   C.int
}

func (e mpiError) Error() string {
	buf := make([]byte, C.MPI_MAX_ERROR_STRING+1)
	C.perfc_error_string(e.rc, (*C.char)(unsafe.Pointer(&buf[0])))
	return e.call + ": " + C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
}

// check turns an MPI return code into an error.
func check(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	return mpiError{call: call, rc: rc}
}

// isTruncate reports whether err is MPI_ERR_TRUNCATE: a message longer
// than the receive buffer.
func isTruncate(err error) bool {
	e, ok := err.(mpiError)
	return ok && C.perfc_is_truncate(e.rc) != 0
}

// ptr is the address of a payload's bytes, nil for none.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// cint is a byte or element count as MPI's int; counts beyond it are
// refused by the caller (fitsInt).
func cint(n int) C.int { return C.int(n) }

// fitsInt reports whether n bytes can be one MPI count.
func fitsInt(n int) bool { return n <= math.MaxInt32 }

// mpiInit starts MPI and returns this process's rank and the world's size.
func mpiInit() (rank, size int, err error) {
	var r, s, provided C.int
	if err := check("MPI_Init_thread", C.perfc_init(&r, &s, &provided)); err != nil {
		return 0, 0, err
	}
	return int(r), int(s), nil
}

func mpiFinalize() error    { return check("MPI_Finalize", C.perfc_finalize()) }
func mpiAbort(code int)     { C.perfc_abort(C.int(code)) }
func mpiWtime() float64     { return float64(C.perfc_wtime()) }
func mpiTagUpperBound() int { return int(C.perfc_tag_ub()) }

// mpiLibrary is MPI_Get_library_version's first line.
func mpiLibrary() string {
	buf := make([]byte, C.MPI_MAX_LIBRARY_VERSION_STRING+1)
	C.perfc_library((*C.char)(unsafe.Pointer(&buf[0])))
	s := C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
	for i, c := range s {
		if c == '\n' || c == ',' {
			return s[:i]
		}
	}
	return s
}

// mpiLocalSize is the number of ranks on this rank's node.
func mpiLocalSize() (int, error) {
	var n C.int
	err := check("MPI_Comm_split_type", C.perfc_local_size(&n))
	return int(n), err
}

func mpiSend(buf []byte, to, tag int, sync bool) error {
	s := C.int(0)
	if sync {
		s = 1
	}
	return check("MPI_Ssend", C.perfc_send(ptr(buf), cint(len(buf)), C.int(to), C.int(tag), s))
}

func mpiRecv(buf []byte, from int) (tag, count int, err error) {
	var t, n C.int
	err = check("MPI_Recv", C.perfc_recv(ptr(buf), cint(len(buf)), C.int(from), &t, &n))
	return int(t), int(n), err
}

func mpiSendrecv(sbuf []byte, to, tag int, sync bool, rbuf []byte, from int) (rtag, count int, err error) {
	var t, n C.int
	s := C.int(0)
	if sync {
		s = 1
	}
	err = check("MPI_Waitall of a sendrecv", C.perfc_sendrecv(ptr(sbuf), cint(len(sbuf)), C.int(to), C.int(tag), s,
		ptr(rbuf), cint(len(rbuf)), C.int(from), &t, &n))
	return int(t), int(n), err
}

func mpiBcast(buf []byte, root int) error {
	return check("MPI_Bcast", C.perfc_bcast(ptr(buf), cint(len(buf)), C.int(root)))
}

func mpiReduce(buf []byte, el elemKind, op redOp, root, me int) error {
	return check("MPI_Reduce", C.perfc_reduce(ptr(buf), cint(len(buf)/el.size()), C.int(el), C.int(op), C.int(root), C.int(me)))
}

func mpiAllreduce(buf []byte, el elemKind, op redOp) error {
	return check("MPI_Allreduce", C.perfc_allreduce(ptr(buf), cint(len(buf)/el.size()), C.int(el), C.int(op)))
}

func mpiScan(buf []byte, el elemKind, op redOp) error {
	return check("MPI_Scan", C.perfc_scan(ptr(buf), cint(len(buf)/el.size()), C.int(el), C.int(op)))
}

func mpiScatter(all, buf []byte, root int) error {
	return check("MPI_Scatter", C.perfc_scatter(ptr(all), ptr(buf), cint(len(buf)), C.int(root)))
}

func mpiGather(buf, all []byte, root int) error {
	return check("MPI_Gather", C.perfc_gather(ptr(buf), ptr(all), cint(len(buf)), C.int(root)))
}

func mpiAllgather(buf, all []byte) error {
	return check("MPI_Allgather", C.perfc_allgather(ptr(buf), ptr(all), cint(len(buf))))
}

func mpiAlltoall(out, in []byte, n int) error {
	return check("MPI_Alltoall", C.perfc_alltoall(ptr(out), ptr(in), cint(n)))
}

func mpiBarrier() error { return check("MPI_Barrier", C.perfc_barrier()) }

func mpiWorldBarrier() error { return check("MPI_Barrier", C.perfc_world_barrier()) }

// mpiWorldAllgather gathers every rank's mine (the same length on every
// rank) into all, in rank order.
func mpiWorldAllgather(mine, all []byte) error {
	return check("MPI_Allgather", C.perfc_world_allgather(ptr(mine), ptr(all), cint(len(mine))))
}

// mpiRequests are the MPI handles of a rank's requests, by number, and
// what a wait needs: the handles it waits for and their statuses.
type mpiRequests struct {
	handles            []C.MPI_Request
	sel                []C.MPI_Request
	tags, counts, errs []C.int
}

// newMPIRequests makes the handles of n requests.
func newMPIRequests(n int) *mpiRequests {
	return &mpiRequests{handles: make([]C.MPI_Request, n), sel: make([]C.MPI_Request, 0, n),
		tags: make([]C.int, n), counts: make([]C.int, n), errs: make([]C.int, n)}
}

// isend posts request q's send (MPI_Issend, or MPI_Isend when not sync).
// buf must stay where it is until the wait (the caller pins it).
func (m *mpiRequests) isend(q int, buf []byte, to, tag int, sync bool) error {
	s := C.int(0)
	if sync {
		s = 1
	}
	return check("MPI_Issend", C.perfc_isend(ptr(buf), cint(len(buf)), C.int(to), C.int(tag), s, &m.handles[q]))
}

// irecv posts request q's receive.
func (m *mpiRequests) irecv(q int, buf []byte, from int) error {
	return check("MPI_Irecv", C.perfc_irecv(ptr(buf), cint(len(buf)), C.int(from), &m.handles[q]))
}

// waitall completes the requests qs (MPI_Waitall); status i is that of
// qs[i]: the sender's tag, the bytes received, the request's error.
func (m *mpiRequests) waitall(qs []int) (status func(i int) (tag, count int, err error), err error) {
	m.sel = m.sel[:0]
	for _, q := range qs {
		m.sel = append(m.sel, m.handles[q])
	}
	rc := C.perfc_waitall(C.int(len(qs)), unsafe.SliceData(m.sel), unsafe.SliceData(m.tags), unsafe.SliceData(m.counts), unsafe.SliceData(m.errs))
	return func(i int) (int, int, error) {
		return int(m.tags[i]), int(m.counts[i]), check("MPI_Waitall", m.errs[i])
	}, check("MPI_Waitall", rc)
}
