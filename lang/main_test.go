package lang_test

import "flag"

// update rewrites the golden files under testdata/ instead of comparing
// against them: go test ./lang -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")
