package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"perfc/internal/units"
	"perfc/lang"
)

// parseCmd is `perfc parse`: check a kernel and show what the checker
// found.
type parseCmd struct {
	kernelArgs
	outputArg
}

// Run checks the kernel and prints the summary or the annotated AST.
func (c *parseCmd) Run(e env) error {
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	if c.Output == "json" {
		return encodeAST(e.stdout, k)
	}
	printSummary(e, k)
	return nil
}

// ASTSchema names the JSON schema of `perfc parse -o json` (docs/ast-json.md).
const ASTSchema = "perfc.ast/v1"

// encodeAST writes the checked kernel's annotated AST as indented JSON whose
// root object starts with "schema", like every JSON perfc prints. The key
// is spliced into the tree lang builds, which keeps its own key order.
func encodeAST(w io.Writer, k *lang.Checked) error {
	tree, err := lang.JSONTree(k.File.Source, k.Written(), annotations(k))
	if err != nil {
		return err
	}
	doc := append([]byte(`{"schema":"`+ASTSchema+`",`), bytes.TrimPrefix(tree, []byte("{"))...)
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return fmt.Errorf("indenting the AST: %w", err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// annotations adds the checker's type, value and dependence to every
// expression of the JSON dump.
func annotations(k *lang.Checked) lang.Annotate {
	return func(n lang.Node) map[string]any {
		x, ok := n.(lang.Expr)
		if !ok {
			return nil
		}
		out := map[string]any{}
		if t, ok := k.Info.Types[x]; ok {
			out["type"] = t.String()
		}
		if v, ok := k.Info.Values[x]; ok && v.IsValid() {
			out["value"] = v.String()
		}
		if d := k.Info.Deps[x]; d != 0 {
			out["depends"] = depNames(d)
		}
		return out
	}
}

// depNames spells a dependence set.
func depNames(d lang.Dep) []string {
	var out []string
	if d&lang.DepRank != 0 {
		out = append(out, "rank")
	}
	if d&lang.DepIndex != 0 {
		out = append(out, "index")
	}
	if d&lang.DepData != 0 {
		out = append(out, "data")
	}
	return out
}

// printSummary prints what a person wants to see of a checked kernel.
func printSummary(e env, k *lang.Checked) {
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	pos := k.File.Source.Position(k.Kernel.Pos())
	fmt.Fprintf(w, "kernel\t%s (%s), checked\n", k.Kernel.Name.Name, pos)
	ranks := fmt.Sprintf("%d", k.NumRanks())
	if px, py, ok := k.Grid(); ok {
		ranks += fmt.Sprintf(" (grid %d x %d)", px, py)
	}
	fmt.Fprintf(w, "ranks\t%s\n", ranks)
	var params []string
	for _, p := range k.Params {
		params = append(params, p.Name+" = "+p.Value.String())
	}
	fmt.Fprintf(w, "parameters\t%s\n", strings.Join(params, ", "))
	var lets []string
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.LetStmt); ok {
			obj := k.Info.Defs[s.Name]
			if obj != nil && obj.Dep == 0 && obj.Value.IsValid() {
				lets = append(lets, obj.Name+" = "+obj.Value.String())
			} else {
				lets = append(lets, s.Name.Name+" = "+lang.ExprString(s.Value))
			}
		}
		return true
	})
	if len(lets) > 0 {
		fmt.Fprintf(w, "lets\t%s\n", strings.Join(lets, ", "))
	}
	var total int64
	for i, a := range k.Info.Arrays {
		n := int64(a.Elem.Size())
		dims := ""
		for _, d := range a.Dims {
			n *= d
			dims += fmt.Sprintf("[%d]", d)
		}
		total += n
		label := ""
		if i == 0 {
			label = "arrays"
		}
		fmt.Fprintf(w, "%s\t%s%s %s\t%s\n", label, a.Name, dims, a.Elem, formatBytes(n))
	}
	if len(k.Info.Arrays) > 0 {
		fmt.Fprintf(w, "\tper rank\t%s\n", formatBytes(total))
	}
	var vars []string
	for _, v := range k.Info.Vars {
		vars = append(vars, v.Name+" "+v.Elem.String())
	}
	if len(vars) > 0 {
		fmt.Fprintf(w, "vars\t%s\n", strings.Join(vars, ", "))
	}
	var regions []string
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if r, ok := n.(*lang.RegionStmt); ok {
			regions = append(regions, fmt.Sprintf("%q", r.Name))
		}
		return true
	})
	if len(regions) > 0 {
		fmt.Fprintf(w, "regions\t%s\n", strings.Join(regions, ", "))
	}
	w.Flush()
}

// formatBytes prints a byte count exactly, with grouped digits, and from
// 1 KiB on with a binary prefix (units.Bytes).
func formatBytes(n int64) string { return units.Bytes(n) }
