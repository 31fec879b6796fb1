package comms

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Summary writes what a person checks after the communication benchmarks:
// what carried the messages, the message law's ranges (t0 and r∞ of each,
// the figures docs/mpi.md compares between the backends) and how many
// collective kinds a formula follows within 10 %.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "messages: %s\n", r.transport.Describe(partition))
	if r.messagesErr != nil {
		fmt.Fprintf(w, "messages: no Hockney law fits the pingpong; the table holds the measured points\n")
	} else {
		var parts []string
		for _, h := range r.messages.Laws {
			parts = append(parts, fmt.Sprintf("%s..%s t0 %s r∞ %s", fmtBytes(h.From), fmtBytes(h.To), fmtTime(h.T0), fmtRate(h.Rinf)))
		}
		fmt.Fprintf(w, "messages: COMMS1 %s (%s)\n", strings.Join(parts, "; "), describePiecewise(r.messages))
	}
	var fits, misses []string
	kinds := make([]string, 0, len(r.colls))
	for k := range r.colls {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		if r.colls[k].fits {
			fits = append(fits, k)
		} else {
			misses = append(misses, fmt.Sprintf("%s (rms %s)", k, percent(r.colls[k].formula.RMS())))
		}
	}
	line := fmt.Sprintf("collectives: a formula over bytes and P within 10 %% for %d of %d kinds", len(fits), len(kinds))
	if len(misses) > 0 {
		line += "; not for " + strings.Join(misses, ", ")
	}
	fmt.Fprintln(w, line)
}
