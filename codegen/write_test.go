package codegen

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// snapshot returns every entry under dir: a file's contents, a link's
// target ("-> target"), a directory's name with a slash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			out[rel] = "-> " + target
			return err
		case d.IsDir():
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(path)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failAt returns a fill function that writes half of the named file and
// then fails, as a full disk would.
func failAt(name string) func(File, io.Writer) error {
	return func(f File, w io.Writer) error {
		if f.Name != name {
			_, err := w.Write(f.Data)
			return err
		}
		w.Write(f.Data[:len(f.Data)/2])
		return errors.New("no space left on device")
	}
}

// TestWriteDirFailureLeavesNothing checks that a write failing in the
// middle of a program leaves no directory, no temporary file and no
// half-written file, in a new directory and over an earlier program.
func TestWriteDirFailureLeavesNothing(t *testing.T) {
	triad, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	gauss, err := Generate(checkExample(t, "gauss", "N=64"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("new directory", func(t *testing.T) {
		parent := t.TempDir()
		err := triad.writeDir(filepath.Join(parent, "out"), failAt("main.go"))
		if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "nothing written") {
			t.Errorf("err = %v, want the write error and 'nothing written'", err)
		}
		if diff := cmp.Diff(map[string]string{}, snapshot(t, parent)); diff != "" {
			t.Errorf("left behind (-want +got):\n%s", diff)
		}
	})
	t.Run("over an earlier program", func(t *testing.T) {
		dir := t.TempDir()
		if err := gauss.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		err := triad.writeDir(dir, failAt("spmd_coll.go"))
		if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "left as it was") {
			t.Errorf("err = %v, want the write error and 'left as it was'", err)
		}
		if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
			t.Errorf("the directory changed (-before +after):\n%s", diff)
		}
	})
}

// TestWriteDirRemovesOwnStaleFiles checks that rewriting a directory
// removes the files of the earlier program that the new one does not have
// (those the manifest lists, with perfc's header) and keeps the user's.
func TestWriteDirRemovesOwnStaleFiles(t *testing.T) {
	p, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	// An earlier perfc wrote spmd_old.go and listed it; the user keeps notes.
	stale := []byte(generatedHeader + "\npackage main\n")
	if err := os.WriteFile(filepath.Join(dir, "spmd_old.go"), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, manifestName)
	old, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, append(old, "spmd_old.go\n../outside.go\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": "mine\n", manifestName: string(p.manifest())}
	for _, f := range p.Files {
		want[f.Name] = string(f.Data)
	}
	if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

// TestWriteDirRefuses checks the directories perfc will not write into:
// an empty name, and a directory whose main.go is a symbolic link out of
// it (even to a file perfc wrote, which would be overwritten through the
// link), and that the link's target is left as it was.
func TestWriteDirRefuses(t *testing.T) {
	p, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteDir(""); err == nil || !strings.Contains(err.Error(), "the directory name is empty") {
		t.Errorf("WriteDir(\"\") = %v", err)
	}
	root := t.TempDir()
	outside := filepath.Join(root, "outside.go")
	victim := generatedHeader + "\npackage elsewhere\n"
	if err := os.WriteFile(outside, []byte(victim), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	err = p.WriteDir(dir)
	if err == nil || !strings.Contains(err.Error(), "main.go is a symbolic link or not a regular file") {
		t.Errorf("WriteDir over a link = %v, want a refusal", err)
	}
	want := map[string]string{"outside.go": victim, "out/": "", "out/main.go": "-> " + outside}
	if diff := cmp.Diff(want, snapshot(t, root)); diff != "" {
		t.Errorf("after the refusal (-want +got):\n%s", diff)
	}
}

// TestWriteDirNewWithSlash checks that a new directory named with a
// trailing slash is created (before, its parent was taken to be the
// directory itself, and the rename failed leaving it empty).
func TestWriteDirNewWithSlash(t *testing.T) {
	p, err := Generate(checkExample(t, "triad", "N=10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	if err := p.WriteDir(filepath.Join(parent, "out") + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(parent, "out", "main.go")); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("the parent holds %d entries, want only out", len(entries))
	}
}
