// Package safefile writes files so that a failure leaves nothing behind:
// the data goes to a temporary file beside the target, which is synced
// and renamed over the target only when it is complete. A reader sees the
// old file or the new one, never a truncated mix, and a full disk or a
// crash in the middle of a write leaves the old file as it was.
package safefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically with permission bits perm (see
// Write).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write calls fill with a temporary file in path's directory, syncs it,
// gives it permission bits perm and renames it to path. When fill or any
// step fails, the temporary file is removed and path is untouched. A path
// that is a symbolic link is replaced by a regular file; callers that
// mean to write a link's target resolve it first.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s (left unchanged): %w", path, err)
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable where the system supports it;
// failing that, the rename has still happened, so errors are ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
