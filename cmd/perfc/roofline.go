package main

import (
	"fmt"

	"perfc/costmodel"
	"perfc/roofline"
)

// rooflineCmd is `perfc roofline`.
type rooflineCmd struct {
	kernelArgs
	budgetArgs
	machineArgs
	outputArg
	Plot string `placeholder:"FILE.svg|FILE.png" help:"Draw the roofline: log-log axes, the ceilings as lines, each region and level as a point."`
}

// Run predicts the kernel, places its regions on the machine's roofline and
// prints it (and draws it with --plot).
func (c *rooflineCmd) Run(e env) error {
	if err := checkPlotName(c.Plot, "the roofline"); err != nil {
		return err
	}
	k, err := loadKernel(e, c.kernelArgs)
	if err != nil {
		return err
	}
	rep, m, err := c.budgetArgs.countOn(e, k, c.machineArgs)
	if err != nil {
		return err
	}
	pred, err := costmodel.Predict(k, rep, m, costmodel.Options{})
	if err != nil {
		return positioned(e, err, k.File.Source)
	}
	r, err := roofline.Build(rep, pred, m)
	if err != nil {
		return err
	}
	if c.Plot != "" {
		if err := r.Save(c.Plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	if c.Output == "json" {
		return writeJSON(e.stdout, r)
	}
	return r.WriteTable(e.stdout)
}
