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
	Output   string   `short:"o" enum:"table,json,yaml" default:"table" help:"Output format: table (for people), json (the YAML table's keys, for programs) or yaml (a table that -m FILE.yaml loads back)."`
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
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(struct {
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
	switch c.Output {
	case "json":
		return m.WriteJSON(e.stdout)
	case "yaml":
		return m.WriteYAML(e.stdout)
	}
	return m.Describe(e.stdout)
}
