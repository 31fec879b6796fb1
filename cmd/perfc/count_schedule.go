package main

import (
	"perfc/analyze"
	"perfc/costmodel"
	"perfc/lang"
)

// checkSchedule runs every rank's schedule of a kernel that sends
// messages, as perfc predict and perfc emulate do, only to find the
// schedules that cannot complete (a deadlock, with its chain of waits;
// message sizes that differ; ranks at different collectives). Messages
// block, as the language defines them, whatever a machine's eager limit
// would let through. Kernels without point-to-point messages are not
// emulated, so counting them stays as fast as before.
func checkSchedule(k *lang.Checked, rep *analyze.Report) error {
	if !hasMessages(rep) {
		return nil
	}
	_, err := costmodel.Emulate(k, untimed{}, costmodel.EmulateOptions{})
	return err
}

// hasMessages reports whether any rank sends or receives a point-to-point
// message.
func hasMessages(rep *analyze.Report) bool {
	for _, cl := range rep.Classes {
		if len(cl.Total.Messages) > 0 {
			return true
		}
	}
	return false
}

// untimed is a costmodel.Pricer that prices everything at zero and makes
// every send wait for its receiver: the order of events, and so whether
// the ranks can complete, is all count needs.
type untimed struct{}

func (untimed) Compute(*analyze.Work) float64                        { return 0 }
func (untimed) Message(src, dst, bytes int64) float64                { return 0 }
func (untimed) Collective(kind, op, elem string, b, n int64) float64 { return 0 }
func (untimed) EagerLimit() int64                                    { return -1 }
func (untimed) Cluster() *costmodel.Cluster                          { return nil }
