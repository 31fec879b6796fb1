package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"perfc/analyze"
	"perfc/lang"
)

// printRequests prints, per region with posts, the requests of the
// non-blocking messages: posted, completed by a wait, and overlapped
// (computation between the post and its wait).
func printRequests(w io.Writer, cl *analyze.Class) {
	if cl.Total.Requests.Posted.IsZero() {
		return
	}
	fmt.Fprintln(w, "requests (isend, irecv):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  region\tposted\tcompleted\toverlapped\t")
	row := func(name string, r analyze.RequestCounts) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", name, num(r.Posted), num(r.Completed), num(r.Overlapped))
	}
	for _, r := range cl.Regions {
		if !r.Counts.Requests.Posted.IsZero() {
			row(lang.Printable(r.Name), r.Counts.Requests)
		}
	}
	row("total", cl.Total.Requests)
	tw.Flush()
}
