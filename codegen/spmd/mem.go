package spmd

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// MemAvailable returns the memory the kernel can use without swapping,
// in bytes: MemAvailable of /proc/meminfo.
func MemAvailable() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/meminfo: MemAvailable %q: %v", fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/proc/meminfo has no MemAvailable line")
}

// MemShare is the share of the available memory a kernel may use.
const MemShare = 0.8

// CheckMemory refuses a kernel that needs more than limit bytes, or, when
// limit is 0, more than MemShare of what available reports. It returns
// nil when the memory cannot be read (the kernel then runs unchecked).
func CheckMemory(need, limit int64, available func() (int64, error)) error {
	what := fmt.Sprintf("the limit of %s", FormatBytes(limit))
	if limit <= 0 {
		avail, err := available()
		if err != nil {
			return nil
		}
		limit = int64(MemShare * float64(avail))
		what = fmt.Sprintf("%.0f%% of the %s this machine has available", MemShare*100, FormatBytes(avail))
	}
	if need > limit {
		return fmt.Errorf("the kernel needs %s of memory for its arrays and message buffers, more than %s; lower the sizes or the rank count with -D",
			FormatBytes(need), what)
	}
	return nil
}

// FormatBytes prints a size with a binary prefix (KiB, MiB, GiB, TiB).
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// hostCores is the number of cores the machine has online: under mpirun a
// rank is bound to one core, and runtime.NumCPU (the cores this process
// may run on) says 1.
func hostCores() int {
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(data)), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		switch {
		case err1 != nil:
			return runtime.NumCPU()
		case !isRange:
			n++
		case err2 != nil || b < a:
			return runtime.NumCPU()
		default:
			n += b - a + 1
		}
	}
	return max(n, 1)
}
