package main

import (
	"errors"
	"fmt"
	"io"

	"perfc/analyze"
	"perfc/costmodel/emulate"
	"perfc/lang"
)

// scheduleArgs are count's flags for the schedule check.
type scheduleArgs struct {
	NoEmulation bool `help:"Do not emulate the ranks' schedules to find deadlocks (the emulation takes time in proportion to the messages sent, as in perfc predict; kernels without messages are never emulated)."`
	limitArgs
}

// checkSchedule runs every rank's schedule of a kernel that has
// point-to-point messages, as perfc predict and perfc emulate do, only to
// find the schedules that cannot complete (a deadlock, with its chain of
// waits; message sizes that differ; ranks at different collectives).
// Messages block, as the language defines them, whatever a machine's eager
// limit would let through. Kernels without send, recv, sendrecv or
// exchange are not emulated, so counting them stays as fast as before; for
// the others it costs what predict's emulation costs (--no-emulation
// skips it). The check has the emulation's budgets: when it reaches one,
// the counts already printed stand, and a warning on stderr says that no
// deadlock was looked for past it and how to raise the budget.
func (a scheduleArgs) checkSchedule(k *lang.Checked, stderr io.Writer) error {
	if a.NoEmulation || !hasPointToPoint(k) {
		return nil
	}
	limits, err := a.limits()
	if err != nil {
		return err
	}
	_, err = emulate.Emulate(k, untimed{}, emulate.EmulateOptions{Limits: limits})
	var budget *emulate.BudgetError
	if errors.As(err, &budget) {
		fmt.Fprintf(stderr, "warning: the deadlock check stopped at a budget, and the counts above are complete: %s\n", lang.Printable(budget.Error()))
		return nil
	}
	return err
}

// hasPointToPoint reports whether the kernel has a point-to-point
// statement, on any rank (count --rank analyses only one).
func hasPointToPoint(k *lang.Checked) bool {
	found := false
	lang.Inspect(k.Kernel.Body, func(n lang.Node) bool {
		if s, ok := n.(*lang.CommStmt); ok {
			switch s.Kind {
			case lang.Send, lang.Recv, lang.SendRecv, lang.Exchange, lang.ISend, lang.IRecv:
				found = true
			}
		}
		return !found
	})
	return found
}

// untimed is a emulate.Pricer that prices everything at zero and makes
// every send wait for its receiver: the order of events, and so whether
// the ranks can complete, is all count needs.
type untimed struct{}

func (untimed) Compute(*analyze.Work) float64                        { return 0 }
func (untimed) Message(src, dst, bytes int64) float64                { return 0 }
func (untimed) Collective(kind, op, elem string, b, n int64) float64 { return 0 }
func (untimed) EagerLimit() int64                                    { return -1 }
func (untimed) Cluster() *emulate.Cluster                            { return nil }
