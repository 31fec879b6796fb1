package machines

import "go.yaml.in/yaml/v4"

// noise reads messages.noise: the synchronisation noise law excess(T) =
// time + per_compute·T (docs/machines.md). It needs its own source: it is
// measured apart from the message law.
func (d *decoder) noise(n *yaml.Node) *Noise {
	f := d.mapping(n, "messages.noise", "time", "per_compute", "source")
	src := f.source("")
	if src == "" {
		d.errorf(f.node, "messages.noise has no source: add source: (how the noise was measured)")
	}
	return &Noise{
		Time:       d.reqNumber(f, "time", Time, nonNegative, src),
		PerCompute: d.reqNumber(f, "per_compute", Dimensionless, nonNegative, src),
		Source:     src,
	}
}
