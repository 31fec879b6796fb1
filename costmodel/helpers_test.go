package costmodel

import (
	"perfc/internal/kerneltest"
)

// loadKernel and checkSource load kernels for the tests (internal/kerneltest).
var (
	loadKernel  = kerneltest.Load
	checkSource = kerneltest.Check
)
