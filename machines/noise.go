package machines

import "go.yaml.in/yaml/v4"

// noise reads messages.noise: the synchronisation noise law excess(T) =
// time + per_compute·T (docs/machines.md). It needs its own source: it is
// measured apart from the message law.
func (d *decoder) noise(n *yaml.Node) *Noise {
	f, src := d.ownSourceSection(n, "messages.noise", "how the noise was measured", "time", "per_compute")
	return &Noise{
		Time:       d.reqNumber(f, "time", Time, nonNegative, src),
		PerCompute: d.reqNumber(f, "per_compute", Dimensionless, nonNegative, src),
		Source:     src,
	}
}
