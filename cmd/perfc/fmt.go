package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"perfc/internal/safefile"
	"perfc/lang"
)

// fmtCmd is `perfc fmt`: print a kernel file in canonical form.
type fmtCmd struct {
	File  string `arg:"" help:"Kernel file (.spmd), or - for standard input."`
	Write bool   `short:"w" help:"Rewrite the file in place instead of printing it (through a temporary file, so a failed write leaves it as it was)."`
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
	if _, err := os.Stat(c.File); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--write: %s is not a file but a built-in example (%s); save a copy to format: perfc examples %s > mine.spmd",
			c.File, f.Source.Name, c.File)
	}
	if bytes.Equal(out, f.Source.Text) {
		return nil
	}
	return rewrite(c.File, out)
}

// rewrite replaces a file's contents atomically, keeping its permission
// bits; a symbolic link keeps pointing at the file, which is rewritten.
func rewrite(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return err
	}
	return safefile.WriteFile(target, data, info.Mode().Perm())
}
