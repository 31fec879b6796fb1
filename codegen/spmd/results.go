package spmd

// The JSON a generated program prints: a Measurement in timed runs, an
// Executed in counting runs (-count). docs/codegen.md gives the schemas;
// package codegen decodes both with these types.

// Schemas of the two outputs.
const (
	MeasurementSchema = "perfc.measurement/v1"
	ExecutedSchema    = "perfc.executed/v1"
)

// Param is a parameter binding as reported.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Measurement is the timing of one program run: per region and in total,
// the minimum, median and maximum over the measurements of the time of one
// run of the kernel body on the slowest rank.
type Measurement struct {
	Schema       string   `json:"schema"`
	Kernel       string   `json:"kernel"`
	File         string   `json:"file"`
	Params       []Param  `json:"params"`
	Ranks        int      `json:"ranks"`
	Grid         []int    `json:"grid,omitempty"`
	Cores        int      `json:"cores"`
	Procs        int      `json:"gomaxprocs"`
	Tick1Us      float64  `json:"tick1_us"`  // timer resolution (PARKBENCH TICK1)
	WarmupUs     float64  `json:"warmup_us"` // the warm-up run
	Runs         int      `json:"runs_per_measurement"`
	Samples      int      `json:"measurements"`
	MinTimeS     float64  `json:"min_time_s"`
	Instrumented bool     `json:"instrumented"` // a counting build: times include counting
	Regions      []Timing `json:"regions"`      // "(outside regions)" first
	Total        Timing   `json:"total"`
	Checksum     string   `json:"checksum"`
	Finite       bool     `json:"finite"`
	Notes        []string `json:"notes,omitempty"`
	// Backend is the transport that ran the ranks: "goroutines" (one
	// process) or "mpi" (one MPI process per rank); empty in the output
	// of programs from before backends.
	Backend string `json:"backend,omitempty"`
	// PerRank is every rank's own time per run (the MPI backend reports
	// it; the tables above are those of the slowest rank).
	PerRank []RankTimes `json:"per_rank,omitempty"`
}

// RankTimes is one rank's time per run, per region and in total, over the
// same measurements.
type RankTimes struct {
	Rank    int      `json:"rank"`
	Regions []Timing `json:"regions"`
	Total   Timing   `json:"total"`
}

// Timing is one region's (or the total's) time per run, in microseconds.
type Timing struct {
	Name      string    `json:"name"`
	MinUs     float64   `json:"min_us"`
	MedianUs  float64   `json:"median_us"`
	MaxUs     float64   `json:"max_us"`
	SamplesUs []float64 `json:"samples_us"`
}

// Executed is what one run of the kernel did on every rank, counted by the
// instrumented build under the analyzer's categories and rules.
type Executed struct {
	Schema   string       `json:"schema"`
	Kernel   string       `json:"kernel"`
	File     string       `json:"file"`
	Params   []Param      `json:"params"`
	Ranks    int          `json:"ranks"`
	Grid     []int        `json:"grid,omitempty"`
	PerRank  []RankCounts `json:"per_rank"`
	Checksum string       `json:"checksum"`
	Finite   bool         `json:"finite"`
}

// RankCounts is one rank's counts, in total and per region.
type RankCounts struct {
	Rank     int            `json:"rank"`
	Total    Counts         `json:"total"`
	Regions  []RegionCounts `json:"regions"` // "(outside regions)" first
	Branches []Branch       `json:"branches,omitempty"`
}

// RegionCounts is the counts of one region.
type RegionCounts struct {
	Name   string `json:"name"`
	Counts Counts `json:"counts"`
}

// Counts mirrors analyze.Counts with executed (integer) counts.
type Counts struct {
	Iterations  int64        `json:"iterations"`
	Ops         []OpCount    `json:"ops"`
	Flop        int64        `json:"flop"`
	IntOps      int64        `json:"int_ops"`
	MaddPairs   int64        `json:"madd_pairs"`
	Madds       []OpCount    `json:"madds,omitempty"`
	Loads       int64        `json:"loads"`
	Stores      int64        `json:"stores"`
	LoadBytes   int64        `json:"load_bytes"`
	StoreBytes  int64        `json:"store_bytes"`
	Refs        []RefCount   `json:"refs,omitempty"`
	Messages    []Message    `json:"messages,omitempty"`
	Collectives []Collective `json:"collectives,omitempty"`
	Barriers    int64        `json:"barriers"`
	LoopEntries int64        `json:"loop_entries,omitempty"`
	// RegionEntries counts the starts of the region (analyze.Counts).
	RegionEntries int64 `json:"region_entries,omitempty"`
	// InnerRegionEntries counts the starts of regions directly inside
	// this one (analyze.Counts).
	InnerRegionEntries int64 `json:"inner_region_entries,omitempty"`
	// Requests counts the requests of the region's posts (isend, irecv).
	Requests RequestCounts `json:"requests,omitzero"`
}

// RequestCounts mirrors analyze.RequestCounts: requests posted, completed
// by a wait, and completed with computation between post and wait.
type RequestCounts struct {
	Posted     int64 `json:"posted"`
	Completed  int64 `json:"completed"`
	Overlapped int64 `json:"overlapped"`
}

// plus returns r + d.
func (r RequestCounts) plus(d RequestCounts) RequestCounts {
	return RequestCounts{Posted: r.Posted + d.Posted, Completed: r.Completed + d.Completed, Overlapped: r.Overlapped + d.Overlapped}
}

// OpCount is the count of one operation kind in one type, in statements
// of one operand pattern.
type OpCount struct {
	Op      string `json:"op"`
	Type    string `json:"type"`
	Pattern string `json:"pattern"`
	Count   int64  `json:"count"`
}

// RefCount is one array reference in the source and how often it ran.
type RefCount struct {
	Array     string `json:"array"`
	Pos       string `json:"pos"`
	Text      string `json:"text"`
	Store     bool   `json:"store"`
	ElemBytes int64  `json:"elem_bytes"`
	Count     int64  `json:"count"`
	Hoisted   string `json:"hoisted,omitempty"`
	Pattern   string `json:"pattern"`
}

// Message is one direction of one point-to-point statement.
type Message struct {
	Kind     string `json:"kind"` // send, recv, isend or irecv
	Stmt     string `json:"stmt"`
	Peer     string `json:"peer"`
	PeerRank int64  `json:"peer_rank"` // -2: the peer varies with a loop index
	Count    int64  `json:"count"`
	Bytes    int64  `json:"bytes"`
}

// Collective is one collective statement.
type Collective struct {
	Kind         string `json:"kind"`
	Op           string `json:"op,omitempty"`
	Elem         string `json:"elem,omitempty"`
	Stmt         string `json:"stmt"`
	Root         string `json:"root,omitempty"`
	Participants int    `json:"participants"`
	Count        int64  `json:"count"`
	Bytes        int64  `json:"bytes"`
}

// Branch is one data condition with its assumed probability and what the
// data did.
type Branch struct {
	Stmt      string  `json:"stmt"`
	Region    string  `json:"region"`
	Prob      float64 `json:"prob"`      // as written after prob
	Evaluated int64   `json:"evaluated"` // times the condition ran
	Taken     int64   `json:"taken"`     // times it was true
}

// Observed is the fraction of evaluations that were true (0 when the
// condition never ran).
func (b Branch) Observed() float64 {
	if b.Evaluated == 0 {
		return 0
	}
	return float64(b.Taken) / float64(b.Evaluated)
}
