package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"perfc/costmodel"
	"perfc/internal/units"
	"perfc/lang"
)

// sweepCmd is `perfc sweep FILE -D N=64,128,256,512`: a prediction per
// point of the cartesian product of the listed values.
type sweepCmd struct {
	kernelArgs
	machineArgs
	Output      string `short:"o" enum:"table,json,csv" default:"table" help:"Output format: table, json or csv."`
	PaperRules  bool   `help:"Price the way the source paper did (docs/predict.md)."`
	VectorUnits bool   `help:"Price vector-form loops on the machine's vector units."`
	NoEmulation bool   `help:"Sum per-rank costs instead of emulating kernels whose ranks wait on each other."`
}

// sweepRow is one point of a sweep.
type sweepRow struct {
	Params      map[string]string `json:"params"`
	Total       float64           `json:"total"`
	Compute     float64           `json:"compute"`
	Memory      float64           `json:"memory"`
	Messages    float64           `json:"messages"`
	Collectives float64           `json:"collectives"`
	RB          float64           `json:"rb_mflops"`
	Bottleneck  string            `json:"bottleneck"`
}

// Run predicts every point.
func (c *sweepCmd) Run(e env) error {
	f, err := parseFile(e, c.File)
	if err != nil {
		return err
	}
	points, names, err := sweepPoints(c.Define)
	if err != nil {
		return err
	}
	var rows []sweepRow
	for _, pt := range points {
		var ovs []lang.Override
		for i, n := range names {
			ovs = append(ovs, lang.Override{Name: n, Value: pt[i]})
		}
		k, errs := lang.Check(f, c.Kernel, ovs)
		if len(errs) > 0 {
			reportErrors(e, errs, f.Source)
			return exitError{1}
		}
		pred, err := predict(e, k, c.machineArgs, costmodel.Options{PaperRules: c.PaperRules, VectorUnits: c.VectorUnits, NoEmulation: c.NoEmulation})
		if err != nil {
			return err
		}
		row := sweepRow{Params: map[string]string{}, Total: pred.Total, RB: pred.RB, Bottleneck: pred.Bottleneck}
		for i, n := range names {
			row.Params[n] = pt[i]
		}
		for _, r := range pred.Regions {
			row.Compute += r.Compute
			row.Memory += r.Memory
			row.Messages += r.Messages
			row.Collectives += r.Collectives
		}
		rows = append(rows, row)
	}
	switch c.Output {
	case "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "csv":
		w := csv.NewWriter(e.stdout)
		header := append(append([]string{}, names...), "total_s", "compute_s", "memory_s", "messages_s", "collectives_s", "rb_mflops", "bottleneck")
		w.Write(header)
		for _, r := range rows {
			rec := []string{}
			for _, n := range names {
				rec = append(rec, r.Params[n])
			}
			rec = append(rec, fmt.Sprintf("%g", r.Total), fmt.Sprintf("%g", r.Compute), fmt.Sprintf("%g", r.Memory),
				fmt.Sprintf("%g", r.Messages), fmt.Sprintf("%g", r.Collectives), fmt.Sprintf("%g", r.RB), r.Bottleneck)
			w.Write(rec)
		}
		w.Flush()
		return w.Error()
	}
	fmt.Fprintf(e.stdout, "predictions (not measurements) on %s\n", c.Machine)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\ttotal\tcompute\tmemory\tmessages\tcollectives\tR_B\tbottleneck\t\n", strings.Join(names, "\t"))
	for _, r := range rows {
		var vals []string
		for _, n := range names {
			vals = append(vals, r.Params[n])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", strings.Join(vals, "\t"), formatTime(r.Total), formatTime(r.Compute),
			formatTime(r.Memory), formatTime(r.Messages), formatTime(r.Collectives), units.Rate(r.RB*1e6), r.Bottleneck)
	}
	return tw.Flush()
}

// sweepPoints expands -D NAME=v1,v2,… into the cartesian product of values.
func sweepPoints(defs []string) ([][]string, []string, error) {
	var names []string
	var lists [][]string
	for _, d := range defs {
		name, values, ok := strings.Cut(d, "=")
		if !ok || name == "" || values == "" {
			return nil, nil, fmt.Errorf("-D %s: write -D NAME=V1,V2,... e.g. -D N=64,128,256", d)
		}
		names = append(names, strings.TrimSpace(name))
		var vs []string
		for _, v := range strings.Split(values, ",") {
			vs = append(vs, strings.TrimSpace(v))
		}
		lists = append(lists, vs)
	}
	points := [][]string{{}}
	for _, l := range lists {
		var next [][]string
		for _, p := range points {
			for _, v := range l {
				next = append(next, append(append([]string{}, p...), v))
			}
		}
		points = next
	}
	return points, names, nil
}
