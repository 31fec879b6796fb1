package lang_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfc/lang"
)

// jsonSample builds, by hand, the tree of
//
//	kernel k(N = 8) {
//	  for i in 0..N { x[i] += 1 }
//	}
//
// with real positions, so that the dump's "pos" fields can be checked.
func jsonSample() *lang.File {
	const text = "kernel k(N = 8) {\n  for i in 0..N { x[i] += 1 }\n}\n"
	at := func(s string, nth int) lang.Pos {
		off := -1
		for range nth + 1 {
			i := strings.Index(text[off+1:], s)
			if i < 0 {
				panic("jsonSample: no occurrence of " + s)
			}
			off += 1 + i
		}
		return lang.PosOf(off)
	}
	body := &lang.Block{Lbrace: at("{", 1), Rbrace: at("}", 0), Stmts: []lang.Stmt{
		&lang.AssignStmt{
			Lhs: &lang.IndexExpr{Name: &lang.Ident{NamePos: at("x", 0), Name: "x"},
				Index: []lang.Expr{&lang.Ident{NamePos: at("i", 2), Name: "i"}}, Rbrack: at("]", 0)},
			OpPos: at("+=", 0), Op: lang.AddAssign,
			Rhs: &lang.IntLit{LitPos: at("1", 0), Text: "1"},
		},
	}}
	loop := &lang.ForStmt{ForPos: at("for", 0), Var: &lang.Ident{NamePos: at("i", 0), Name: "i"},
		Lo:   &lang.IntLit{LitPos: at("0", 0), Text: "0"},
		Hi:   &lang.Ident{NamePos: at("N", 1), Name: "N"},
		Body: body}
	k := &lang.Kernel{KernelPos: at("kernel", 0), Name: &lang.Ident{NamePos: at("k", 0), Name: "k"},
		Params: []*lang.Param{{Name: &lang.Ident{NamePos: at("N", 0), Name: "N"}, Default: &lang.IntLit{LitPos: at("8", 0), Text: "8"}}},
		Body:   &lang.Block{Lbrace: at("{", 0), Rbrace: at("}", 1), Stmts: []lang.Stmt{loop}}}
	return &lang.File{Source: lang.NewSource("s.spmd", []byte(text)), Kernels: []*lang.Kernel{k}}
}

func TestEncodeJSON(t *testing.T) {
	want := `{
  "node": "File",
  "pos": "s.spmd:1:1",
  "name": "s.spmd",
  "kernels": [
    {
      "node": "Kernel",
      "pos": "s.spmd:1:1",
      "name": "k",
      "params": [
        {
          "node": "Param",
          "pos": "s.spmd:1:10",
          "name": "N",
          "default": {
            "node": "IntLit",
            "pos": "s.spmd:1:14",
            "text": "8"
          }
        }
      ],
      "body": {
        "node": "Block",
        "pos": "s.spmd:1:17",
        "stmts": [
          {
            "node": "For",
            "pos": "s.spmd:2:3",
            "var": "i",
            "lo": {
              "node": "IntLit",
              "pos": "s.spmd:2:12",
              "text": "0"
            },
            "hi": {
              "node": "Ident",
              "pos": "s.spmd:2:15",
              "name": "N"
            },
            "body": {
              "node": "Block",
              "pos": "s.spmd:2:17",
              "stmts": [
                {
                  "node": "Assign",
                  "pos": "s.spmd:2:19",
                  "op": "+=",
                  "lhs": {
                    "node": "Index",
                    "pos": "s.spmd:2:19",
                    "name": "x",
                    "index": [
                      {
                        "node": "Ident",
                        "pos": "s.spmd:2:21",
                        "name": "i"
                      }
                    ]
                  },
                  "rhs": {
                    "node": "IntLit",
                    "pos": "s.spmd:2:27",
                    "text": "1"
                  }
                }
              ]
            }
          }
        ]
      }
    }
  ],
  "comments": []
}
`
	var out strings.Builder
	if err := lang.EncodeJSON(&out, nil, jsonSample(), nil); err != nil {
		t.Fatalf("EncodeJSON: %v", err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("EncodeJSON mismatch (-want +got):\n%s", diff)
	}
}

func TestJSONTreeAnnotate(t *testing.T) {
	f := jsonSample()
	k := f.Kernels[0]
	// Annotate every expression with its Go type and integer literals
	// with a value, as a checker would with types and constants.
	annotate := func(n lang.Node) map[string]any {
		switch n := n.(type) {
		case *lang.IntLit:
			return map[string]any{"value": len(n.Text), "type": "int"}
		case *lang.Ident:
			return map[string]any{"type": "int"}
		}
		return nil
	}
	raw, err := lang.JSONTree(f.Source, k.Body.Stmts[0].(*lang.ForStmt).Lo, annotate)
	if err != nil {
		t.Fatalf("JSONTree: %v", err)
	}
	want := `{"node":"IntLit","pos":"s.spmd:2:12","text":"0","type":"int","value":1}`
	if diff := cmp.Diff(want, string(raw)); diff != "" {
		t.Errorf("JSONTree mismatch (-want +got):\n%s", diff)
	}

	// The dump of a kernel holds one object per node, each annotated.
	raw, err = lang.JSONTree(f.Source, k, annotate)
	if err != nil {
		t.Fatalf("JSONTree: %v", err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatalf("the dump is not JSON: %v\n%s", err, raw)
	}
	kinds := map[string]int{}
	jsonCountNodes(tree, kinds)
	want2 := map[string]int{"Kernel": 1, "Param": 1, "IntLit": 3, "Block": 2, "For": 1, "Ident": 2, "Assign": 1, "Index": 1}
	if diff := cmp.Diff(want2, kinds); diff != "" {
		t.Errorf("node kinds in the dump (-want +got):\n%s", diff)
	}
}

// jsonCountNodes counts the objects of a decoded dump by their "node".
func jsonCountNodes(v any, kinds map[string]int) {
	switch v := v.(type) {
	case map[string]any:
		if k, ok := v["node"].(string); ok {
			kinds[k]++
		}
		for _, x := range v {
			jsonCountNodes(x, kinds)
		}
	case []any:
		for _, x := range v {
			jsonCountNodes(x, kinds)
		}
	}
}

func TestJSONTreeErrors(t *testing.T) {
	f := jsonSample()
	tests := []struct {
		name     string
		node     lang.Node
		annotate lang.Annotate
		wantErr  string
	}{
		{"annotation repeats a field", f, func(n lang.Node) map[string]any {
			if _, ok := n.(*lang.ForStmt); ok {
				return map[string]any{"body": 1}
			}
			return nil
		}, `lang: JSON dump: annotation "body" of the For at s.spmd:2:3 repeats one of its fields`},
		{"annotation cannot be encoded", f, func(lang.Node) map[string]any { return map[string]any{"f": func() {}} },
			"lang: JSON dump: json: unsupported type: func()"},
		{"missing expression", &lang.LetStmt{Name: &lang.Ident{Name: "x"}}, nil, "lang: JSON dump: missing let value"},
		{"missing element type", &lang.VarDecl{Names: []*lang.Ident{{Name: "s"}}}, nil, "lang: JSON dump: missing element type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := lang.JSONTree(nil, tt.node, tt.annotate)
			if err == nil {
				t.Fatalf("JSONTree succeeded with %s, want error %q", raw, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONTreeCoversEveryNode dumps every example and checks that each
// node of the tree became exactly one object: the annotation hook sees the
// nodes lang.Inspect visits, except the identifiers that are dumped as
// plain names, plus the comments.
func TestJSONTreeCoversEveryNode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*.spmd"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "fmt", "spacing.spmd"), filepath.Join("testdata", "fmt", "requests.spmd"))
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f := printParse(t, name, src)
			want := map[lang.Node]int{}
			names := jsonNameIdents(f)
			lang.Inspect(f, func(n lang.Node) bool {
				if id, ok := n.(*lang.Ident); !ok || !names[id] {
					want[n]++
				}
				return true
			})
			for _, c := range f.Comments {
				want[c]++
			}
			got := map[lang.Node]int{}
			raw, err := lang.JSONTree(nil, f, func(n lang.Node) map[string]any {
				got[n]++
				return map[string]any{"seen": true}
			})
			if err != nil {
				t.Fatalf("JSONTree: %v", err)
			}
			if len(got) != len(want) {
				t.Errorf("annotate saw %d nodes, the tree has %d", len(got), len(want))
			}
			for n, count := range got {
				if count != 1 || want[n] != 1 {
					t.Errorf("%T at %s: dumped %d times, in the tree %d times", n, f.Source.Position(n.Pos()), count, want[n])
				}
			}
			var tree any
			if err := json.Unmarshal(raw, &tree); err != nil {
				t.Fatalf("the dump is not JSON: %v", err)
			}
		})
	}
}

// jsonNameIdents returns the identifiers the dump prints as plain names.
func jsonNameIdents(f *lang.File) map[*lang.Ident]bool {
	names := map[*lang.Ident]bool{}
	lang.Inspect(f, func(n lang.Node) bool {
		switch n := n.(type) {
		case *lang.Kernel:
			names[n.Name] = true
		case *lang.Param:
			names[n.Name] = true
		case *lang.LetStmt:
			names[n.Name] = true
		case *lang.ArraySpec:
			names[n.Name] = true
		case *lang.VarDecl:
			for _, id := range n.Names {
				names[id] = true
			}
		case *lang.ForStmt:
			names[n.Var] = true
		case *lang.Payload:
			names[n.Name] = true
		case *lang.CallExpr:
			names[n.Fun] = true
		case *lang.IndexExpr:
			names[n.Name] = true
		case *lang.CommStmt:
			if n.Req != nil {
				names[n.Req] = true
			}
		case *lang.WaitStmt:
			for _, id := range n.Reqs {
				names[id] = true
			}
		}
		return true
	})
	return names
}
