// Package host describes the machine a calibration runs on: its CPU model,
// cores, caches (from Linux sysfs, any number of sets), Go version and
// GOAMD64 level, so that a calibrated table says where its numbers were
// measured (docs/calibrate.md).
package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"perfc/analyze/cache"
)

// Info is what a calibrated table's host: mapping records.
type Info struct {
	CPU     string          // model name from /proc/cpuinfo, "unknown" when absent
	Cores   int             // logical CPUs this process may use
	Caches  cache.Hierarchy // data and unified caches, L1 first
	Go      string          // the Go toolchain that builds the benchmarks
	GOAMD64 string          // the amd64 micro-architecture level, "" elsewhere
	Date    time.Time
}

// CPUInfoPath is where Linux describes the processors.
const CPUInfoPath = "/proc/cpuinfo"

// Read describes this host, now. The caches come from cache.HostHierarchy
// (sysfs, or perfc's default hierarchy with a Source saying so).
func Read() (Info, error) {
	caches, err := cache.HostHierarchy()
	if err != nil {
		return Info{}, err
	}
	info := Info{
		CPU:     "unknown",
		Cores:   runtime.NumCPU(),
		Caches:  caches,
		Go:      runtime.Version(),
		GOAMD64: goamd64(),
		Date:    time.Now().UTC(),
	}
	data, err := os.ReadFile(CPUInfoPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Info{}, fmt.Errorf("%s: %w", CPUInfoPath, err)
	default:
		if m := CPUModel(data); m != "" {
			info.CPU = m
		}
	}
	return info, nil
}

// CPUModel returns the first "model name" (x86) or "Model"/"cpu model"
// (arm, mips) line of a /proc/cpuinfo text, or "".
func CPUModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name", "Model", "cpu model":
			if v := strings.Join(strings.Fields(value), " "); v != "" {
				return v
			}
		}
	}
	return ""
}

// goamd64 is the GOAMD64 level the benchmark programs are built with:
// the environment's, or the default v1 (the go command's default), or
// "" on other architectures. The perfc binary's own build setting is
// not what matters: the generated programs are built by the go command
// on PATH with this environment.
func goamd64() string {
	if runtime.GOARCH != "amd64" {
		return ""
	}
	if v := os.Getenv("GOAMD64"); v != "" {
		return v
	}
	return "v1"
}

// CachesString lists the caches as a person reads them:
// "L1 32KiB 8-way, L2 1MiB 8-way, L3 32MiB 16-way, 64B lines".
func (i Info) CachesString() string {
	var parts []string
	line := 0
	for _, l := range i.Caches {
		way := fmt.Sprintf("%d-way", l.Assoc)
		if l.Assoc == 0 {
			way = "fully associative"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", l.Name, Bytes(int64(l.Size)), way))
		line = l.Line
	}
	if line > 0 {
		parts = append(parts, fmt.Sprintf("%dB lines", line))
	}
	return strings.Join(parts, ", ")
}

// Bytes writes a size in the largest binary unit that divides it
// (4KiB, 1MiB, 1536KiB, 100B).
func Bytes(n int64) string {
	for _, u := range []struct {
		s string
		v int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d%s", n/u.v, u.s)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// Describe is one line for a table's description: CPU, cores, caches.
func (i Info) Describe() string {
	return fmt.Sprintf("%s, %d cores, %s", i.CPU, i.Cores, i.CachesString())
}

// Version is perfc's module version and VCS revision as the binary
// records them, for a table's source ("devel" when unknown).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
