//go:build perfc_mpi

package spmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// bodyProgram is a rank program whose body is a test function.
type bodyProgram struct{ body func(r *rank) }

func (p bodyProgram) init(int)          {}
func (p bodyProgram) run(r *rank)       { p.body(r) }
func (p bodyProgram) checksum() float64 { return 1 }

// TestMPIProgram runs the MPI harness in this test process, a singleton
// MPI world of one rank (go test -tags perfc_mpi ./codegen/spmd, where
// Open MPI is installed; .ci/run does): the collectives on one rank, a
// message to none, the measurement with every rank's times. MPI starts
// once per process, so one runProgram call does it all.
func TestMPIProgram(t *testing.T) {
	sites := []site{
		{kind: siteColl, region: 1, stmt: "t.spmd:3:5", coll: "allreduce"},
		{kind: siteColl, region: 1, stmt: "t.spmd:4:5", coll: "bcast"},
		{kind: siteBarrier, region: 1, stmt: "t.spmd:5:5"},
		{kind: siteSend, region: 1, stmt: "t.spmd:6:5"},
		{kind: siteColl, region: 1, stmt: "t.spmd:7:5", coll: "alltoall"},
	}
	var got []float64
	k := &kernelDesc{name: "t", file: "t.spmd", params: []Param{{Name: "P", Value: "1"}}, ranks: 1,
		regions: []string{"(outside regions)", "r"}, memBytes: 1000, sites: sites,
		newRank: func() rankProgram {
			return bodyProgram{func(r *rank) {
				r.enter(1)
				x := []float64{2, 3}
				b := unsafeBytes(x)
				r.allreduce(0, redSum, elF64, b)
				r.bcast(1, 0, b)
				r.barrier(2)
				r.send(3, -1, b) // to none: nothing
				r.alltoall(4, elF64, b)
				r.leave()
				got = x
			}}
		}}
	var out, errOut bytes.Buffer
	code := runProgram(k, []string{"-json", "-reps", "2", "-samples", "3"}, &out, &errOut, func(int) {})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var m Measurement
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err, out.String())
	}
	if m.Backend != "mpi" || len(m.PerRank) != 1 || len(m.Regions) != 2 || m.Tick1Us <= 0 || m.Regions[1].MedianUs <= 0 {
		t.Errorf("measurement %+v", m)
	}
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("the collectives on one rank changed the data: %v", got)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "ranks are MPI processes") {
		t.Errorf("notes %q", m.Notes)
	}
}
