package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"text/tabwriter"

	"perfc/lang"
	"perfc/machines"
)

// machinesCmd is `perfc machines [NAME]`.
type machinesCmd struct {
	Name      string   `arg:"" optional:"" help:"A built-in machine, or a YAML file, to print with every number's unit and source."`
	Override  []string `short:"M" name:"set" sep:"none" help:"Override a parameter before printing (repeatable)." placeholder:"NAME=VALUE"`
	Output    string   `short:"o" enum:"table,json,yaml" default:"table" help:"Output format: table (for people), json (the YAML table's keys, for programs) or yaml (a table that -m FILE.yaml loads back)."`
	Compare   string   `placeholder:"NAME|FILE.yaml" help:"Set the table beside another (two calibrations of one host): every value, and the quantities that differ by more than --tolerance."`
	Tolerance float64  `default:"5" placeholder:"PERCENT" help:"With --compare: the relative change, in per cent, beyond which two quantities disagree."`
}

// MachinesSchema names the JSON schema of the list `perfc machines -o json`;
// one table's is machines.TableSchema.
const MachinesSchema = "perfc.machines/v1"

// machineSummary is one row of the list.
type machineSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

// Run lists the tables or describes one.
func (c *machinesCmd) Run(e env) error {
	if c.Name == "" && c.Compare != "" {
		return fmt.Errorf("machines: --compare sets a table beside another: name the first, as in perfc machines host.yaml --compare %s", c.Compare)
	}
	if c.Name == "" {
		var list []machineSummary
		for _, n := range machines.BuiltinNames() {
			m, err := machines.Builtin(n)
			if err != nil {
				return err
			}
			list = append(list, machineSummary{n, m.Description(), m.Source()})
		}
		switch c.Output {
		case "json":
			return writeJSON(e.stdout, struct {
				Schema   string           `json:"schema"`
				Machines []machineSummary `json:"machines"`
			}{MachinesSchema, list})
		case "yaml":
			return fmt.Errorf("-o yaml prints one table: name it, as in perfc machines %s -o yaml", list[0].Name)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		for _, m := range list {
			fmt.Fprintf(tw, "%s\t%s\n", m.Name, m.Description)
		}
		return tw.Flush()
	}
	m, err := machineArgs{Machine: c.Name, Override: c.Override}.load()
	if err != nil {
		return err
	}
	if c.Compare != "" {
		return c.compare(e, m)
	}
	switch c.Output {
	case "json":
		return m.WriteJSON(e.stdout)
	case "yaml":
		return m.WriteYAML(e.stdout)
	}
	return m.Describe(e.stdout)
}

// CompareSchema names the JSON of perfc machines A --compare B -o json.
const CompareSchema = "perfc.machines-compare/v1"

// compare sets the table beside --compare's and prints what differs.
func (c *machinesCmd) compare(e env, m *machines.Machine) error {
	if !(c.Tolerance >= 0) || math.IsInf(c.Tolerance, 0) {
		return fmt.Errorf("machines: --tolerance %g: give a per cent of 0 or more, such as 5", c.Tolerance)
	}
	other, err := machineArgs{Machine: c.Compare, Override: c.Override}.load()
	if err != nil {
		return err
	}
	cmp, err := machines.Compare(m, other, c.Tolerance/100)
	if err != nil {
		return err
	}
	within, numeric := cmp.Agree()
	switch c.Output {
	case "json":
		return writeJSON(e.stdout, struct {
			Schema    string                `json:"schema"`
			A         string                `json:"a"`
			B         string                `json:"b"`
			Tolerance float64               `json:"tolerance"`
			Within    int                   `json:"within"`
			Numeric   int                   `json:"quantities"`
			Values    []machines.Difference `json:"values"`
		}{CompareSchema, c.Name, c.Compare, cmp.Tolerance, within, numeric, jsonSafe(cmp.Values)})
	case "yaml":
		return errors.New("machines: --compare prints a table or -o json, not a machine table")
	}
	fmt.Fprintf(e.stdout, "%s (A) against %s (B): %d of %d quantities agree within %g%%\n", c.Name, c.Compare, within, numeric, c.Tolerance)
	var quantities, texts []machines.Difference
	for _, d := range cmp.Values {
		switch {
		case !d.Beyond:
		case d.Numeric:
			quantities = append(quantities, d)
		default:
			texts = append(texts, d)
		}
	}
	if len(quantities) > 0 {
		fmt.Fprintf(e.stdout, "\nquantities beyond %g%%:\n", c.Tolerance)
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "key\tA\tB\tchange")
		for _, d := range quantities {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.1f%%\n", lang.Printable(d.Key), lang.Printable(d.A), lang.Printable(d.B), 100*d.Change)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(texts) > 0 {
		fmt.Fprintf(e.stdout, "\nother values that differ (text, or in one table only: -):\n")
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "key\tA\tB")
		dash := func(s string) string {
			if s == "" {
				return "-"
			}
			return lang.Printable(s)
		}
		for _, d := range texts {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", lang.Printable(d.Key), dash(d.A), dash(d.B))
		}
		return tw.Flush()
	}
	return nil
}

// jsonSafe replaces the infinite changes (a quantity that is 0 in one
// table only), which JSON cannot hold, by ±1e308.
func jsonSafe(ds []machines.Difference) []machines.Difference {
	out := slices.Clone(ds)
	for i := range out {
		if math.IsInf(out[i].Change, 0) {
			out[i].Change = math.Copysign(math.MaxFloat64, out[i].Change)
		}
	}
	return out
}
