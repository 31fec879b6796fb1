// Package cache describes cache hierarchies and simulates them exactly.
//
// perfc prices memory traffic by the cache lines each level brings in and
// writes back. This package supplies the three things that pricing needs and
// that do not depend on the kernel language:
//
//   - the geometry of a hierarchy (Level, Hierarchy), written as text like
//     "L1=48KiB/64B/12,L2=1280KiB/64B/20" (ParseHierarchy, Hierarchy.String):
//     lines a power of two, and any whole number of sets (a 20 MiB 16-way L3
//     has 20,480);
//   - the geometry of the host, read from Linux sysfs (HostHierarchy,
//     ReadHierarchy), with a documented fallback (DefaultHierarchy);
//   - an exact LRU set-associative simulator (Simulator) against which the
//     analytic stride/reuse model in package analyze is checked.
//
// The simulator models every level as write-back and write-allocate with true
// LRU replacement per set, and the hierarchy as non-inclusive: a miss at one
// level is an access to the next, a dirty line evicted from one level is
// written into the next, and no level ever evicts lines from another. See
// Simulator for the exact order of events.
package cache
