package machines

import "perfc/analyze/cache"

// CacheHierarchy is the machine's cache levels as the analyzer's geometry
// (analyze.Options.Cache), for the footprint warnings and the cache-line
// model, so that every caller counts against the same hierarchy the
// machine prices with: each Cache's Level, as the table was read
// (cacheLevel). It is nil when the table gives no caches or its levels do
// not make a valid hierarchy.
func (m *Machine) CacheHierarchy() cache.Hierarchy {
	var h cache.Hierarchy
	for _, c := range m.Memory().Caches() {
		h = append(h, c.Level)
	}
	if h.Validate() != nil {
		return nil
	}
	return h
}

// cacheLevel is the geometry of the cache level name of machine that the
// table writes as t. A line size the table does not give is assumed to be
// 64 B and an associativity it does not give (or one that does not make a
// valid level) to be full, and the level's source, the machine's name,
// says so.
func cacheLevel(machine, name string, t CacheTable) cache.Level {
	l := cache.Level{Name: name, Size: int(t.Size.Value), Line: int(t.Line.Value), Assoc: t.Assoc, Source: machine}
	if l.Line <= 0 {
		l.Line = 64
		l.Source += " (line size assumed 64 B)"
	}
	if l.Assoc < 0 || l.Validate() != nil {
		l.Assoc = 0
		l.Source += " (associativity assumed full)"
	}
	return l
}
