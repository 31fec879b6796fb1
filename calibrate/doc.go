// Package calibrate benchmarks the machine perfc runs on into a machine
// table: it generates the papers' low-level benchmarks (TICK1, RINF1,
// the working-set and stride sweeps, COMMS1-3, SYNCH1, the collectives) as
// kernels, builds and runs them with the code generator's runtime (the
// one perfc check runs), fits their parameters by least squares and
// writes a table that `perfc predict -m host.yaml` reads (docs/calibrate.md).
package calibrate
