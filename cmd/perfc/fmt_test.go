package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unformatted is a kernel that grows when formatted.
const unformatted = "kernel k(N=4){array a[N]:f64\nfor i in 0..N{a[i]=a[i]*2.0} // double\n}\n"

// TestFmtWriteFailureKeepsSource runs `perfc fmt --write` in a child
// process whose file size limit (RLIMIT_FSIZE) is the source's size, so
// that writing the longer formatted text fails half-way, as on a full
// disk. The source must be left as it was, with no temporary file beside
// it, and the verb must fail.
func TestFmtWriteFailureKeepsSource(t *testing.T) {
	if path := os.Getenv("PERFC_FMT_CHILD"); path != "" {
		lim := syscall.Rlimit{Cur: uint64(len(unformatted)), Max: uint64(len(unformatted))}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Skip("cannot limit the file size:", err)
		}
		code, _, errOut := runCLI(t, "", "fmt", "--write", path)
		os.Stderr.WriteString(errOut)
		os.Exit(code)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "k.spmd")
	if err := os.WriteFile(path, []byte(unformatted), 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFmtWriteFailureKeepsSource$")
	cmd.Env = append(os.Environ(), "PERFC_FMT_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("fmt --write succeeded over the file size limit: %s", out)
	}
	if !strings.Contains(string(out), "left unchanged") {
		t.Errorf("fmt --write said %q, want it to say the file is left unchanged", out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != unformatted {
		t.Errorf("the source was changed by a failed write: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries after the failure, want 1 (no temporary file)", len(entries))
	}
}

// TestFmtWriteKeepsModeAndLink checks that fmt --write rewrites a file with its
// permission bits, and through a symbolic link rewrites the target and
// keeps the link.
func TestFmtWriteKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.spmd")
	if err := os.WriteFile(path, []byte(unformatted), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.spmd")
	if err := os.Symlink("k.spmd", link); err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, "", "fmt", path)
	if code, out, errOut := runCLI(t, "", "fmt", "--write", link); code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("rewritten file %q, want %q", got, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", info.Mode().Perm())
	}
	if l, err := os.Lstat(link); err != nil || l.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", l, err)
	}
}

// TestFmtWriteBuiltinExample checks that --write refuses a built-in
// example, which is no file to rewrite, and says how to get a copy.
func TestFmtWriteBuiltinExample(t *testing.T) {
	code, _, errOut := runCLI(t, "", "fmt", "--write", "gauss")
	want := "perfc: --write: gauss is not a file but a built-in example (examples/gauss.spmd (built in)); save a copy to format: perfc examples gauss > mine.spmd\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
}
