package codegen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Writing a program into a directory. Nothing is left half-written: a new
// directory is filled under a temporary name beside it and renamed into
// place; in an existing directory every file is first written in full to a
// temporary file, and only when all are written are they renamed over the
// old ones. The files of an earlier program that this one does not have
// are removed, but only those that the directory's manifest lists and that
// still carry perfc's header: files perfc did not write are never
// removed, overwritten or written through (a symbolic link is refused).

// manifestName is the file that lists what perfc wrote into a directory.
const manifestName = ".perfc-files"

// manifestHeader starts the manifest.
const manifestHeader = "# files written by perfc gen; a later perfc gen removes those it no longer writes\n"

// WriteDir writes the program's files into dir, creating it. It refuses
// an empty name, a directory that holds Go code or a go.mod perfc did not
// write (so that a program is never mixed into or written over someone's
// package), and symbolic links where perfc would write.
func (p *Program) WriteDir(dir string) error {
	return p.writeDir(dir, func(f File, w io.Writer) error {
		_, err := w.Write(f.Data)
		return err
	})
}

// writeDir is WriteDir with the function that writes a file's contents;
// tests make it fail in the middle.
func (p *Program) writeDir(dir string, fill func(File, io.Writer) error) error {
	if dir == "" {
		return errors.New("the directory name is empty: name the directory to write the program into, e.g. --out ./kernel")
	}
	dir = filepath.Clean(dir) // "out/" names out, whose parent is "."
	info, err := os.Stat(dir) // a link the user names as the directory is theirs to follow
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p.writeNewDir(dir, fill)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory: name a new or empty directory to write the program into", dir)
	}
	return p.writeOverDir(dir, fill)
}

// writeNewDir fills a temporary directory beside dir and renames it to
// dir, so that a failure leaves no directory behind.
func (p *Program) writeNewDir(dir string, fill func(File, io.Writer) error) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	err = p.writeOverDir(tmp, fill)
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("writing the program into %s (nothing written): %w", dir, err)
	}
	return nil
}

// writeOverDir writes the program into the existing directory dir: every
// file in full to a temporary file first, then all renamed into place,
// the manifest last; then the earlier program's stale files are removed.
func (p *Program) writeOverDir(dir string, fill func(File, io.Writer) error) error {
	stale, err := p.checkDir(dir)
	if err != nil {
		return err
	}
	files := append(slices.Clone(p.Files), File{Name: manifestName, Data: p.manifest()})
	tmps := make([]string, 0, len(files))
	removeTmps := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for _, f := range files {
		t, err := writeTemp(dir, f, fill)
		if err != nil {
			removeTmps()
			return fmt.Errorf("writing %s (the directory is left as it was): %w", filepath.Join(dir, f.Name), err)
		}
		tmps = append(tmps, t)
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.Name)); err != nil {
			removeTmps()
			return err
		}
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s, which an earlier perfc gen wrote: %w", filepath.Join(dir, name), err)
		}
	}
	syncDir(dir)
	return nil
}

// writeTemp writes one file in full to a temporary file in dir, synced,
// and returns its path.
func writeTemp(dir string, f File, fill func(File, io.Writer) error) (string, error) {
	t, err := os.CreateTemp(dir, "."+f.Name+".tmp-")
	if err != nil {
		return "", err
	}
	err = fill(f, t)
	if err == nil {
		err = t.Chmod(0o644)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(t.Name())
		return "", err
	}
	return t.Name(), nil
}

// syncDir makes the renames in dir durable where the system allows; the
// renames have happened either way, so a failure is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// manifest is the text of the manifest: its header and the names of the
// program's files.
func (p *Program) manifest() []byte {
	var b bytes.Buffer
	b.WriteString(manifestHeader)
	for _, f := range p.Files {
		b.WriteString(f.Name + "\n")
	}
	return b.Bytes()
}

// checkDir refuses a directory that holds Go code or a go.mod perfc did
// not write, or a symbolic link or a directory where perfc would write,
// and returns the files of an earlier program that this one does not
// have: those that still carry perfc's header and that its manifest lists
// (or all of them, when a perfc from before manifests wrote it).
func (p *Program) checkDir(dir string) (stale []string, err error) {
	entries, err := os.ReadDir(dir) // entry types come from Lstat: links are seen as links
	if err != nil {
		return nil, err
	}
	writes := map[string]bool{manifestName: true}
	for _, f := range p.Files {
		writes[f.Name] = true
	}
	listed, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		code := name == "go.mod" || name == "go.work" || strings.HasSuffix(name, ".go")
		if (!code || e.IsDir()) && !writes[name] {
			continue // not ours, and nothing we touch
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s is a symbolic link or not a regular file; perfc writes only regular files it wrote itself: remove it, or write the program into a new or empty directory", filepath.Join(dir, name))
		}
		if name == manifestName {
			continue
		}
		ours, err := generated(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if !ours {
			return nil, fmt.Errorf("%s holds %s, which perfc did not write; write the program into a new or empty directory", dir, name)
		}
		if !writes[name] && (listed[name] || listed == nil) { // no manifest: an older perfc's program
			stale = append(stale, name)
		}
	}
	return stale, nil
}

// generated reports whether the regular file at path is one perfc wrote:
// a go.mod of the generated module, or Go source with the generated-code
// header in its first lines.
func generated(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head = head[:n]
	return bytes.HasPrefix(head, []byte(generatedModule)) || bytes.Contains(firstLines(head, 3), []byte(strings.TrimSpace(generatedHeader))), nil
}

// readManifest returns the names the directory's manifest lists (none
// when it has no manifest); names that are not plain file names are
// ignored, so a manifest can never point outside the directory. A
// directory without a manifest gives nil.
func readManifest(dir string) (map[string]bool, error) {
	path := filepath.Join(dir, manifestName)
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; perfc writes only regular files it wrote itself: remove it", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name := sc.Text()
		if name == "" || strings.HasPrefix(name, "#") || name != filepath.Base(name) || name == "." || name == ".." {
			continue
		}
		out[name] = true
	}
	return out, sc.Err()
}

// firstLines returns the first n lines of data.
func firstLines(data []byte, n int) []byte {
	end := 0
	for i := 0; i < n && end < len(data); i++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			return data
		}
		end += next + 1
	}
	return data[:end]
}
