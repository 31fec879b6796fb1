package spmd

// kernelDesc is what a generated main.go tells the runtime about its
// kernel: names for reports, the shape of the ranks, the regions, the site
// table of the instrumented build and the constructor of a rank's program.
type kernelDesc struct {
	name    string   // kernel name, for reports only
	file    string   // source file, for reports only
	params  []Param  // every parameter with its value, P (Px, Py) included
	ranks   int      // P
	gridX   int      // Px on a grid, 0 otherwise
	gridY   int      // Py on a grid, 0 otherwise
	regions []string // region names; 0 is outside every region
	sites   []site   // every counted place, indexed by site number
	// requests are the request names of the kernel's isend and irecv, by
	// number (analyze's numbering); none for a kernel without requests.
	requests []string
	// memBytes is the memory every rank's arrays and the collectives'
	// buffers need together, checked against the machine before running.
	memBytes int64
	// newRank allocates the arrays of one rank.
	newRank func() rankProgram
}

// rankProgram is one rank's part of a generated kernel.
type rankProgram interface {
	// init fills the rank's arrays with deterministic values that keep
	// the arithmetic finite; it runs before every run of the body.
	init(rank int)
	// run executes the kernel body once.
	run(r *rank)
	// checksum sums every array element and the final values of the vars,
	// so that the compiler must keep the work.
	checksum() float64
}

// siteKind says what a site counts.
type siteKind uint8

const (
	siteExec        siteKind = iota // an assignment or var initialisation: ops and array refs
	siteCond                        // the evaluation of a data condition: ops and refs; a branch
	siteTaken                       // a data condition that was true (cond names its siteCond)
	siteIter                        // one iteration of a for or repeat
	siteHoist                       // a reference hoisted out of loops where it is invariant
	siteSend                        // one direction of a point-to-point statement
	siteRecv                        // the other direction
	siteColl                        // a collective
	siteBarrier                     // a barrier
	siteEntry                       // one start of a for or repeat (its statement runs)
	siteISend                       // an isend: a message of kind isend, a request posted
	siteIRecv                       // an irecv
	siteWait                        // a wait or waitall: not counted, it names the statement
	siteRegion                      // one start of a region (its clock reads)
	siteInnerRegion                 // the same start, counted in the enclosing region (InnerRegionEntries)
)

// site is one place in the kernel that the instrumented build counts.
// Executions are counted at run time; what one execution does (its
// operations and references) is fixed and recorded here by the generator,
// under the analyzer's rules.
type site struct {
	kind   siteKind
	region int    // index into kernelDesc.regions
	stmt   string // file:line:col of the statement
	// prob is set when the site lies inside a `prob` branch, where the
	// analyzer reports expected values rather than exact ones.
	//lint:ignore U1000 set by the site table of the generated main.go
	prob    bool
	pattern string    // the statement's operand pattern (CM-5 Table 1)
	times   int64     // executions per execution of the statement, when above 1 (var a, b = …)
	ops     []opTally // per execution
	madds   []opTally // multiply-add pairs per execution, by the add or sub they pair with
	refs    []siteRef // per execution (hoisted refs: per entry of the loop)
	peer    string    // p2p: the peer as written; collectives: the root ("" for none)
	// varies is set when a p2p peer depends on a loop index, so that the
	// analyzer reports it as peer_rank -2.
	varies  bool
	coll    string  // collectives: kind
	redop   string  // reduce, allreduce, scan: operator
	elem    string  // collectives: element type, "" for `SIZE bytes`
	assumed float64 // siteCond: the probability written after prob
	cond    int     // siteTaken: the siteCond it belongs to
}

// opTally is n operations of one kind and type.
type opTally struct {
	op  string // add sub mul div rem sqrt exp log sin cos abs min max cmp neg bit conv
	typ string // f64 f32 i64 i32 int
	n   int64
}

// siteRef is one array reference of a site.
type siteRef struct {
	array   string
	pos     string // file:line:col
	text    string // source form, a[i][j]
	store   bool
	size    int64  // element bytes
	hoisted string // the loop index it was hoisted out of, or ""
	pattern string // the operand pattern of its statement
}
