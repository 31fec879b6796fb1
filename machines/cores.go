package machines

// This file holds the table's keys for ranks that share cores: goroutine
// ranks on a host with fewer cores than ranks (docs/machines.md, "Ranks
// sharing cores"). It is kept apart so that other keys can be added to the
// table without touching it.

// coreSharing is what a table says about the cores its ranks share.
type coreSharing struct {
	count      Number // cores the ranks share; zero when the table does not say (every rank has its own)
	switchTime Number // time a core takes to switch from a rank that waits to one that is ready
}

// cores decodes the top-level keys cores and core_switch.
func (d *decoder) cores(f *fields, m *Machine) {
	m.cores.count = d.optNumber(f, "cores", Dimensionless, wholePositive, m.source)
	m.cores.switchTime = d.optNumber(f, "core_switch", Time, nonNegative, m.source)
	if m.cores.count.Given && f.has("cluster") {
		d.errorf(f.get("cores"), "cores (ranks sharing the cores of one host) and cluster (nodes of ranks, each with its own processor) exclude each other: give one of them")
	}
	if m.cores.switchTime.Given && !m.cores.count.Given {
		d.errorf(f.get("core_switch"), "core_switch is the cost of switching between ranks that share cores: give cores too (the number of cores the ranks share)")
	}
}

// Cores is the number of cores the kernel's ranks share, with its source;
// ok is false when the table does not say, which means every rank has a
// core of its own (the papers' machines). The emulator and the region
// table model P > C ranks on C cores (docs/emulate.md).
func (m *Machine) Cores() (n Number, ok bool) { return m.cores.count, m.cores.count.Given }

// CoreSwitch is the time a core takes to switch from a rank that waits for
// a message to a rank that is ready (a goroutine's park and wake-up),
// charged per message between ranks that share cores when there are more
// ranks than cores; ok is false when the table does not say (zero).
func (m *Machine) CoreSwitch() (n Number, ok bool) {
	return m.cores.switchTime, m.cores.switchTime.Given
}
