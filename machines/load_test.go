package machines

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"perfc/lang"
)

// header is the start of every test table: three lines.
const header = "name: m\ndescription: test\nsource: test\n"

// TestLoadErrors checks that bad tables give every problem, each with its
// file:line:col and what to do. Each case is a table after the three-line
// header; want lists the errors in order.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"a bandwidth where a time belongs", `
messages:
  source: s
  model: hockney
  t0: 50MB/s
  rinf: 50MB/s
`, []string{`m.yaml:8:7: 't0' needs a time, got a bandwidth (50MB/s)`}},
		{"missing unit", `
messages: {source: s, model: hockney, t0: 54, rinf: 50MB/s}
`, []string{`m.yaml:5:43: 't0' needs a time, got a number (54)`}},
		{"unknown key with a suggestion", `
messages:
  source: s
  modle: hockney
`, []string{
			`m.yaml:6:3: messages needs 'model'`,
			`m.yaml:7:3: unknown key 'modle' in messages: did you mean 'model'? (known: t0, pi0, rinf, per_byte, nhalf, source, model, ranges, L, o, g, G, time, network, eager_limit, startup, by_elem, exchange, sendrecv, sharing, same_core, local, wakeup, noise, shared, requests)`,
		}},
		{"unknown top-level key", `
machine: x
`, []string{`m.yaml:5:1: unknown key 'machine' in the machine table (known: schema, name, description, source, conventions, missing, ranks, cores, core_switch, host, params, compute, memory, messages, collectives, cluster, disk, results)`}},
		{"missing source", `
compute:
  peak: 5Mflop/s
messages:
  model: expr
  time: 1us
`, []string{
			`m.yaml:6:9: 'peak' has no source: add source: (paper, table or equation, line; or benchmark and date) to it or to its section`,
			`m.yaml:8:3: messages has no source: add source: (paper, table or equation, line)`,
			`m.yaml:9:9: 'time' has no source: add source: to it or to its section`,
		}},
		{"negative time", `
disk:
  source: s
  read: {startup: -1ms, bandwidth: 1MB/s}
  write: {startup: 1ms, bandwidth: 0MB/s}
`, []string{
			`m.yaml:7:19: 'startup' is a negative time (-1ms)`,
			`m.yaml:8:36: 'bandwidth' must be greater than zero (0MB/s)`,
		}},
		{"a cost that goes negative", `
collectives:
  source: s
  entries:
    - {kind: bcast, time: 10us - 1us/B * bytes}
`, []string{`m.yaml:8:27: 'time' is a negative time (-1.048566s) at bytes=1.048576e+06, P=1024`}},
		{"after_barrier: with ops:", `
collectives:
  source: s
  entries:
    - {kind: allreduce, ops: {sum: 1us}, after_barrier: 2us}
`, []string{`m.yaml:8:42: after_barrier: goes with time:, not with ops: (give the operators an entry each)`}},
		{"unknown variable in an expression", `
params:
  T_s: {value: 5us, source: s}
collectives:
  source: s
  entries:
    - {kind: bcast, time: "T_s + level * 1us"}
`, []string{`m.yaml:10:34: 'time': variable level is not available here (available: bytes, P)`}},
		{"unknown name in an expression", `
collectives:
  source: s
  entries:
    - {kind: bcast, time: T_s + bytes / bw}
`, []string{`m.yaml:8:27: 'time': unknown name T_s: not a variable available here (bytes, P) nor a parameter (none)`}},
		{"dimensions that do not add", `
messages:
  source: s
  model: expr
  time: 1us + bytes
`, []string{`m.yaml:8:13: 'time': cannot add a time and a size in bytes`}},
		{"an ambiguous unit", `
memory:
  source: s
  caches:
    - {name: L1, size: 64KB}
`, []string{`m.yaml:8:26: 'size': unit 'KB' is ambiguous: write KiB (1024) or kB (1000) (for a product write 64*KB)`}},
		{"a YAML syntax error", `
messages: [oops
`, []string{`m.yaml:6:1: YAML: did not find expected ',' or ']'`}},
		{"a duplicate key", `
description: again
`, []string{`m.yaml:5:1: duplicate key 'description' in the machine table (first at line 2)`}},
		{"parameters: reserved, later, wrong shape", `
params:
  bytes: {value: 1, source: s}
  a: {value: b, source: s}
  b: {value: 1us, source: s}
  c: 5us
  d: {value: -1, source: s}
`, []string{
			`m.yaml:6:3: parameter name 'bytes' is reserved (a variable, a function or an override switch)`,
			`m.yaml:7:14: 'a': unknown name b: not a variable available here (none) nor a parameter (none)`,
			`m.yaml:9:6: parameter c must be a mapping (key: value lines), got '5us'`,
			`m.yaml:10:14: 'd' must not be negative (-1)`,
		}},
		{"inconsistent and underdetermined Hockney laws", `
messages:
  source: s
  model: hockney
  ranges:
    - {below: 100B, t0: 54us, rinf: 50MB/s, nhalf: 5000B}
    - {below: 50B, t0: 54us}
    - {t0: 1us, pi0: 1MHz, per_byte: 1ns/B, L: 1us}
`, []string{
			`m.yaml:9:52: 'nhalf' disagrees by 46.0 % with the value the other parameters give (2700): check the table`,
			`m.yaml:10:7: a Hockney law needs two of t0 (or pi0), rinf (or per_byte) and nhalf`,
			`m.yaml:10:15: ranges must be in increasing order of below`,
			`m.yaml:11:45: unknown key 'L' in a message range (known: t0, pi0, rinf, per_byte, nhalf, below, fitted_to, source)`,
		}},
		{"cache levels and bottlenecks without names", `
memory:
  source: s
  caches:
    - {size: 1KiB}
    - {size: 2KiB}
  bottleneck:
    - {rhat: 1Mflop/s, fhalf: 1flop/mref}
    - {rhat: 1Mflop/s, fhalf: 1flop/mref}
`, []string{
			`m.yaml:8:7: a cache level needs 'name'`,
			`m.yaml:9:7: a cache level needs 'name'`,
			`m.yaml:11:7: a bottleneck entry needs 'name'`,
			`m.yaml:12:7: a bottleneck entry needs 'name'`,
		}},
		{"fitted_to outside its range's gap", `
messages:
  source: s
  model: hockney
  ranges:
    - {below: 1KiB, fitted_to: 1KiB, t0: 1us, rinf: 1GB/s}
    - {below: 1MiB, fitted_to: 512B, t0: 1us, rinf: 1GB/s}
    - {t0: 1us, rinf: 1GB/s, fitted_to: 2MiB}
`, []string{
			`m.yaml:9:32: fitted_to (1KiB) must be shorter than the range's below (1KiB): remove it when the range's points reach below`,
			`m.yaml:10:32: fitted_to (512B) must not be shorter than the previous range's below (1KiB), where this range starts`,
			`m.yaml:11:41: fitted_to belongs to a range that another follows (the longest length its law was fitted on, where the line to the next range's law at below starts): remove it from the last range`,
		}},
		{"keys of another model", `
messages:
  source: s
  model: hockney
  t0: 1us
  rinf: 1MB/s
  L: 2us
  time: 1us
`, []string{
			`m.yaml:10:3: 'L' belongs to model loggp, not hockney`,
			`m.yaml:11:3: 'time' belongs to model expr, not hockney`,
		}},
		{"a measured table out of order", `
messages:
  source: s
  model: expr
  time:
    x: bytes
    points: [[0B, 1us], [0B, 2us]]
`, []string{`m.yaml:10:25: points of 'time' must have strictly increasing bytes`}},
		{"a measured table that extrapolates below zero", `
messages:
  source: s
  model: expr
  time:
    x: bytes
    points: [[1KiB, 100us], [2KiB, 50us]]
`, []string{`m.yaml:9:5: 'time' is a negative time (-51.05ms) at bytes=1.048576e+06 (the measured table is extended linearly beyond its points)`}},
		{"a measured table with bad points", `
messages:
  source: s
  model: expr
  time:
    x: bytes
    points: [[0B, 1us], [1KiB, 3s, 4s], [1us, 1us]]
`, []string{
			`m.yaml:10:25: a point must be [x, y], such as [1KiB, 204.5us]`,
			`m.yaml:10:42: 'bytes' needs a size in bytes, got a time (1us)`,
		}},
		{"grids of measured points out of order, short, over one variable twice", `
collectives:
  source: s
  entries:
    - kind: bcast
      time: {x: bytes, by: P, points: [[2, 0B, 1us], [2, 0B, 2us], [4, 8B, 3us], [2, 8B, 1us], [4, 8B]]}
    - kind: reduce
      time: {x: bytes, by: P, points: [[2, 0B, 1us], [2, 8B, 2us]]}
    - kind: scan
      time: {x: bytes, by: bytes, points: [[2, 0B, 1us], [4, 8B, 2us]]}
`, []string{
			`m.yaml:9:54: points of 'time' must have strictly increasing bytes within one P`,
			`m.yaml:9:82: points of 'time' must come in rows of increasing P (this P=2 follows 4)`,
			`m.yaml:9:96: a point of a table with by: must be [P, bytes, time], such as [4, 1KiB, 204.5us]`,
			`m.yaml:11:39: the table 'time' over bytes and P needs rows of at least two values of P; with one, leave out by:`,
			`m.yaml:13:28: the table 'time' is over bytes twice: by: must name another variable than x:`,
		}},
		{"a grid whose rows extend below zero", `
collectives:
  source: s
  entries:
    - kind: bcast
      time: {x: bytes, by: P, points: [[2, 0B, 1us], [2, 8B, 1us], [4, 0B, 8us]]}
`, []string{`m.yaml:9:13: 'time' is a negative time (-2.5us) at bytes=0, P=1 (the measured table is extended linearly beyond its points)`}},
		{"a measured table of one point over a wrong variable", `
messages:
  source: s
  model: expr
  time: {x: P, points: [[1, 1us]]}
  by_elem:
    f32: {model: expr, time: {x: level, points: [[1, 1us]]}}
`, []string{
			`m.yaml:8:13: the table 'time' must be over one of the variables bytes, level, got 'P'`,
			`m.yaml:10:49: the table 'time' needs at least two points`,
		}},
		{"collective entries", `
collectives:
  source: s
  entries:
    - {kind: gossip, time: 1us}
    - {kind: reduce, time: 1us, ops: {sum: 2us}}
    - {kind: reduce, elem: f128, op: mean, time: 1us}
    - {kind: barrier, time: 1us}
    - {kind: barrier, time: 2us}
  alpha: 1us
`, []string{
			`m.yaml:8:14: unknown collective 'gossip' (want bcast, reduce, allreduce, scatter, gather, allgather, alltoall, scan, segscan, barrier)`,
			`m.yaml:9:7: a collective entry needs either time: or ops: (a time per operator)`,
			`m.yaml:10:28: unknown element type 'f128' (want f64, f32, i64, i32, u64, u32; the CM-5's short, long, single and double are i32, i64, f32, f64)`,
			`m.yaml:10:38: unknown operator 'mean' (want sum, prod, max, min, and, or, xor)`,
			`m.yaml:12:7: duplicate collective entry for barrier`,
			`m.yaml:13:3: 'alpha' is a parameter of algorithm: mpich`,
		}},
		{"caches", `
memory:
  source: s
  compose: overlap
  caches:
    - {name: L1, size: 100B, line: 64B, assoc: two}
    - {name: L1, size: 1000.5B}
`, []string{
			`m.yaml:7:12: 'compose' must be sum, max or ecm, got 'overlap'`,
			`m.yaml:9:24: cache L1: size 100B is not a multiple of the line 64B`,
			`m.yaml:9:48: assoc must be a whole number of ways or full, got 'two'`,
			`m.yaml:10:14: duplicate cache level 'L1'`,
			`m.yaml:10:24: 'size' must be a whole number (1000.5B)`,
		}},
		{"ops and fallbacks", `
compute:
  source: s
  ops:
    entries:
      - {pattern: a&x&y, op: add, f64: 1us}
      - {pattern: a&b&c, op: fma, f64: 1us}
    fallback:
      - {op: sqrt, as: exp}
`, []string{
			`m.yaml:9:19: unknown operand pattern 'a&x&y' (want a&s&s, a&b&c or a&b&s; leave pattern out for every pattern)`,
			`m.yaml:10:30: unknown operation 'fma' (want add, sub, mul, div, madd, cmp, sqrt, exp, log, sin, cos, abs, min, max)`,
			`m.yaml:12:24: fallback 'sqrt' must name an operation the table measures, not 'exp'`,
		}},
		{"modern-core keys", `
host: {cpu: [a, b], cores: 2}
compute:
  source: s
  loop: {iteration: 1GB/s, entry: -1ns}
  access: {source: s}
  ops:
    entries:
      - {op: add, f64: 1ns}
      - {op: add, f64: 2ns}
      - {pattern: a&b&c, op: add, f64: 1ns}
  latency:
    entries:
      - {op: add, f64: 4, pattern: ""}
      - {op: fma, f64: 1ns}
    fallback: []
    window: 2GB/s
memory:
  source: s
  write_allocate: maybe
`, []string{
			`m.yaml:5:13: host 'cpu' must be a plain value such as "AMD EPYC 9B45" or 2, got a list`,
			`m.yaml:8:21: 'iteration' needs a time, got a bandwidth (1GB/s)`,
			`m.yaml:8:35: 'entry' is a negative time (-1ns)`,
			`m.yaml:9:11: access needs load or store`,
			`m.yaml:13:19: duplicate ops for add (every pattern) f64`,
			`m.yaml:17:24: 'f64' needs a time, got a number (4)`,
			`m.yaml:17:36: unknown operand pattern '' (want a&s&s, a&b&c or a&b&s; leave pattern out for every pattern)`,
			`m.yaml:18:14: unknown operation 'fma' (want add, sub, mul, div, madd, cmp, sqrt, exp, log, sin, cos, abs, min, max)`,
			`m.yaml:19:5: unknown key 'fallback' in latency (known: source, window, entries)`,
			`m.yaml:20:13: 'window' needs a time, got a bandwidth (2GB/s)`,
			`m.yaml:23:19: 'write_allocate' must be true or false, got 'maybe'`,
		}},
		{"a JSON table's schema", `
schema: perfc.machine/v2
`, []string{`m.yaml:5:9: schema must be perfc.machine/v1 (the JSON form of a table, perfc machines NAME -o json), got 'perfc.machine/v2'`}},
		{"a cluster without messages", `
cluster:
  source: s
  node: {sx: 2, sy: 2.5}
  inter: {model: expr, time: 1us}
`, []string{
			`m.yaml:6:3: a cluster needs messages: (the cost of a message inside a node)`,
			`m.yaml:6:3: cluster needs 'links'`,
			`m.yaml:7:21: 'sy' must be a whole number (2.5)`,
		}},
		{"not a mapping", `
compute: [1, 2]
`, []string{`m.yaml:5:10: compute must be a mapping (key: value lines), got a list`}},
	}
	for _, tt := range tests {
		_, err := Parse("m.yaml", []byte(header+"# "+tt.name+"\n"+strings.TrimPrefix(tt.body, "\n")))
		if err == nil {
			t.Errorf("%s: no error, want:\n%s", tt.name, strings.Join(tt.want, "\n"))
			continue
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: %T is not an ErrorList", tt.name, err)
			continue
		}
		var got []string
		for _, e := range list {
			got = append(got, e.Error())
		}
		if got, want := strings.Join(got, "\n"), strings.Join(tt.want, "\n"); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, want)
		}
	}
}

// TestLoadErrorCaret checks that a table's error shows its line of the
// table and a caret under the column, as the checker's errors do, and that
// an override's error, which has no line, shows none.
func TestLoadErrorCaret(t *testing.T) {
	table := header + "messages: {source: s, model: hockney, t0: 54, rinf: 50MB/s}\n"
	_, err := Parse("m.yaml", []byte(table))
	var se *lang.SourceError
	if !errors.As(err, &se) {
		t.Fatalf("Parse error %T, want a *lang.SourceError", err)
	}
	want := "m.yaml:4:43: 't0' needs a time, got a number (54)\n" +
		"    messages: {source: s, model: hockney, t0: 54, rinf: 50MB/s}\n" +
		"                                              ^"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	_, err = override(mustBuiltin(t, "sp2"), "bw=5us")
	if want := "-M bw=5us: 'bw' needs a bandwidth, got a time (5us)"; err == nil || err.Error() != want {
		t.Errorf("override error %v, want %s", err, want)
	}
}

// TestLoadRequiredFields checks an empty document and a table without its
// three required fields.
func TestLoadRequiredFields(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "m.yaml: YAML: "},
		{"name: Bad Name\n", `m.yaml:1:7: machine name 'Bad Name' must be lower case letters, digits, '.', '_' or '-'`},
		{"messages: {}\n", `m.yaml:1:1: the machine table needs 'name'`},
	}
	for _, tt := range tests {
		_, err := Parse("m.yaml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tt.text, err, tt.want)
		}
	}
}

// TestLoadMissingFile checks that Load names the file it cannot read.
func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/no-such-machine.yaml")
	if err == nil || !strings.Contains(err.Error(), "testdata/no-such-machine.yaml") {
		t.Errorf("Load of a missing file = %v", err)
	}
}

// TestParseCopiesInput checks that a machine does not change when the
// caller reuses its buffer, even when an override rebuilds it later.
func TestParseCopiesInput(t *testing.T) {
	data := []byte(header + "params:\n  x: {value: 1us, source: s}\n")
	m, err := Parse("m.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, strings.Repeat("#", len(data)))
	if m, err = override(m, "x=2us"); err != nil {
		t.Fatalf("override after the buffer changed: %v", err)
	}
	if p, _ := m.Param("x"); p.Value != 2e-6 {
		t.Errorf("x = %v", p)
	}
}

// laughs returns a "billion laughs" list: levels nested lists, each
// holding ten aliases of the one before, 11·10^levels nodes expanded.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("missing:\n  - &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  - &a%d [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// TestParseRefusesBlowUp checks that inputs built to exhaust memory are
// refused with the place and the limit: aliases that expand to billions of
// nodes, and a table over 1 MiB. A table that shares a value through an
// alias still loads.
func TestParseRefusesBlowUp(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		// a1..a3 repeat 12,330 nodes; the 8th *a3 of a4 (line 9, column
		// 45) takes the total over 100,000.
		{"billion laughs", header + laughs(9), "m.yaml:9:45: YAML: the alias *a3 takes the aliases' repeated nodes over 100000 (the limit)"},
		{"a recursive alias", header + "missing: &a [x, *a]\n", "m.yaml:4:"},
		{"over 1 MiB", header /* 39 bytes */ + "# " + strings.Repeat("x", 1<<20) + "\n", "m.yaml: the table is 1048618 bytes; perfc reads at most 1 MiB (1048576 bytes) of a machine table"},
		{"one shared value", header + "params:\n  x: &v {value: 1us, source: s}\n  y: *v\n", ""},
	}
	for _, tt := range tests {
		_, err := Parse("m.yaml", []byte(tt.text))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestLoadEndlessFile checks that Load stops reading at the limit.
func TestLoadEndlessFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	_, err := Load("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: the input is more than 1 MiB") {
		t.Errorf("Load(/dev/zero) = %v", err)
	}
}
