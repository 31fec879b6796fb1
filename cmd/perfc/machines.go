package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"perfc/machines"
)

// machinesCmd is `perfc machines [NAME]`.
type machinesCmd struct {
	Name     string   `arg:"" optional:"" help:"A built-in machine, or a YAML file, to print with every number's unit and source."`
	Override []string `short:"M" name:"set" sep:"none" help:"Override a parameter before printing (repeatable)." placeholder:"NAME=VALUE"`
	outputArg
}

// machineSummary is one row of the list.
type machineSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

// Run lists the tables or describes one.
func (c *machinesCmd) Run(e env) error {
	if c.Name == "" {
		var list []machineSummary
		for _, n := range machines.BuiltinNames() {
			m, err := machines.Builtin(n)
			if err != nil {
				return err
			}
			list = append(list, machineSummary{n, m.Description(), m.Source()})
		}
		if c.Output == "json" {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(list)
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
	if c.Output == "json" {
		out := struct {
			machineSummary
			Params []machines.Param `json:"params"`
		}{machineSummary{m.Name(), m.Description(), m.Source()}, m.Params()}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return m.Describe(e.stdout)
}
