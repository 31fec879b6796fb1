package main

import (
	"fmt"
	"text/tabwriter"

	"perfc/examples"
)

// examplesCmd is `perfc examples [NAME]`: the built-in example kernels,
// which every verb that reads a kernel accepts by name.
type examplesCmd struct {
	Name   string `arg:"" optional:"" help:"An example to print in full, e.g. to start a kernel of your own: perfc examples gauss > mine.spmd."`
	Output string `short:"o" enum:"table,json" default:"table" help:"Output format of the list: table (for people) or json (for programs)."`
}

// ExamplesSchema names the JSON schema of `perfc examples -o json`.
const ExamplesSchema = "perfc.examples/v1"

// exampleEntry is one example of the list.
type exampleEntry struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// Run lists the examples, or prints one.
func (c *examplesCmd) Run(e env) error {
	if c.Name != "" {
		src, err := examples.Source(c.Name)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(src)
		return err
	}
	var list []exampleEntry
	for _, name := range examples.Names() {
		summary, err := examples.Summary(name)
		if err != nil {
			return err
		}
		list = append(list, exampleEntry{name, summary})
	}
	if c.Output == "json" {
		return writeJSON(e.stdout, struct {
			Schema   string         `json:"schema"`
			Examples []exampleEntry `json:"examples"`
		}{ExamplesSchema, list})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for _, x := range list {
		fmt.Fprintf(tw, "%s\t%s\n", x.Name, x.Summary)
	}
	fmt.Fprintln(tw, "\nuse a name in place of a file (perfc predict gauss); perfc examples NAME prints its source")
	return tw.Flush()
}
