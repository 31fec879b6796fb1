package machines

import "perfc/analyze/cache"

// CacheHierarchy is the machine's cache levels as the analyzer's geometry
// (analyze.Options.Cache), for the footprint warnings and the cache-line
// model, so that every caller counts against the same hierarchy the
// machine prices with. A line size the table does not give is assumed to
// be 64 B and an associativity it does not give to be full, and the
// level's source says so. It is nil when the table gives no caches or
// its levels do not make a valid hierarchy.
func (m *Machine) CacheHierarchy() cache.Hierarchy {
	var h cache.Hierarchy
	for _, c := range m.Memory().Caches() {
		l := cache.Level{Name: c.Name, Size: int(c.Size.Value), Line: int(c.Line.Value), Assoc: c.Assoc, Source: m.Name()}
		if l.Line <= 0 {
			l.Line = 64
			l.Source += " (line size assumed 64 B)"
		}
		if l.Assoc < 0 || l.Validate() != nil {
			l.Assoc = 0
			l.Source += " (associativity assumed full)"
		}
		h = append(h, l)
	}
	if h.Validate() != nil {
		return nil
	}
	return h
}
