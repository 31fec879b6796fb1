package machines

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Describe writes the whole table for people (`perfc machines NAME`): every
// number with its unit and source, section by section, then what the source
// does not give. Numbers perfc computed from others say how. Within a
// section, a source is printed once for a run of rows that share it.
func (m *Machine) Describe(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	d := &describer{w: tw}
	d.header(m)
	d.host(m.host)
	d.params(m.params)
	d.cores(m)
	d.compute(m.compute)
	d.memory(m.memory)
	if m.messages != nil {
		d.messages("messages", m.messages)
		for _, elem := range elemNames() {
			if v, ok := m.messages.byElem[elem]; ok {
				d.messages("messages for "+elem+" payloads", v)
			}
		}
		if x := m.messages.exchange; x != nil {
			d.messages("exchanges (a whole sendrecv event, n bytes each way)", x)
		}
		if x := m.messages.sendrecv; x != nil {
			d.messages("sendrecvs into another buffer (a whole event, n bytes each way, both partners at once)", x)
		}
		if x := m.messages.sharing; x != nil {
			d.messages("messages when the ranks outnumber the cores", x)
		}
		if x := m.messages.sameCore; x != nil {
			d.messages("messages between two ranks bound to one core (ranks outnumber the cores)", x)
		}
		if x := m.messages.local; x != nil {
			d.messages("messages whose payload stays with its sender (never received into)", x)
		}
		if q := m.messages.requests; q != nil {
			d.section("non-blocking requests (beyond the message's overheads, per request)")
			d.number("post", q.Post)
			d.number("wait", q.Wait)
		}
		if w := m.messages.wakeup; w != nil {
			d.section("wake-up of a rank that blocked")
			d.number("time", w.Time)
			d.number("after", w.After)
		}
		if n := m.messages.noise; n != nil {
			d.section("synchronisation noise (excess = time + per_compute × compute since the last synchronisation)")
			d.number("time", n.Time)
			d.number("per_compute", n.PerCompute)
		}
		if sc := m.messages.shared; sc != nil {
			d.section("messages when ranks outnumber the cores (copies at the same time)")
			d.number("factor on the bytes' time", sc.Factor)
		}
	}
	d.collectives(m.collectives)
	d.cluster(m.cluster)
	d.disk(m.disk)
	d.results(m.results)
	d.missing(m.missing)
	return tw.Flush()
}

// describer writes aligned rows of label, value and source.
type describer struct {
	w          io.Writer
	lastSource string // of the previous row in the section
}

func (d *describer) line(format string, args ...any) {
	fmt.Fprintf(d.w, format+"\n", args...)
}

// section starts a titled block.
func (d *describer) section(title string) {
	d.line("")
	d.line("%s", title)
	d.lastSource = ""
}

// row writes one entry; its source only if it differs from the row above.
func (d *describer) row(label, value, source string) {
	shown := source
	if source == d.lastSource {
		shown = `"`
	}
	d.lastSource = source
	d.line("  %s\t%s\t%s", label, value, shown)
}

// number writes one Number, noting when perfc computed it.
func (d *describer) number(label string, n Number) {
	d.row(label, n.String(), n.Source)
}

// optional writes a Number only if the table gave or implied it.
func (d *describer) optional(label string, n Number) {
	if n.Given || n.Source != "" {
		d.number(label, n)
	}
}

func (d *describer) header(m *Machine) {
	d.line("machine %s: %s", m.name, m.description)
	d.line("source: %s", m.source)
	if m.conventions != "" {
		d.line("conventions: %s", m.conventions)
	}
	if n, ok := m.Ranks(); ok {
		d.line("measured on: %s ranks", n)
	}
	d.line(`(a " in the source column repeats the source above it)`)
}

// host writes where the numbers were measured.
func (d *describer) host(host []HostField) {
	if len(host) == 0 {
		return
	}
	d.section("host (where the numbers were measured)")
	for _, h := range host {
		d.line("  %s\t%s", h.Key, h.Value)
	}
}

func (d *describer) params(params []Param) {
	if len(params) == 0 {
		return
	}
	d.section("params (override with -M name=value)")
	for _, p := range params {
		label := p.Name
		if p.About != "" {
			label += " (" + p.About + ")"
		}
		d.number(label, p.Number)
	}
}

func (d *describer) compute(c *Compute) {
	if c == nil {
		return
	}
	d.section("compute")
	if c.free {
		d.row("free", "every operation and memory access costs nothing", c.source)
	}
	for _, elem := range append([]string{""}, elemNames()...) {
		if n, ok := c.peak[elem]; ok {
			d.number(strings.TrimSpace("peak "+elem), n)
		}
	}
	d.optional("register rate", c.registerRate)
	d.optional("register multiply-add rate", c.registerMadd)
	d.optional("loop per iteration", c.loop.Iteration)
	d.optional("loop per entry", c.loop.Entry)
	d.optional("access per element loaded", c.access.Load)
	d.optional("access per element stored", c.access.Store)
	d.optional("clock per region entry", c.clock.Region)
	d.optional("clock per run", c.clock.Run)
	d.optional("start of a run whose ranks outnumber the cores", c.clock.SharedStart)
	d.optional("core cycle", c.core.Cycle)
	d.optional("core issue width (instructions per cycle)", c.core.Issue)
	d.optional("core loads per cycle", c.core.LoadPorts)
	d.optional("core stores per cycle", c.core.StorePorts)
	d.optional("core floating-point instructions per cycle", c.core.FPPorts)
	d.optional("core 64-byte code blocks per cycle", c.core.BlocksPerCycle)
	d.optional("core reorder window (entries priced by their code)", c.core.Window)
	d.optional("core reorder window's smooth-maximum exponent", c.core.WindowExponent)
	d.optional("core cycles per entry of a machine loop", c.core.Entry)
	for _, k := range slices.Sorted(maps.Keys(c.core.Divider)) {
		d.optional("core divider held by one "+k, c.core.Divider[k])
	}
	for _, k := range c.opOrder {
		d.number(opLabel("op", k), c.ops[k])
	}
	for _, f := range c.fallbacks {
		d.row("op "+f.op, fmt.Sprintf("priced as %s x %s", formatNumber(f.times, 10), f.as), f.source)
	}
	for _, k := range c.latencyOrder {
		d.number(opLabel("latency", k), c.latency[k])
	}
	d.optional("latency window", c.window)
	for _, v := range c.vectors {
		label := strings.TrimSpace("vector " + v.Form + " " + v.Elem)
		d.number(label+" work", v.Work)
		d.number(label+" rinf", v.Rinf)
		d.number(label+" nhalf", v.Nhalf)
		d.optional(label+" nv", v.Nv)
	}
	if c.imh != nil {
		d.number("imh T_n (per "+c.imh.TnPer+")", c.imh.Tn)
		d.number("imh T_c (per cache line)", c.imh.Tc)
		d.number("imh T_e (per unit of stride)", c.imh.Te)
	}
}

// opLabel names an operation entry: "op a&b&c div f64", "latency add f64"
// for an entry of every pattern.
func opLabel(table string, k opKey) string {
	return strings.Join(strings.Fields(table+" "+k.pattern+" "+k.op+" "+k.elem), " ")
}

func (d *describer) memory(m *Memory) {
	if m == nil {
		return
	}
	d.section("memory")
	d.row("compose", m.compose.String(), m.source)
	for _, c := range m.caches {
		d.number("cache "+c.Name+" size", c.Table.Size)
		if c.Table.Line.Given {
			d.number("cache "+c.Name+" line", c.Table.Line)
		} else {
			d.row("cache "+c.Name+" line", "not given", c.Table.Source)
		}
		d.row("cache "+c.Name+" assoc", describeAssoc(c.Table.Assoc), c.Table.Source)
		d.optional("cache "+c.Name+" bandwidth", c.Bandwidth)
		d.optional("cache "+c.Name+" line cost", c.LineCost)
	}
	d.optional("main bandwidth", m.main)
	if s := m.shared; s != nil {
		d.number("shared (slowdown from memory when every core streams)", s.Factor)
	}
	if m.writeAllocateGiven {
		d.row("write allocate", fmt.Sprint(m.writeAllocate), m.source)
	}
	for _, b := range m.bottlenecks {
		d.number("bottleneck "+b.Name+" rhat", b.Rhat)
		d.number("bottleneck "+b.Name+" fhalf", b.Fhalf)
		d.optional("bottleneck "+b.Name+" shalf", b.Shalf)
	}
	if m.cost != nil {
		d.row("cost (n, lines, stride, bytes)", m.cost.String(), m.cost.Source())
	}
	if m.global != nil {
		d.row("global (bytes, P)", m.global.String(), m.global.Source())
	}
}

// describeAssoc prints the ways of a cache.
func describeAssoc(ways int) string {
	switch {
	case ways < 0:
		return "not given"
	case ways == 0:
		return "fully associative"
	case ways == 1:
		return "direct mapped"
	}
	return fmt.Sprintf("%d-way", ways)
}

func (d *describer) messages(title string, mm *MessageModel) {
	d.section(title)
	d.row("model", mm.kind.String()+", start-up "+mm.startup.String(), mm.source)
	switch mm.kind {
	case HockneyModel:
		for i, h := range mm.ranges {
			prefix := ""
			if len(mm.ranges) > 1 {
				prefix = fmt.Sprintf("range %d ", i+1)
			}
			d.optional(prefix+"below", h.Below)
			d.optional(prefix+"fitted_to", h.FittedTo)
			d.number(prefix+"t0", h.T0)
			d.number(prefix+"rinf", h.Rinf)
			d.number(prefix+"nhalf", h.Nhalf)
			d.number(prefix+"pi0", h.Pi0)
		}
	case LogGPModel:
		d.number("L", mm.loggp.L)
		d.number("o", mm.loggp.O)
		d.number("g", mm.loggp.Gap)
		d.number("G", mm.loggp.GapPerByte)
	case ExprModel:
		d.row("time (bytes, level)", mm.time.String(), mm.time.Source())
	}
	net := mm.network
	topology := net.Topology
	if net.Topology == "fat_tree" {
		topology = fmt.Sprintf("fat tree of arity %d", net.Arity)
	}
	d.row("network", fmt.Sprintf("%s, base level %d", topology, net.BaseLevel), net.Source)
	d.optional("per level beyond the base", net.PerLevel)
	d.optional("eager limit", mm.eager)
}

func (d *describer) collectives(c *collectives) {
	if c == nil {
		return
	}
	d.section("collectives (bytes, P)")
	for _, r := range c.rows {
		label := strings.Join(r.kinds, ",")
		if r.op != "" {
			label += " " + r.op
		}
		if len(r.elems) > 0 {
			label += " " + strings.Join(r.elems, ",")
		}
		d.row(label, r.cost.String(), r.cost.Source())
		if r.afterBarrier != nil {
			d.row(label+" after a barrier", r.afterBarrier.String(), r.afterBarrier.Source())
		}
	}
	if c.mpich != nil {
		d.number("otherwise mpich alpha", c.mpich.Alpha)
		d.number("otherwise mpich beta", c.mpich.Beta)
		d.number("otherwise mpich gamma", c.mpich.Gamma)
	}
}

func (d *describer) cluster(c *Cluster) {
	if c == nil {
		return
	}
	d.section("cluster of SMP nodes (0 = whole grid / no limit)")
	d.number("node sx", c.sx)
	d.number("node sy", c.sy)
	d.number("links lx", c.lx)
	d.number("links ly", c.ly)
	d.row("intra-node messages", "as under messages", c.source)
	d.messages("inter-node messages", c.inter)
}

func (d *describer) disk(disk *Disk) {
	if disk == nil {
		return
	}
	d.section("disk")
	d.row("model", "start-up + bytes/bandwidth, read and write", disk.source)
	d.number("read start-up", disk.Read.Startup)
	d.number("read bandwidth", disk.Read.Bandwidth)
	d.number("write start-up", disk.Write.Startup)
	d.number("write bandwidth", disk.Write.Bandwidth)
}

func (d *describer) results(results []Result) {
	if len(results) == 0 {
		return
	}
	d.section("measured results (for reference; not used in pricing)")
	for _, r := range results {
		d.number(r.Name, r.Number)
	}
}

func (d *describer) missing(missing []string) {
	if len(missing) == 0 {
		return
	}
	d.section("not given by the source")
	for _, s := range missing {
		d.line("  - %s", s)
	}
}

// cores writes the cores the ranks share and the switch between them.
func (d *describer) cores(m *Machine) {
	n, ok := m.Cores()
	if !ok {
		return
	}
	d.section("cores (ranks beyond them share them: docs/emulate.md)")
	d.row("cores", n.String(), n.Source)
	if n, ok := m.CoreSwitch(); ok {
		d.row("core_switch (per message between ranks sharing cores)", n.String(), n.Source)
	}
}
