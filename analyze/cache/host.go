package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// SysCacheDir is where Linux describes the caches of cpu0, one index*
// directory per cache.
const SysCacheDir = "/sys/devices/system/cpu/cpu0/cache"

// errNoCaches marks a sysfs tree that describes no data or unified cache;
// HostHierarchy falls back to the default then, as if sysfs were absent.
var errNoCaches = errors.New("no data or unified caches listed")

// DefaultHierarchy is the hierarchy perfc assumes when the host does not
// describe its caches: L1=32KiB/64B/8,L2=1MiB/64B/16,L3=32MiB/64B/16, a
// typical x86-64 server core (32 KiB 8-way L1D as on Intel Skylake through
// AMD Zen 4, a 1 MiB 16-way L2, a 32 MiB 16-way L3), all with 64-byte lines.
// why says why the default is used and goes into every level's Source, so
// that reports show that the geometry is assumed, not measured.
func DefaultHierarchy(why string) Hierarchy {
	h := Hierarchy{
		{Name: "L1", Size: 32 << 10, Line: 64, Assoc: 8},
		{Name: "L2", Size: 1 << 20, Line: 64, Assoc: 16},
		{Name: "L3", Size: 32 << 20, Line: 64, Assoc: 16},
	}
	source := "default (" + why + "): typical x86-64 core " + h.String()
	for i := range h {
		h[i].Source = source
	}
	return h
}

// HostHierarchy describes the caches of the machine perfc runs on, read from
// SysCacheDir. When that directory is absent (not Linux, or a container that
// hides /sys) or lists no data cache, it returns DefaultHierarchy with a
// Source saying so; a directory that is present but unreadable or malformed
// is an error, since silently assuming a geometry would mislead.
func HostHierarchy() (Hierarchy, error) {
	if _, err := os.Stat(SysCacheDir); errors.Is(err, fs.ErrNotExist) {
		return DefaultHierarchy(SysCacheDir + " not present"), nil
	}
	h, err := readHierarchy(os.DirFS(SysCacheDir), SysCacheDir)
	if errors.Is(err, errNoCaches) {
		return DefaultHierarchy(SysCacheDir + " lists no data caches"), nil
	}
	return h, err
}

// ReadHierarchy reads a hierarchy from a tree laid out like SysCacheDir:
// fsys holds index0, index1, ... each with the files level, type, size,
// coherency_line_size and ways_of_associativity or number_of_sets.
// Instruction caches are skipped. Every level is taken as sysfs describes it,
// whatever its number of sets (sliced last-level caches such as the 11-way
// Intel L3s have 57,344 or 20,480 sets); a level of one set is fully
// associative. Sources name the index directory relative to fsys.
func ReadHierarchy(fsys fs.FS) (Hierarchy, error) {
	return readHierarchy(fsys, "")
}

// sysCache is one index* directory as sysfs reports it.
type sysCache struct {
	dir      string // index directory, e.g. "index2"
	level    int
	kind     string // Data, Unified or Instruction
	sizeText string // as sysfs writes it, e.g. "512K"
	size     int
	line     int
	ways     int // 0 when the file is absent
	sets     int // 0 when the file is absent
}

// readHierarchy reads the tree in fsys; root is prefixed to the paths in
// Sources and errors so that they name real files.
func readHierarchy(fsys fs.FS, root string) (Hierarchy, error) {
	dirs, err := fs.Glob(fsys, "index*")
	if err != nil {
		return nil, err
	}
	var caches []sysCache
	for _, dir := range dirs {
		c, err := readSysCache(fsys, root, dir)
		if err != nil {
			return nil, err
		}
		if c.kind != "Instruction" {
			caches = append(caches, c)
		}
	}
	if len(caches) == 0 {
		return nil, fmt.Errorf("%s: %w", displayPath(root, "."), errNoCaches)
	}
	sort.SliceStable(caches, func(i, j int) bool { return caches[i].level < caches[j].level })
	var h Hierarchy
	for i, c := range caches {
		if i > 0 && caches[i-1].level == c.level {
			return nil, fmt.Errorf("%s and %s both describe a level %d data cache; perfc models one data cache per level",
				displayPath(root, caches[i-1].dir), displayPath(root, c.dir), c.level)
		}
		level, err := c.toLevel(root)
		if err != nil {
			return nil, err
		}
		h = append(h, level)
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v; describe the caches explicitly instead (%s)", displayPath(root, "."), err, SpecForm)
	}
	return h, nil
}

// readSysCache reads the files of one index directory.
func readSysCache(fsys fs.FS, root, dir string) (sysCache, error) {
	c := sysCache{dir: dir}
	var err error
	if c.kind, err = readSysFile(fsys, root, dir, "type"); err != nil {
		return c, err
	}
	switch c.kind {
	case "Data", "Unified", "Instruction":
	default:
		return c, fmt.Errorf("%s: cache type %q is none of Data, Unified, Instruction", displayPath(root, dir, "type"), c.kind)
	}
	if c.level, err = readSysInt(fsys, root, dir, "level"); err != nil {
		return c, err
	}
	if c.kind == "Instruction" {
		return c, nil // only its type matters
	}
	if c.sizeText, err = readSysFile(fsys, root, dir, "size"); err != nil {
		return c, err
	}
	if c.size, err = parseSysSize(c.sizeText); err != nil {
		return c, fmt.Errorf("%s: %v", displayPath(root, dir, "size"), err)
	}
	if c.line, err = readSysInt(fsys, root, dir, "coherency_line_size"); err != nil {
		return c, err
	}
	if c.ways, err = readOptionalSysInt(fsys, root, dir, "ways_of_associativity"); err != nil {
		return c, err
	}
	if c.sets, err = readOptionalSysInt(fsys, root, dir, "number_of_sets"); err != nil {
		return c, err
	}
	return c, nil
}

// toLevel turns a sysfs description into a Level, choosing the associativity
// as ReadHierarchy documents.
func (c sysCache) toLevel(root string) (Level, error) {
	where := displayPath(root, c.dir)
	if c.line < 1 || c.size%c.line != 0 {
		return Level{}, fmt.Errorf("%s: size %s is not a whole number of %dB lines", where, c.sizeText, c.line)
	}
	lines := c.size / c.line
	if c.ways == 0 && c.sets > 1 && lines%c.sets != 0 {
		return Level{}, fmt.Errorf("%s: %s of %dB lines cannot be split into %d sets", where, c.sizeText, c.line, c.sets)
	}
	ways := c.ways
	switch {
	case ways == 0 && c.sets > 1:
		ways = lines / c.sets // the sets file alone fixes the arrangement
	case ways == 0:
		ways = lines // no ways and at most one set: fully associative
	}
	if ways < 1 || lines%ways != 0 {
		return Level{}, fmt.Errorf("%s: %s of %dB lines cannot be split into sets of %d ways", where, c.sizeText, c.line, ways)
	}
	sets := lines / ways
	level := Level{Name: "L" + strconv.Itoa(c.level), Size: c.size, Line: c.line, Assoc: ways}
	if sets == 1 {
		level.Assoc = 0
	}
	level.Source = fmt.Sprintf("%s (level %d %s, size %s, %dB lines, %d ways × %d sets)", where, c.level, c.kind, c.sizeText, c.line, ways, sets)
	return level, nil
}

// readSysFile reads one sysfs attribute without its trailing newline.
func readSysFile(fsys fs.FS, root, dir, name string) (string, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is missing; describe the caches explicitly instead (%s)", displayPath(root, dir, name), SpecForm)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", displayPath(root, dir, name), unwrapPathError(err))
	}
	return strings.TrimSpace(string(data)), nil
}

// readSysInt reads a sysfs attribute that holds a non-negative integer.
func readSysInt(fsys fs.FS, root, dir, name string) (int, error) {
	text, err := readSysFile(fsys, root, dir, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a non-negative integer", displayPath(root, dir, name), text)
	}
	return n, nil
}

// readOptionalSysInt is readSysInt for attributes some kernels omit (ways
// and sets on several ARM systems); an absent file reads as 0.
func readOptionalSysInt(fsys fs.FS, root, dir, name string) (int, error) {
	if _, err := fs.Stat(fsys, path.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return readSysInt(fsys, root, dir, name)
}

// parseSysSize reads a sysfs cache size: a number of bytes with an optional
// K, M or G suffix (binary multiples), such as "48K" or "32768K".
func parseSysSize(text string) (int, error) {
	multiplier := 1
	digits := text
	if n := len(text); n > 0 {
		switch text[n-1] {
		case 'K':
			multiplier, digits = 1<<10, text[:n-1]
		case 'M':
			multiplier, digits = 1<<20, text[:n-1]
		case 'G':
			multiplier, digits = 1<<30, text[:n-1]
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > maxBytes/multiplier {
		return 0, fmt.Errorf("%q is not a cache size like 48K", text)
	}
	return n * multiplier, nil
}

// displayPath joins root and elems for messages; with an empty root the path
// stays relative to the fs.FS.
func displayPath(root string, elems ...string) string {
	return path.Join(append([]string{root}, elems...)...)
}

// unwrapPathError drops the *fs.PathError wrapper, whose path is relative to
// the fs.FS, so that messages carry the full path only once.
func unwrapPathError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}
