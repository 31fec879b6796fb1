package cache

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestReadHierarchy(t *testing.T) {
	tests := []struct {
		tree    string // directory under testdata/sysfs
		spec    string // the expected geometry
		sources []string
	}{
		{
			tree: "zen", // this project's build host
			spec: "L1=32KiB/64B/8,L2=512KiB/64B/8,L3=32MiB/64B/16",
			sources: []string{
				"index0 (level 1 Data, size 32K, 64B lines, 8 ways × 64 sets)",
				"index2 (level 2 Unified, size 512K, 64B lines, 8 ways × 1024 sets)",
				"index3 (level 3 Unified, size 32768K, 64B lines, 16 ways × 32768 sets)",
			},
		},
		{
			tree: "skylake-sp", // Xeon Platinum 8180: 57344 = 7 × 8192 sets
			spec: "L1=32KiB/64B/8,L2=1MiB/64B/16,L3=39424KiB/64B/11",
			sources: []string{
				"index0 (level 1 Data, size 32K, 64B lines, 8 ways × 64 sets)",
				"index2 (level 2 Unified, size 1024K, 64B lines, 16 ways × 1024 sets)",
				"index3 (level 3 Unified, size 39424K, 64B lines, 11 ways × 57344 sets)",
			},
		},
		{
			tree: "arm", // no ways files; L1 with neither ways nor sets is fully associative
			spec: "L1=4KiB/64B/full,L2=1MiB/64B/16",
			sources: []string{
				"index0 (level 1 Data, size 4K, 64B lines, 64 ways × 1 sets)",
				"index2 (level 2 Unified, size 1M, 64B lines, 16 ways × 1024 sets)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			got, err := ReadHierarchy(os.DirFS("testdata/sysfs/" + tt.tree))
			if err != nil {
				t.Fatalf("ReadHierarchy: %v", err)
			}
			want, err := ParseHierarchy(tt.spec)
			if err != nil {
				t.Fatalf("bad test spec: %v", err)
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Level{}, "Source")); diff != "" {
				t.Errorf("geometry mismatch (-want +got):\n%s", diff)
			}
			var sources []string
			for _, l := range got {
				sources = append(sources, l.Source)
			}
			if diff := cmp.Diff(tt.sources, sources); diff != "" {
				t.Errorf("Source mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadHierarchyServerL3 reads a fake sysfs of a server core whose L3 has
// 20,480 sets (20 MiB, 16 ways) and an L2 of 1.25 MiB: the geometry is
// exactly what sysfs says, whether the ways file or only number_of_sets
// gives the arrangement.
func TestReadHierarchyServerL3(t *testing.T) {
	index := func(level, kind, size, ways, sets string) map[string]string {
		files := map[string]string{"level": level, "type": kind, "size": size, "coherency_line_size": "64"}
		if ways != "" {
			files["ways_of_associativity"] = ways
		}
		if sets != "" {
			files["number_of_sets"] = sets
		}
		return files
	}
	build := func(dirs ...map[string]string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for i, files := range dirs {
			for name, text := range files {
				fsys[fmt.Sprintf("index%d/%s", i, name)] = &fstest.MapFile{Data: []byte(text + "\n")}
			}
		}
		return fsys
	}
	l1d := index("1", "Data", "48K", "12", "64")
	l1i := index("1", "Instruction", "32K", "8", "64")
	l2 := index("2", "Unified", "1280K", "20", "1024")
	const want = "L1=48KiB/64B/12,L2=1280KiB/64B/20,L3=20MiB/64B/16"
	for name, l3 := range map[string]map[string]string{
		"ways and sets": index("3", "Unified", "20480K", "16", "20480"),
		"sets only":     index("3", "Unified", "20480K", "", "20480"),
		"ways only":     index("3", "Unified", "20480K", "16", ""),
	} {
		t.Run(name, func(t *testing.T) {
			h, err := ReadHierarchy(build(l1d, l1i, l2, l3))
			if err != nil {
				t.Fatalf("ReadHierarchy: %v", err)
			}
			if got := h.String(); got != want {
				t.Errorf("geometry %s, want %s", got, want)
			}
			if got := h[2].Sets(); got != 20480 {
				t.Errorf("L3 has %d sets, want 20480", got)
			}
			if got, want := h[2].Source, "index3 (level 3 Unified, size 20480K, 64B lines, 16 ways × 20480 sets)"; got != want {
				t.Errorf("L3 Source = %q, want %q", got, want)
			}
		})
	}
}

func TestReadHierarchyErrors(t *testing.T) {
	tests := []struct {
		tree    string
		message string
	}{
		{"instruction-only", "no data or unified caches listed"},
		{"bad-size", `index0/size: "32KB" is not a cache size like 48K`},
		{"bad-type", `index0/type: cache type "Trace" is none of Data, Unified, Instruction`},
		{"no-line", "index0/coherency_line_size is missing; describe the caches explicitly"},
		{"two-l1", "index0 and index1 both describe a level 1 data cache"},
		{"shrinking", "L2 (16KiB) must be larger than L1 (32KiB)"},
		{"odd-ways", "48K of 64B lines cannot be split into sets of 7 ways"},
		{"odd-sets", "6K of 64B lines cannot be split into 40 sets"},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			_, err := ReadHierarchy(os.DirFS("testdata/sysfs/" + tt.tree))
			if err == nil || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("ReadHierarchy error = %v, want one containing %q", err, tt.message)
			}
		})
	}
	if _, err := ReadHierarchy(os.DirFS("testdata/sysfs/instruction-only")); !errors.Is(err, errNoCaches) {
		t.Errorf("instruction-only tree: error %v does not wrap errNoCaches, so HostHierarchy would not fall back", err)
	}
}

// TestHostHierarchy checks the real host: on Linux the geometry must come
// from sysfs and be valid; elsewhere it must be the labelled default.
func TestHostHierarchy(t *testing.T) {
	h, err := HostHierarchy()
	if err != nil {
		t.Fatalf("HostHierarchy: %v", err)
	}
	if err := h.Validate(); err != nil {
		t.Errorf("HostHierarchy returned an invalid hierarchy: %v", err)
	}
	wantPrefix := SysCacheDir + "/index"
	if _, statErr := os.Stat(SysCacheDir); statErr != nil {
		wantPrefix = "default ("
	}
	for _, l := range h {
		if !strings.HasPrefix(l.Source, wantPrefix) {
			t.Errorf("level %s Source = %q, want prefix %q", l.Name, l.Source, wantPrefix)
		}
	}
	t.Logf("host: %v", h)
}

func TestDefaultHierarchy(t *testing.T) {
	h := DefaultHierarchy("no sysfs")
	if err := h.Validate(); err != nil {
		t.Fatalf("default hierarchy is invalid: %v", err)
	}
	if got, want := h.String(), "L1=32KiB/64B/8,L2=1MiB/64B/16,L3=32MiB/64B/16"; got != want {
		t.Errorf("default = %s, want %s (update the DefaultHierarchy doc comment too)", got, want)
	}
	for _, l := range h {
		if !strings.Contains(l.Source, "default (no sysfs)") {
			t.Errorf("level %s Source = %q, want it to say it is a default and why", l.Name, l.Source)
		}
	}
}
