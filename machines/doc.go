// Package machines holds perfc's machine tables: what a machine costs,
// number by number, with where each number comes from.
//
// A table is a YAML file (docs/machines.md describes the schema). It is read
// strictly: unknown keys, numbers without units, quantities of the wrong
// dimension, entries without a source and costs that go negative are errors
// that name file:line:col, and every error of a file is reported at once.
//
// Quantities carry a dimension (Quantity, Dim) built from four base units,
// s, B, flop and mref, so that "50MB/s" where a time belongs is caught when
// the table loads. Costs are small expressions over run-time variables and
// the table's parameters ("84.65us + 0.117us/B * bytes", "T_s + bytes/bw"),
// or measured tables interpolated piecewise linearly; they are parsed and
// dimension-checked once and evaluate without allocating (Cost, Vars).
//
// The built-in tables (Builtin, BuiltinNames) transcribe the five source
// papers (keys [000]…[004], docs/references.md): the IMH machines (sp2, t3e, origin2000), the CM-5 (cm5-32,
// cm5-512), the NWT, the PARKBENCH Appendix C machines, LANL's Blue
// Mountain and the unit-cost machine for step counting.
//
// A Machine is immutable once built; With returns a new machine with -M
// parameter values for what-if studies (ParseAssignments reads them). The package prices nothing itself: package
// costmodel reads the accessors (Messages, Collective, MPICH, Compute,
// Memory, Cluster, Disk) and combines them with a kernel's counts.
package machines
