package main

import (
	"context"
	"fmt"

	"perfc/codegen"
	"perfc/lang"
	"perfc/machinecode"
)

// buildCode generates and builds the kernel's timed program (as perfc
// check does, in the same cache, so a later check runs this very binary)
// and reads its machine code, for the pricing of compiled code
// (docs/predict.md, "In-core time from the compiled code").
func buildCode(ctx context.Context, k *lang.Checked, cacheDir string) (*machinecode.Code, error) {
	p, err := codegen.Generate(k, codegen.Options{})
	if err != nil {
		return nil, err
	}
	dir, err := p.Prepare(cacheDir)
	if err != nil {
		return nil, err
	}
	bin, err := codegen.Build(ctx, dir, false)
	if err != nil {
		return nil, fmt.Errorf("--code: %w", err)
	}
	code, err := machinecode.Read(ctx, dir, bin)
	if err != nil {
		return nil, fmt.Errorf("--code: %w", err)
	}
	return code, nil
}
