package mock

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// JournalEntry is one API request as the journal keeps it.
type JournalEntry struct {
	Seq        int64             `json:"seq"`
	RequestID  string            `json:"request_id"`
	Time       time.Time         `json:"time"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Query      string            `json:"query"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	Status     int               `json:"status"` // 0 when the connection was dropped
	DurationMS float64           `json:"duration_ms"`
	Session    string            `json:"session"`
	Scenario   string            `json:"scenario"`
	Fault      string            `json:"fault,omitempty"` // what was injected, e.g. "error 503"
	Response   string            `json:"response"`
	Truncated  bool              `json:"truncated,omitempty"` // body or response cut to MaxJournalBody
}

// JournalFilter selects journal entries; zero fields match everything.
type JournalFilter struct {
	Session string // a session id; "" or AllSessions means every session
	Method  string
	Path    string // exact path, or a prefix ending in "*"
	Limit   int    // the newest Limit entries; 0 means all
	Since   int64  // only entries with a larger Seq (for polling)
}

// MaxJournalBody is how much of a request or response body an entry keeps.
const MaxJournalBody = 32 << 10

// DefaultJournalSize is how many entries each session's journal keeps.
const DefaultJournalSize = 1000

// journalRecord is an entry as kept: the request's header map and the
// bodies by reference, turned into JournalEntry only when listed, so that
// recording costs a request no copies.
type journalRecord struct {
	JournalEntry
	header http.Header
	resp   []byte   // the response body as written: its first chunk,
	more   [][]byte // and the others, if it was written in several
	kept   int64    // what the record keeps alive, measured once by record
}

// measure is what the record keeps alive: bodies and the request's header.
func (r *journalRecord) measure() int64 {
	n := int64(len(r.Body)) + int64(cap(r.resp))
	for _, c := range r.more {
		n += int64(cap(c))
	}
	for k, vs := range r.header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}

func (r *journalRecord) entry() JournalEntry {
	e := r.JournalEntry
	e.Headers = flatHeaders(r.header)
	if len(r.more) == 0 {
		e.Response = string(r.resp)
		return e
	}
	var b strings.Builder
	b.Write(r.resp)
	for _, c := range r.more {
		b.Write(c)
	}
	e.Response = b.String()
	return e
}

// journal is a bounded ring of entries, oldest first. Its owner's mutex
// guards it.
type journal struct {
	entries []journalRecord // grows up to size, then wraps
	head    int             // the oldest entry
	n       int
	size    int
}

// add appends e, dropping the oldest entry when the ring is full, and
// returns how many body bytes the ring now keeps more (or fewer).
func (j *journal) add(e journalRecord) int64 {
	if j.size <= 0 {
		return 0
	}
	if j.n == len(j.entries) && j.n < j.size {
		// Full but allowed to grow: double, oldest first, up to size.
		grown := make([]journalRecord, min(max(2*j.n, 8), j.size))
		for i := range j.n {
			grown[i] = j.entries[(j.head+i)%len(j.entries)]
		}
		j.entries, j.head = grown, 0
	}
	if j.n < len(j.entries) {
		j.entries[(j.head+j.n)%len(j.entries)] = e
		j.n++
		return e.kept
	}
	freed := j.entries[j.head].kept
	j.entries[j.head] = e
	j.head = (j.head + 1) % len(j.entries)
	return e.kept - freed
}

// dropOldest removes the oldest entry if its sequence number is seq, and
// returns the body bytes freed.
func (j *journal) dropOldest(seq int64) int64 {
	if j.n == 0 || j.entries[j.head].Seq != seq {
		return 0 // already gone: overwritten, cleared or reset
	}
	freed := j.entries[j.head].kept
	j.entries[j.head] = journalRecord{}
	j.head = (j.head + 1) % len(j.entries)
	j.n--
	return freed
}

// all returns the entries, oldest first.
func (j *journal) all() []journalRecord {
	out := make([]journalRecord, 0, j.n)
	for i := range j.n {
		out = append(out, j.entries[(j.head+i)%len(j.entries)])
	}
	return out
}

// bytes is the body bytes the ring keeps.
func (j *journal) bytes() int64 {
	var n int64
	for i := range j.n {
		n += j.entries[(j.head+i)%len(j.entries)].kept
	}
	return n
}

// list returns the matching entries, oldest first.
func (j *journal) list(f JournalFilter) []JournalEntry {
	var out []JournalEntry
	for i := range j.n {
		r := &j.entries[(j.head+i)%len(j.entries)]
		if f.matches(r.JournalEntry) {
			out = append(out, r.entry())
		}
	}
	return out
}

func (f JournalFilter) matches(e JournalEntry) bool {
	if e.Seq <= f.Since || f.Method != "" && !strings.EqualFold(f.Method, e.Method) {
		return false
	}
	if p, ok := strings.CutSuffix(f.Path, "*"); ok {
		return strings.HasPrefix(e.Path, p)
	}
	return f.Path == "" || f.Path == e.Path
}

// journalOrder remembers which session holds each journal entry, oldest
// first, to bound the entries of all sessions together: when it is full,
// the oldest entry anywhere goes.
type journalOrder struct {
	ring []orderItem
	head int
	n    int
}

type orderItem struct {
	ss  *session
	seq int64
}

// push records an entry and returns the item it pushed out, if full.
func (o *journalOrder) push(it orderItem) (orderItem, bool) {
	if len(o.ring) == 0 {
		return it, true // no room at all: the new entry itself goes
	}
	if o.n < len(o.ring) {
		o.ring[(o.head+o.n)%len(o.ring)] = it
		o.n++
		return orderItem{}, false
	}
	old := o.ring[o.head]
	o.ring[o.head] = it
	o.head = (o.head + 1) % len(o.ring)
	return old, true
}

// record adds an entry to the session's journal. Over the server's byte
// budget, the entry is kept without its bodies and headers; over its entry
// budget, the oldest entry of any session goes. It holds s.journalMu
// throughout, so entries reach the journals in the order of their sequence
// numbers.
func (s *Server) record(ss *session, e journalRecord) {
	e.kept = e.measure()
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	s.seq++
	e.Seq = s.seq
	if s.journalUsed.Load()+e.kept > s.journalMax {
		e.Body, e.resp, e.more, e.header, e.Truncated, e.kept = "", nil, nil, nil, true, 0
	}
	ss.mu.Lock()
	if ss.dropped || ss.journal.size <= 0 {
		ss.mu.Unlock()
		return
	}
	s.journalUsed.Add(ss.journal.add(e))
	ss.mu.Unlock()
	if out, full := s.order.push(orderItem{ss, e.Seq}); full {
		out.ss.mu.Lock()
		s.journalUsed.Add(-out.ss.journal.dropOldest(out.seq))
		out.ss.mu.Unlock()
	}
}

// Requests returns the journal entries that match f, oldest first.
func (s *Server) Requests(f JournalFilter) []JournalEntry {
	sid := f.Session
	if sid == "" {
		sid = AllSessions
	}
	var out []JournalEntry
	for _, ss := range s.sessionsOf(sid) {
		ss.mu.Lock()
		out = append(out, ss.journal.list(f)...)
		ss.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b JournalEntry) int { return int(a.Seq - b.Seq) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

// ClearRequests empties the journal of session, or of every session.
func (s *Server) ClearRequests(sid string) {
	for _, ss := range s.sessionsOf(sid) {
		ss.mu.Lock()
		s.journalUsed.Add(-ss.journal.bytes())
		ss.journal = journal{size: ss.journal.size}
		ss.mu.Unlock()
	}
}

// flatHeaders joins each header's values, as the journal lists them,
// with the secrets a client sends redacted: whoever reads the journal
// (a CI log, the control panel) must not learn a real token.
func flatHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if secretHeaders[http.CanonicalHeaderKey(k)] {
			v = redactValues(v)
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// secretHeaders carry credentials; the journal keeps their scheme only.
var secretHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"X-Mock-Admin-Token":  true,
}

// redacted stands for a secret in the journal.
const redacted = "[redacted]"

// redactValues keeps each value's scheme ("Bearer [redacted]"), or
// nothing of it but that it was there.
func redactValues(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		scheme, _, found := strings.Cut(strings.TrimSpace(v), " ")
		if found && isToken(scheme) {
			out[i] = scheme + " " + redacted
		} else {
			out[i] = redacted
		}
	}
	return out
}

// recorder passes a response through, keeping its status and the start
// of its body for the journal. It keeps the written slices themselves:
// the server's handlers write each body from a buffer they never reuse.
type recorder struct {
	http.ResponseWriter
	status int
	first  []byte   // the first slice written,
	more   [][]byte // and the others: most answers are written at once
	kept   int
	cut    bool
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	keep := b
	if room := MaxJournalBody - w.kept; len(b) > room {
		w.cut = true
		keep = nil
		if room > 0 {
			keep = bytes.Clone(b[:room]) // not the whole buffer
		}
	}
	switch {
	case keep == nil:
	case w.first == nil && w.more == nil:
		w.first = keep
	default:
		w.more = append(w.more, keep)
	}
	w.kept += len(keep)
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// capture reads a request body through, keeping its start.
type capture struct {
	r   io.ReadCloser
	buf bytes.Buffer
	cut bool
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	keep(&c.buf, &c.cut, p[:n])
	return n, err
}

func (c *capture) Close() error { return c.r.Close() }

// keep appends b to buf up to MaxJournalBody, noting a cut.
func keep(buf *bytes.Buffer, cut *bool, b []byte) {
	room := MaxJournalBody - buf.Len()
	if len(b) > room {
		b, *cut = b[:max(room, 0)], true
	}
	buf.Write(b)
}
