package codegen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"perfc/codegen/spmd"
)

// Building and running generated programs, for perfc check and the tests.
// Programs are built with the Go toolchain on PATH, in a directory keyed by
// the hash of their source, so that a second check of the same kernel and
// parameters reuses the binaries.

// goEnv is the environment of the go command: the generated module stands
// alone (no workspace), and the local toolchain builds it.
func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=")
}

// goTool finds the go command.
func goTool() (string, error) {
	path, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("building the generated program needs the Go toolchain: put the go command on PATH (https://go.dev/dl)")
	}
	return path, nil
}

// Prepare writes the program into root/HASH (root "" means
// os.UserCacheDir()/perfc) unless it is there already, and returns the
// directory.
func (p *Program) Prepare(root string) (string, error) {
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for generated programs: %w", err)
		}
		root = filepath.Join(cache, "perfc")
	}
	dir := filepath.Join(root, cacheDirName(p.Kernel, p.Hash()))
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return "", err
	}
	if err := p.WriteDir(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, "main.go")); statErr == nil {
			return dir, nil // another perfc wrote it meanwhile
		}
		return "", err
	}
	return dir, nil
}

// maxCachePrefix is the most of a kernel's name a cache directory's name
// keeps: enough to recognise it, short enough that the name stays far
// below the file systems' limit of 255 bytes whatever the kernel's name.
const maxCachePrefix = 40

// cacheDirName names a program's cache directory: a readable prefix of
// the kernel's name and the hash of the program's source (which includes
// the whole name, so a shortened prefix cannot mix two kernels up).
func cacheDirName(kernel, hash string) string {
	if !isIdent(kernel) {
		kernel = "kernel" // a name from a program-built AST must not reach a path
	}
	return kernel[:min(len(kernel), maxCachePrefix)] + "-" + hash
}

// BinaryName is the name of a program's binary in its directory: the
// timed build, or the counting build.
func BinaryName(counting bool) string {
	if counting {
		return "kernel-count"
	}
	return "kernel"
}

// Build compiles the program in dir (the timed build, or with counting the
// instrumented one, -tags perfc_count) unless the binary exists, and
// returns the binary's path.
func Build(ctx context.Context, dir string, counting bool) (string, error) {
	bin := filepath.Join(dir, BinaryName(counting)+"-"+strings.ReplaceAll(runtime.Version(), " ", "_"))
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	gocmd, err := goTool()
	if err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp%d", bin, os.Getpid())
	args := []string{"build", "-o", tmp}
	if counting {
		args = append(args, "-tags", "perfc_count")
	}
	cmd := exec.CommandContext(ctx, gocmd, append(args, ".")...)
	cmd.Dir, cmd.Env = dir, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp) // a build stopped half-way may leave part of a binary
		if ctx.Err() != nil {
			return "", fmt.Errorf("building the generated program in %s did not finish: %w", dir, ctx.Err())
		}
		return "", fmt.Errorf("building the generated program in %s failed (%v):\n%s", dir, err, out)
	}
	return bin, os.Rename(tmp, bin)
}

// WithBinary builds the program in dir (the timed build, or the counting
// one) unless its binary is cached, and calls use with the binary. A
// cached binary that does not start (truncated, damaged, not executable,
// removed meanwhile) is removed and rebuilt once, so a broken cache does
// not fail every later check.
func WithBinary(ctx context.Context, dir string, counting bool, use func(bin string) error) error {
	bin, err := Build(ctx, dir, counting)
	if err != nil {
		return err
	}
	err = use(bin)
	var se *startError
	if !errors.As(err, &se) {
		return err
	}
	if err := os.Remove(bin); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w; removing it to rebuild: %v", se, err)
	}
	if bin, err = Build(ctx, dir, counting); err != nil {
		return err
	}
	return use(bin)
}

// startError is a program that could not be started at all, as opposed
// to one that ran and failed.
type startError struct {
	bin string
	err error
}

func (e *startError) Error() string {
	return fmt.Sprintf("the generated program %s does not start: %v", e.bin, e.err)
}

func (e *startError) Unwrap() error { return e.err }

// Run runs a built program and returns what it printed on standard
// output; when it fails, the error carries its standard error, and when
// it cannot start, the error is a *startError.
func Run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, &startError{bin: bin, err: err}
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the generated program did not finish: %w", ctx.Err())
		}
		return nil, fmt.Errorf("the generated program failed (%v): %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// Measure runs the timed build with -json (and args) and decodes its
// measurement.
func Measure(ctx context.Context, bin string, args ...string) (*spmd.Measurement, error) {
	return MeasureWith(ctx, Launch{}, bin, args...)
}

// decodeMeasurement reads a program's -json measurement.
func decodeMeasurement(out []byte) (*spmd.Measurement, error) {
	var m spmd.Measurement
	if err := decode(out, &m); err != nil {
		return nil, err
	}
	if m.Schema != spmd.MeasurementSchema {
		return nil, fmt.Errorf("the program printed schema %q, want %q", m.Schema, spmd.MeasurementSchema)
	}
	return &m, nil
}

// Count runs the counting build with -count -json and decodes what it
// counted (CountWith, launched as the goroutine program it is).
func Count(ctx context.Context, bin string) (*spmd.Executed, error) {
	return CountWith(ctx, Launch{}, bin)
}

// decode reads one JSON value strictly.
func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the generated program's output is not the expected JSON: %v", err)
	}
	return nil
}
