package main

import (
	"bytes"
	"os"

	"perfc/lang"
)

// fmtCmd is `perfc fmt`: print a kernel file in canonical form.
type fmtCmd struct {
	File  string `arg:"" help:"Kernel file (.spmd), or - for standard input."`
	Write bool   `short:"w" help:"Rewrite the file in place instead of printing it."`
}

// Run formats the file; with --write it rewrites it only when it changes.
func (c *fmtCmd) Run(e env) error {
	f, err := parseFile(e, c.File)
	if err != nil {
		return err
	}
	out := lang.Format(f)
	if !c.Write || c.File == "-" {
		_, err := e.stdout.Write(out)
		return err
	}
	if bytes.Equal(out, f.Source.Text) {
		return nil
	}
	info, err := os.Stat(c.File)
	if err != nil {
		return err
	}
	return os.WriteFile(c.File, out, info.Mode().Perm())
}
