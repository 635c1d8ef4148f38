package api

import (
	"bytes"
	"io"
	"net/http"

	"github.com/replymock/replymock/mock/internal/journal"
)

// recorder passes a response through, keeping its status and the start
// of its body for the journal. It keeps the written slices, not copies:
// the API's handlers never reuse a buffer but one they lend it, which
// the journal copies. Admin answers reuse theirs, but only their status
// is read.
//
// While holding, it sends nothing until release, so a test that has an
// API answer finds the request in the journal.
type recorder struct {
	http.ResponseWriter
	status int
	first  []byte // most answers are written at once
	more   [][]byte
	kept   int
	sent   int // the body's bytes, kept or not
	cut    bool

	hold bool
	held [][]byte // what was written while holding
	// heldOne is held's first backing array: most answers are one
	// slice, so holding them allocates nothing.
	heldOne [1][]byte
	flush   bool // asked for while holding
	// lent is a pooled buffer the answer is written from, put back once
	// sent; firstLent says first is part of it.
	lent      *[]byte
	firstLent bool
	copies    bool // the writer reuses its buffer (the proxy): keep copies
}

func (w *recorder) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		return // an informational answer is not the answer
	}
	if w.status == 0 {
		w.status = code
	}
	if !w.hold {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	keep := b
	w.sent += len(b)
	if room := journal.MaxBody - w.kept; len(b) > room {
		w.cut = true
		keep = nil
		if room > 0 {
			keep = bytes.Clone(b[:room]) // not the whole buffer
		}
	}
	aliased := len(keep) > 0 && &keep[0] == &b[0]
	fromLent := aliased && w.lent != nil && len(*w.lent) > 0 && &b[0] == &(*w.lent)[0]
	if aliased && (w.copies || fromLent && (w.first != nil || w.more != nil)) {
		keep = bytes.Clone(keep)
		fromLent = false
	}
	switch {
	case keep == nil:
	case w.first == nil && w.more == nil:
		w.first, w.firstLent = keep, fromLent
	default:
		w.more = append(w.more, keep)
	}
	w.kept += len(keep)
	if w.hold {
		if w.held == nil {
			w.held = w.heldOne[:0]
		}
		w.held = append(w.held, b)
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// FlushError flushes, or notes that release must.
func (w *recorder) FlushError() error {
	if w.hold {
		w.flush = true
		return nil
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// discard forgets an answer being held, so that another takes its place
// (a handler that panicked halfway).
func (w *recorder) discard() {
	if w.hold {
		w.status, w.first, w.more, w.kept, w.sent, w.cut, w.held, w.flush = 0, nil, nil, 0, 0, false, nil, false
		w.firstLent = false
		w.putLent()
	}
}

// putLent puts the lent buffer (writePooled) back in its pool, once the
// answer is sent or discarded and the journal has its copy.
func (w *recorder) putLent() {
	if w.lent == nil {
		return
	}
	if w.firstLent {
		w.first, w.firstLent = nil, false
	}
	w.held, w.heldOne[0] = nil, nil
	putPageBuffer(w.lent)
	w.lent = nil
}

// release sends what was held and stops holding.
func (w *recorder) release() {
	if !w.hold {
		return
	}
	w.hold = false
	defer w.putLent() // net/http copies what it is given
	if w.status == 0 {
		return // nothing was answered: a dropped connection, or a client gone
	}
	w.ResponseWriter.WriteHeader(w.status)
	for _, b := range w.held {
		if _, err := w.ResponseWriter.Write(b); err != nil {
			break
		}
	}
	w.held, w.heldOne[0] = nil, nil
	if w.flush {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// capture reads a request body through, keeping its start.
type capture struct {
	r    io.ReadCloser
	buf  bytes.Buffer
	read int // the bytes read, kept or not
	cut  bool
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	b := p[:n]
	if room := journal.MaxBody - c.buf.Len(); len(b) > room {
		b, c.cut = b[:max(room, 0)], true
	}
	c.buf.Write(b)
	return n, err
}

func (c *capture) Close() error { return c.r.Close() }
