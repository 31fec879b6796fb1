package emulate

import (
	"bufio"
	"io"
	"strconv"

	"perfc/lang"
)

// timelineWriter streams intervals as JSON lines (schema perfc.timeline/v1):
//
//	{"rank":3,"kind":"recv","posted":2,"start":4,"end":5,"peer":2,"bytes":512,"wave":1,"stmt":"wave.spmd:26:7","region":"receive"}
//
// Times are seconds. peer, from, bytes, wave, stmt and region are left out
// when they do not apply. The lines are built by hand rather than with
// encoding/json because a large emulation writes tens of millions of them.
//
// At most limit lines are written: a timeline is for reading and drawing,
// and tens of millions of events make gigabytes nobody reads. The events
// past the limit are counted in drops (Emulation.TimelineDropped), and the
// emulation carries on.
type timelineWriter struct {
	w     *bufio.Writer
	src   *lang.Source
	pos   map[*lang.CommStmt]string
	buf   []byte
	err   error
	lines int64
	limit int64 // the most lines written
	drops int64 // the events past the limit, not written
}

// newTimelineWriter writes at most limit lines to w, resolving positions in
// src.
func newTimelineWriter(w io.Writer, src *lang.Source, limit int64) *timelineWriter {
	return &timelineWriter{w: bufio.NewWriterSize(w, 1<<16), src: src, pos: map[*lang.CommStmt]string{}, limit: limit}
}

// write appends one interval, or counts it as dropped once the timeline is
// full.
func (t *timelineWriter) write(iv *Interval) {
	if t.lines >= t.limit {
		t.drops++
		return
	}
	if t.err != nil {
		return
	}
	b := t.buf[:0]
	b = append(b, `{"rank":`...)
	b = strconv.AppendInt(b, iv.Rank, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, iv.Kind.String()...)
	b = append(b, `","posted":`...)
	b = strconv.AppendFloat(b, iv.Posted, 'g', -1, 64)
	b = append(b, `,"start":`...)
	b = strconv.AppendFloat(b, iv.Start, 'g', -1, 64)
	b = append(b, `,"end":`...)
	b = strconv.AppendFloat(b, iv.End, 'g', -1, 64)
	if iv.Peer >= 0 {
		b = append(b, `,"peer":`...)
		b = strconv.AppendInt(b, iv.Peer, 10)
	}
	if iv.From >= 0 {
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, iv.From, 10)
	}
	if iv.Kind.IsComm() && iv.Kind != ActBarrier && iv.Kind != ActWait {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, iv.Bytes, 10)
	}
	if iv.Wave > 0 {
		b = append(b, `,"wave":`...)
		b = strconv.AppendInt(b, iv.Wave, 10)
	}
	if iv.Stmt != nil {
		b = append(b, `,"stmt":`...)
		b = strconv.AppendQuote(b, t.position(iv.Stmt))
	}
	if iv.Wait != nil {
		b = append(b, `,"stmt":`...)
		b = strconv.AppendQuote(b, t.src.Position(iv.Wait.Pos()).String())
	}
	if iv.Region != "" {
		b = append(b, `,"region":`...)
		b = strconv.AppendQuote(b, iv.Region)
	}
	if iv.CoreWait > 0 {
		b = append(b, `,"core_wait":`...)
		b = strconv.AppendFloat(b, iv.CoreWait, 'g', -1, 64)
	}
	b = append(b, "}\n"...)
	t.buf = b
	_, t.err = t.w.Write(b)
	t.lines++
}

// position returns the cached file:line:col of a statement.
func (t *timelineWriter) position(s *lang.CommStmt) string {
	p, ok := t.pos[s]
	if !ok {
		p = t.src.Position(s.Pos()).String()
		t.pos[s] = p
	}
	return p
}

// flush writes what is buffered and returns the first write error.
func (t *timelineWriter) flush() error {
	if t == nil {
		return nil
	}
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}
