package perfc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfc"
	"perfc/lang"
)

// TestPredictAsCommand: Predict gives what perfc predict -o json prints,
// byte for byte (the command's golden files), overrides marked included.
func TestPredictAsCommand(t *testing.T) {
	for _, tt := range []struct {
		golden, file string
		load         perfc.LoadOptions
		opts         perfc.PredictOptions
	}{
		{"predict_gauss_sp2_json.golden", "gauss.spmd", perfc.LoadOptions{Params: map[string]string{"N": "64"}}, perfc.PredictOptions{Machine: "sp2"}},
		{"predict_pingpong_override_json.golden", "pingpong.spmd", perfc.LoadOptions{},
			perfc.PredictOptions{Set: []string{"t_send=0.0585us/B", "compose=max"}}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("examples", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			// The name the command's tests give the file, which the report shows.
			k, err := perfc.Parse("../../examples/"+tt.file, src, tt.load)
			if err != nil {
				t.Fatal(err)
			}
			pred, err := k.Predict(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetIndent("", "  ")
			if err := enc.Encode(pred); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("cmd", "perfc", "testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Predict differs from perfc predict (%s):\n%s", tt.golden, got.String())
			}
		})
	}
}

// TestLoadErrors: a check error is a *perfc.SourceError that shows the
// line and caret and unwraps to the lang.ErrorList; a missing file is the
// file system's error.
func TestLoadErrors(t *testing.T) {
	_, err := perfc.Parse("k.spmd", []byte("kernel k(N = 8) on P = 4 ranks {\n}\n"), perfc.LoadOptions{Params: map[string]string{"M": "3"}})
	var se *perfc.SourceError
	var list lang.ErrorList
	if !errors.As(err, &se) || !errors.As(err, &list) || len(list) != 1 || !strings.Contains(err.Error(), "M") {
		t.Errorf("unknown parameter: %T %v", err, err)
	}
	if _, err := perfc.Load("no/such/file.spmd", perfc.LoadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	k, err := perfc.Load("examples/triad.spmd", perfc.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Predict(perfc.PredictOptions{Machine: "no-such-machine"}); err == nil {
		t.Error("unknown machine: no error")
	}
}
