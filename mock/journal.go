package mock

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
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
	// Truncated is set when the entry lost anything: a body or the
	// response cut to MaxJournalBody, or what Cut names.
	Truncated bool `json:"truncated,omitempty"`
	// Cut says what the journal left out of an oversized request, one
	// part a line: "query: kept 16384 of 61440 bytes".
	Cut []string `json:"cut,omitempty"`
	// Warnings are the client's mistakes the API let through (or, in
	// strict mode, answered with a 400), as X-Mock-Warning gives them.
	Warnings []string `json:"warnings,omitempty"`
	// Proxied is set when the request went to the real service (a
	// scenario's proxy, or --proxy), not to replymock's fake.
	Proxied bool `json:"proxied,omitempty"`
}

// JournalFilter selects journal entries; zero fields match everything.
// It is the pattern of GET /__mock/requests and /__mock/verify too.
type JournalFilter struct {
	Session string // a session id; "" or AllSessions means every session
	Method  string // in any case
	Path    string // exact path, or a prefix ending in "*"
	// Query wants query parameters by name, each with its value (one of
	// its values, when given more than once), decoded.
	Query map[string]string
	// Header wants headers by name, in any case, each with its value as
	// the journal shows it (values joined by ", "), or one of its values.
	// Credential headers (Authorization, Cookie, ...) are journaled
	// redacted: they match by scheme ("Bearer") or as journaled ("Bearer
	// [redacted]"), never by their secret.
	Header map[string]string
	// Body wants values in a JSON body by dotted path, an array taking an
	// index ("feedback.0.tone"): a string as it is, anything else as its
	// JSON text (1, 1.5, true, null; numbers as the client wrote them).
	Body  map[string]string
	Limit int   // the newest Limit entries; 0 means all
	Since int64 // only entries with a larger Seq (for polling)
}

// MaxJournalBody is how much of a request or response body an entry keeps.
const MaxJournalBody = 32 << 10

// MaxJournalHead is how much an entry keeps of each of a request's
// method, path and query, of its headers together (names and values,
// with a few bytes each for their bookkeeping), and of the labels of the
// faults it met. Beyond it the entry is kept trimmed, and its Cut says
// what went.
const MaxJournalHead = 16 << 10

// DefaultJournalSize is how many entries each session's journal keeps.
const DefaultJournalSize = 1000

// What an entry costs beyond the bytes of its strings and bodies, counted
// against Options.JournalBytes with them: the record, its slot in its
// session's ring and in the order of all journals, and the header map's
// structure (a slot and a value slice a name, a string header a value).
const (
	recordCost      = int64(unsafe.Sizeof(journalRecord{})+unsafe.Sizeof(orderItem{})) + 128
	headerNameCost  = 64
	headerValueCost = 16
	chunkCost       = 24 // a slice header for each further chunk of the response
)

// journalRecord is an entry as kept: the request's header map and the
// bodies by reference, turned into JournalEntry only when listed, so that
// recording costs a request no copies. A record never changes once kept,
// so a listing reads it without the lock.
type journalRecord struct {
	JournalEntry
	header http.Header
	resp   []byte   // the response body as written: its first chunk,
	more   [][]byte // and the others, if it was written in several
	kept   int64    // what the record keeps alive, measured once by record
	copied bool     // method, path and query are copies, not parts of the request line
}

// measure is what the record keeps alive, in bytes. Method, path and
// query as received are cut from the request line, which they keep
// alive whole, and which holds the path as sent: up to three times as
// long as the decoded path (%XX for a byte). So the path counts three
// times, unless they are copies.
func (r *journalRecord) measure() int64 {
	path := 3 * int64(len(r.Path))
	if r.copied {
		path = int64(len(r.Path))
	}
	n := recordCost + path + int64(len(r.Method)+len(r.Query)+len(r.RequestID)+len(r.Session)+
		len(r.Scenario)+len(r.Fault)+len(r.Body)) + int64(cap(r.resp))
	for _, c := range r.more {
		n += chunkCost + int64(cap(c))
	}
	for _, c := range r.Cut {
		n += 16 + int64(len(c))
	}
	for _, w := range r.Warnings {
		n += 16 + int64(len(w))
	}
	return n + headerBytes(r.header)
}

// headerBytes is what header h keeps: its names and values, and the
// map's structure for them.
func headerBytes(h http.Header) int64 {
	var n int64
	for k, vs := range h {
		n += fieldBytes(k, vs)
	}
	return n
}

func fieldBytes(name string, values []string) int64 {
	n := headerNameCost + int64(len(name)) + headerValueCost*int64(len(values))
	for _, v := range values {
		n += int64(len(v))
	}
	return n
}

// trim cuts a request's oversized parts to MaxJournalHead, noting each
// in Cut.
func (r *journalRecord) trim() {
	line := []struct {
		name string
		s    *string
	}{{"method", &r.Method}, {"path", &r.Path}, {"query", &r.Query}}
	for _, p := range line {
		if len(*p.s) > MaxJournalHead {
			r.copied = true
		}
	}
	if r.copied {
		// A part kept whole would keep the whole line alive: copy them all.
		for _, p := range line {
			*p.s = strings.Clone(r.cutString(p.name, *p.s))
		}
	}
	if len(r.Fault) > MaxJournalHead {
		r.Fault = strings.Clone(r.cutString("fault", r.Fault))
	}
	if headerBytes(r.header) > MaxJournalHead {
		r.trimHeaders()
	}
}

// cutString returns s cut to MaxJournalHead on a character boundary,
// noting the cut of part.
func (r *journalRecord) cutString(part, s string) string {
	if len(s) <= MaxJournalHead {
		return s
	}
	n := MaxJournalHead
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	r.Cut = append(r.Cut, fmt.Sprintf("%s: kept %d of %d bytes", part, n, len(s)))
	r.Truncated = true
	return s[:n]
}

// trimHeaders keeps, in the order of their names, the headers that fit
// in MaxJournalHead together, and drops the others.
func (r *journalRecord) trimHeaders() {
	names := make([]string, 0, len(r.header))
	for k := range r.header {
		names = append(names, k)
	}
	slices.Sort(names)
	kept := make(http.Header)
	var used, total int64
	var dropped []string
	for _, k := range names {
		n := fieldBytes(k, r.header[k])
		total += n
		if used+n > MaxJournalHead {
			dropped = append(dropped, k)
			continue
		}
		// The values are strings of their own, but their slice may share
		// an array with every other header's: copy it.
		kept[k] = slices.Clone(r.header[k])
		used += n
	}
	const listed = 5
	more := ""
	if len(dropped) > listed {
		more = fmt.Sprintf(" and %d more", len(dropped)-listed)
		dropped = dropped[:listed]
	}
	r.Cut = append(r.Cut, fmt.Sprintf("headers: kept %d of %d bytes; dropped %s%s", used, total, strings.Join(dropped, ", "), more))
	r.Truncated = true
	r.header = kept
}

// strip leaves an entry only what names the request: for a budget too
// small to hold it whole.
func (r *journalRecord) strip(budget int64) {
	r.Cut = []string{fmt.Sprintf("all but method and path: the entry (%d bytes) is larger than the journal's whole budget (%d bytes)", r.kept, budget)}
	r.Method, r.Path, r.copied = strings.Clone(r.Method), strings.Clone(r.Path), true
	r.Query, r.Fault, r.Body, r.header, r.resp, r.more, r.Truncated = "", "", "", nil, nil, nil, true
	r.Warnings = nil
	r.kept = r.measure()
}

func (r *journalRecord) entry() JournalEntry {
	e := r.JournalEntry
	e.Headers = flatHeaders(r.header)
	e.Cut = slices.Clone(r.Cut) // the caller's to change
	e.Warnings = slices.Clone(r.Warnings)
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
	entries []*journalRecord // grows up to size, then wraps; nil when empty
	head    int              // the oldest entry
	n       int
	size    int
	lost    int64 // the newest Seq of an entry lost to the bounds since the last clear
}

// add appends e, dropping the oldest entry when the ring is full, and
// returns how many bytes the ring now keeps more (or fewer).
func (j *journal) add(e *journalRecord) int64 {
	if j.size <= 0 {
		return 0
	}
	if j.n == len(j.entries) && j.n < j.size {
		// Full but allowed to grow: double, oldest first, up to size.
		grown := make([]*journalRecord, min(max(2*j.n, 8), j.size))
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
	j.lost = max(j.lost, j.entries[j.head].Seq)
	j.entries[j.head] = e
	j.head = (j.head + 1) % len(j.entries)
	return e.kept - freed
}

// freedByAdd is what the next add frees: the oldest entry, when the
// ring is full.
func (j *journal) freedByAdd() int64 {
	if j.size <= 0 || j.n < j.size {
		return 0
	}
	return j.entries[j.head].kept
}

// dropOldest removes the oldest entry if its sequence number is seq, and
// returns the bytes freed.
func (j *journal) dropOldest(seq int64) int64 {
	if j.n == 0 || j.entries[j.head].Seq != seq {
		return 0 // already gone: overwritten, cleared or reset
	}
	freed := j.entries[j.head].kept
	j.lost = max(j.lost, seq)
	j.entries[j.head] = nil
	j.head = (j.head + 1) % len(j.entries)
	j.n--
	if j.n == 0 {
		j.entries, j.head = nil, 0 // a session emptied by others' entries keeps no ring
	}
	return freed
}

// all returns the entries, oldest first.
func (j *journal) all() []*journalRecord {
	out := make([]*journalRecord, 0, j.n)
	for i := range j.n {
		out = append(out, j.entries[(j.head+i)%len(j.entries)])
	}
	return out
}

// bytes is what the ring's entries keep.
func (j *journal) bytes() int64 {
	var n int64
	for i := range j.n {
		n += j.entries[(j.head+i)%len(j.entries)].kept
	}
	return n
}

// journalOrder remembers which session holds each journal entry, oldest
// first, to bound the entries and bytes of all sessions together: the
// oldest entry anywhere goes first.
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

// pop removes the oldest item, if any.
func (o *journalOrder) pop() (orderItem, bool) {
	if o.n == 0 {
		return orderItem{}, false
	}
	it := o.ring[o.head]
	o.ring[o.head] = orderItem{}
	o.head = (o.head + 1) % len(o.ring)
	o.n--
	return it, true
}

// record adds an entry to the session's journal. Everything an entry
// keeps counts against the byte budget of all journals (Options.JournalBytes):
// method, path, query, headers, bodies, labels and a fixed cost for the
// record itself. A request's method, path, query and headers are first cut
// to MaxJournalHead each (Cut says what went). Over the budget, or over
// the entry budget, the oldest entries of any session go until the new
// one fits: the newest requests are the ones a test asks about. An entry
// larger than the whole budget is kept with only its method and path, or,
// if even that is too large, not at all. It holds s.journalMu throughout,
// so entries reach the journals in the order of their sequence numbers,
// and the bytes kept never exceed the budget.
func (s *Server) record(ss *session, e journalRecord) {
	e.trim()
	e.kept = e.measure()
	if e.kept > s.journalMax {
		e.strip(s.journalMax)
	}
	r := &e
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	defer s.wakeWaiters() // once the entry is in, or known to stay out
	s.seq++
	r.Seq = s.seq
	ss.mu.Lock()
	keeps := !ss.dropped && ss.journal.size > 0
	freed := ss.journal.freedByAdd()
	ss.mu.Unlock()
	if !keeps || r.kept > s.journalMax {
		s.lose(ss, r.Seq)
		return
	}
	// Only this function adds bytes, under journalMu; others only free
	// them. So once the entry fits, it still fits when it goes in.
	for s.journalUsed.Load()-freed+r.kept > s.journalMax {
		out, ok := s.order.pop()
		if !ok {
			s.lose(ss, r.Seq)
			return // nothing left to evict, and still no room: not kept
		}
		out.ss.mu.Lock()
		s.journalUsed.Add(-out.ss.journal.dropOldest(out.seq))
		out.ss.mu.Unlock()
		if out.ss == ss {
			ss.mu.Lock()
			freed = ss.journal.freedByAdd()
			ss.mu.Unlock()
		}
	}
	ss.mu.Lock()
	if ss.dropped {
		ss.mu.Unlock()
		return
	}
	s.journalUsed.Add(ss.journal.add(r))
	ss.mu.Unlock()
	if out, full := s.order.push(orderItem{ss, r.Seq}); full {
		out.ss.mu.Lock()
		s.journalUsed.Add(-out.ss.journal.dropOldest(out.seq))
		out.ss.mu.Unlock()
	}
}

// lose notes that the session's journal did not keep entry seq.
func (s *Server) lose(ss *session, seq int64) {
	ss.mu.Lock()
	if !ss.dropped {
		ss.journal.lost = max(ss.journal.lost, seq)
	}
	ss.mu.Unlock()
}

// snapshot returns the entries that match f, oldest first; none for an
// invalid f. It copies references under the sessions' locks, never
// bytes: entries never change once kept, so the caller reads them
// without a lock.
func (s *Server) snapshot(f JournalFilter) []*journalRecord {
	m, err := f.compile()
	if err != nil {
		return nil
	}
	return s.find(f.scope(), m, f.Limit)
}

// Requests returns the journal entries that match f, oldest first. An
// invalid pattern (see Verify) matches nothing.
func (s *Server) Requests(f JournalFilter) []JournalEntry {
	return entries(s.snapshot(f))
}

// entries turns records into the entries they list as; nil for none.
func entries(recs []*journalRecord) []JournalEntry {
	if len(recs) == 0 {
		return nil
	}
	out := make([]JournalEntry, len(recs))
	for i, r := range recs {
		out[i] = r.entry()
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
	"X-Api-Key":           true,
	"Api-Key":             true,
	"X-Auth-Token":        true,
}

// authSchemes are the schemes a redacted value may keep, lower-cased:
// IANA's HTTP Authentication Scheme Registry and a few in common use.
// Any other first word may be part of the secret itself.
var authSchemes = map[string]bool{
	"basic": true, "bearer": true, "concealed": true, "digest": true, "dpop": true,
	"gnap": true, "hoba": true, "mutual": true, "negotiate": true, "oauth": true,
	"privatetoken": true, "scram-sha-1": true, "scram-sha-256": true, "vapid": true,
	"ntlm": true, "token": true, "aws4-hmac-sha256": true,
}

// redacted stands for a secret in the journal.
const redacted = "[redacted]"

// redactValues keeps each value's scheme ("Bearer [redacted]") when it is
// a known one, or nothing of it but that it was there.
func redactValues(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		scheme, _, found := strings.Cut(strings.TrimSpace(v), " ")
		if found && authSchemes[strings.ToLower(scheme)] {
			out[i] = scheme + " " + redacted
		} else {
			out[i] = redacted
		}
	}
	return out
}

// recorder passes a response through, keeping its status and the start
// of its body for the journal. It keeps the written slices themselves:
// the API's handlers write each body from a buffer they never reuse.
// (The admin API's streamed answers reuse theirs, but admin requests are
// not journaled: of them, the recorder is read only for the status.)
//
// Holding, it sends nothing until release: an API answer reaches the
// client only after its journal entry is in, so a test that has its
// answer finds the request in the journal.
type recorder struct {
	http.ResponseWriter
	status int
	first  []byte   // the first slice written,
	more   [][]byte // and the others: most answers are written at once
	kept   int
	cut    bool

	hold  bool
	held  [][]byte // what was written while holding
	flush bool     // a flush was asked for while holding
	// copies is set for a writer that reuses its buffer (the proxy's
	// copy loop): what the journal keeps is copied.
	copies bool
}

// passThrough stops holding before anything is written: the answer
// streams to the client as it comes (a proxied one may be large or
// slow), and the journal keeps copies of its start.
func (w *recorder) passThrough() {
	w.copies = true
	w.release()
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
	if room := MaxJournalBody - w.kept; len(b) > room {
		w.cut = true
		keep = nil
		if room > 0 {
			keep = bytes.Clone(b[:room]) // not the whole buffer
		}
	}
	if w.copies && len(keep) > 0 && &keep[0] == &b[0] {
		keep = bytes.Clone(keep)
	}
	switch {
	case keep == nil:
	case w.first == nil && w.more == nil:
		w.first = keep
	default:
		w.more = append(w.more, keep)
	}
	w.kept += len(keep)
	if w.hold {
		w.held = append(w.held, b)
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// FlushError flushes what was sent, or, holding, notes that release
// must flush.
func (w *recorder) FlushError() error {
	if w.hold {
		w.flush = true
		return nil
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// discard forgets an answer being held, so that another takes its place
// (a handler that panicked halfway); what was sent already cannot be
// taken back.
func (w *recorder) discard() {
	if w.hold {
		w.status, w.first, w.more, w.kept, w.cut, w.held, w.flush = 0, nil, nil, 0, false, nil, false
	}
}

// release sends what was held, if anything was written, and stops
// holding.
func (w *recorder) release() {
	if !w.hold {
		return
	}
	w.hold = false
	if w.status == 0 {
		return // nothing was answered: a dropped connection, or a client gone
	}
	w.ResponseWriter.WriteHeader(w.status)
	for _, b := range w.held {
		if _, err := w.ResponseWriter.Write(b); err != nil {
			break
		}
	}
	w.held = nil
	if w.flush {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
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
