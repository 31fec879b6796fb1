package codegen

import (
	"context"

	"perfc/lang"
)

// Steps of RunKernel, as its step callback names them: perfc check shows
// them on its progress line, perfc validate ignores them.
const (
	StepGenerating = "generating"
	StepBuilding   = "building"
	StepRunning    = "running"
)

// RunKernel is the path from a checked kernel to its running program that
// perfc check and perfc validate share, so that a validation measures
// exactly what a check does: Generate the program with opts, Prepare it
// under cacheDir ("" is the user cache directory), build its timed binary
// unless cached (WithBinary, which rebuilds a cached binary that does not
// start, once) and call use with the program, its directory and the
// binary. step, when not nil, is told each step as it starts; StepRunning
// comes once, before the first call of use.
func RunKernel(ctx context.Context, k *lang.Checked, opts Options, cacheDir string, step func(string),
	use func(p *Program, dir, bin string) error) error {
	if step == nil {
		step = func(string) {}
	}
	step(StepGenerating)
	p, err := Generate(k, opts)
	if err != nil {
		return err
	}
	dir, err := p.Prepare(cacheDir)
	if err != nil {
		return err
	}
	step(StepBuilding)
	running := false
	return WithBinary(ctx, dir, false, func(bin string) error {
		if !running { // a binary rebuilt because it did not start runs within this step
			step(StepRunning)
			running = true
		}
		return use(p, dir, bin)
	})
}
