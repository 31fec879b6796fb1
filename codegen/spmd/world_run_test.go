//go:build !perfc_mpi

package spmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestProgram runs the harness as a generated main does.
func TestProgram(t *testing.T) {
	k := &kernelDesc{name: "t", file: "t.spmd", params: []Param{{Name: "P", Value: "3"}}, ranks: 3,
		regions: []string{"(outside regions)", "r"}, memBytes: 1000, sites: []site{{kind: siteBarrier, region: 1, stmt: "t.spmd:3:5"}},
		newRank: func() rankProgram {
			return bodyProgram{func(r *rank) {
				r.enter(1)
				r.barrier(0)
				r.leave()
			}}
		}}
	tests := []struct {
		args       []string
		code       int
		out, error string
	}{
		{args: []string{"-reps", "2", "-samples", "3"}, out: "measured times of kernel t (t.spmd): P = 3; 3 ranks"},
		{args: []string{"-json", "-reps", "1", "-samples", "1"}, out: `"schema": "perfc.measurement/v1"`},
		{args: []string{"-mem-limit", "10"}, code: 1, error: "error: kernel t: the kernel needs 1000 B of memory"},
		{args: []string{"-reps", "-1"}, code: 2, error: "-reps -1: give at least 1 run per measurement"},
		{args: []string{"-min-time", "0s"}, code: 2, error: "-min-time 0s: give a positive duration"},
		{args: []string{"-nosuch"}, code: 2, error: "flag provided but not defined: -nosuch"},
	}
	if !counting {
		tests = append(tests, struct {
			args       []string
			code       int
			out, error string
		}{args: []string{"-count"}, code: 2, error: "this build does not count"})
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := runProgram(k, tt.args, &out, &errOut, func(int) {})
		if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errOut.String(), tt.error) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out.String(), errOut.String(), tt.code, tt.out, tt.error)
		}
		if strings.Contains(strings.Join(tt.args, " "), "-json") {
			var m Measurement
			if err := json.Unmarshal(out.Bytes(), &m); err != nil || len(m.Regions) != 2 || m.Total.SamplesUs == nil {
				t.Errorf("-json printed %s (%v)", out.String(), err)
			}
		}
	}
}
