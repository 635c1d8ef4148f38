package mock

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Headers that steer the mock per request.
const (
	HeaderScenario = "X-Mock-Scenario"
	HeaderSession  = "X-Mock-Session"
)

var sessionIDRE = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)

// newRNG is the source of a session's random choices in one scenario:
// the same seed and session id give the same sequence.
func newRNG(seed int64, sessionID string) *rand.Rand {
	h := fnv.New64a()
	io.WriteString(h, sessionID)
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

type ctxKey struct{}

// apiContext is what an API handler needs beyond the request.
type apiContext struct {
	ss *session
	sc *Scenario
}

func apiFrom(r *http.Request) apiContext {
	ac, _ := r.Context().Value(ctxKey{}).(apiContext)
	return ac
}

// plan is what happens to one API request, decided on arrival.
type plan struct {
	delay    time.Duration
	answer   *Fault // the fault that errors or drops instead of the API; nil for none
	truncate bool   // cut whatever the answer is in half
	labels   []string
	deny     error // 401 or 429, when no fault answered first
	retryIn  time.Duration
	authFail bool
}

// serveAPI runs an /api/v1 request through the scenario: faults, auth
// and rate limit, then the API itself, and records it in the journal.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	body := &capture{r: r.Body}
	r.Body = body
	entry := journalRecord{JournalEntry: JournalEntry{RequestID: r.Header.Get(HeaderRequestID), Time: s.now(),
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}, header: r.Header}
	var ss *session
	var p *plan
	defer func() {
		took := time.Since(start)
		entry.Status = rec.status
		s.metrics.observe(apiRoute(r.URL.Path), rec.status, entry.Scenario, took, p)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			slog.String("session", entry.Session), slog.String("scenario", entry.Scenario),
			slog.String("request_id", entry.RequestID), slog.String("fault", entry.Fault))
		if ss == nil {
			return // the request never got a session: nothing to journal
		}
		entry.DurationMS = float64(took.Microseconds()) / 1000
		entry.Body, entry.Truncated = body.buf.String(), body.cut || rec.cut
		entry.resp = rec.chunks
		s.record(ss, entry)
	}()
	defer s.recoverPanic(rec, r) // before the journal's deferred call, so it records the 500

	sid := r.Header.Get(HeaderSession)
	if sid == "" {
		sid = DefaultSession
	} else if !sessionIDRE.MatchString(sid) {
		s.writeError(rec, r, invalidParameter(HeaderSession, "must be 1 to 128 letters, digits or ._:@-"))
		return
	}
	var sc *Scenario
	var err error
	ss, sc, err = s.resolve(sid, r.Header.Get(HeaderScenario))
	entry.Session = sid
	if err != nil {
		s.writeError(rec, r, err)
		return
	}
	entry.Scenario = sc.Name
	pl := s.plan(ss, sc, r)
	p = &pl
	entry.Fault = strings.Join(p.labels, ", ")

	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			entry.Fault += " (client gone)"
			return
		}
	}
	if p.answer != nil || p.deny != nil {
		// No handler reads the body: read what the journal keeps of it.
		io.Copy(io.Discard, io.LimitReader(body, MaxJournalBody))
	}
	switch f := p.answer; {
	case f == nil:
	case f.Error != nil:
		writeFaultError(rec, f.Error)
		return
	case f.Drop:
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	}
	answer := func(w http.ResponseWriter) {
		if p.deny != nil {
			if p.authFail {
				w.Header().Set("WWW-Authenticate", `Bearer realm="replymock"`)
			} else {
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(p.retryIn.Seconds()))))
			}
			s.writeError(w, r, p.deny)
			return
		}
		s.router.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, apiContext{ss, sc})))
	}
	if p.truncate {
		writeTruncated(rec, answer)
		return
	}
	answer(rec)
}

// plan decides faults, auth and the rate limit for a request, advancing
// the session's counters.
func (s *Server) plan(ss *session, sc *Scenario, r *http.Request) plan {
	apiPath := strings.TrimPrefix(r.URL.Path, APIPrefix)
	s.mu.Lock()
	global, over := s.faults, s.overrides
	s.mu.Unlock()

	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.state(sc)
	var p plan
	consider := func(f *Fault, c *faultCounter) {
		terminal := f.Error != nil || f.Drop || f.Truncate
		if terminal && (p.answer != nil || p.truncate) {
			return // an earlier fault decided the answer: this one is not reached, nor counted
		}
		if !f.matches(r.Method, apiPath) || !f.decide(c, st.rng) {
			return
		}
		if f.Latency != nil {
			p.delay += f.Latency.sample(st.rng)
		}
		switch {
		case f.Truncate:
			p.truncate = true
		case terminal:
			p.answer = f
		}
		p.labels = append(p.labels, f.label())
	}
	for i := range sc.faults {
		consider(&sc.faults[i], &st.counters[i])
	}
	if ss.counters == nil {
		ss.counters = make(map[*Fault]*faultCounter)
	}
	for _, f := range append(global[:len(global):len(global)], ss.faults...) {
		c, ok := ss.counters[f]
		if !ok {
			c = &faultCounter{}
			ss.counters[f] = c
		}
		consider(f, c)
	}
	p.delay = min(p.delay, MaxLatency)
	if p.answer != nil {
		return p
	}
	auth, rateLimit := sc.auth, sc.rateLimit
	if over.Auth != nil {
		auth = authSpec{Type: over.Auth.Type, Tokens: over.Auth.Tokens}
	}
	if over.RateLimit != nil {
		rateLimit = over.RateLimit
	}
	if auth.Type == "bearer" && !tokenOK(r.Header.Get("Authorization"), auth.Tokens) {
		p.authFail = true
		p.deny = &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
			Message: "this scenario requires Authorization: Bearer <token>"}
		return p
	}
	if rl := rateLimit; rl != nil {
		now := s.now()
		if st.window.IsZero() || now.Sub(st.window) >= rl.Window.D() {
			st.window, st.inWindow = now, 0
		}
		st.inWindow++
		if st.inWindow > rl.Requests {
			p.retryIn = max(st.window.Add(rl.Window.D()).Sub(now), time.Second)
			p.deny = &APIError{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
				Message: fmt.Sprintf("rate limit of %d requests per %s exceeded", rl.Requests, rl.Window)}
			p.labels = append(p.labels, "rate limit")
		}
	}
	return p
}

// tokenOK compares the bearer token with each allowed one in constant time.
func tokenOK(header string, tokens []string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return false
	}
	match := 0
	for _, t := range tokens {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(t))
	}
	return match == 1
}

// label says in the journal what a fault did.
func (f *Fault) label() string {
	var parts []string
	if f.Name != "" {
		parts = append(parts, f.Name+":")
	}
	if f.Latency != nil {
		parts = append(parts, "latency")
	}
	switch {
	case f.Error != nil:
		parts = append(parts, fmt.Sprintf("error %d", f.Error.Status))
	case f.Drop:
		parts = append(parts, "drop")
	case f.Truncate:
		parts = append(parts, "truncate")
	}
	return strings.Join(parts, " ")
}

// writeTruncated sends what answer writes with its headers and a
// Content-Length for the whole body, but only half the body, and then
// closes the connection.
func writeTruncated(w http.ResponseWriter, answer func(http.ResponseWriter)) {
	buf := &bufferWriter{header: make(http.Header)}
	answer(buf)
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.body.Len()))
	w.WriteHeader(buf.status)
	w.Write(buf.body.Bytes()[:buf.body.Len()/2])
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

// record adds an entry to the session's journal. Over the server's byte
// budget, the entry is kept without its bodies and headers; over its entry
// budget, the oldest entry of any session goes. It holds s.mu throughout,
// so entries reach the journals in the order of their sequence numbers.
func (s *Server) record(ss *session, e journalRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	e.Seq = s.seq
	if s.journalUsed.Load()+e.size() > s.journalMax {
		e.Body, e.resp, e.header, e.Truncated = "", nil, nil, true
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

func flatHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// recorder passes a response through, keeping its status and the start
// of its body for the journal. It keeps the written slices themselves:
// the server's handlers write each body from a buffer they never reuse.
type recorder struct {
	http.ResponseWriter
	status int
	chunks [][]byte
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
	if room := MaxJournalBody - w.kept; len(b) > room {
		w.cut = true
		if room > 0 {
			w.chunks = append(w.chunks, bytes.Clone(b[:room])) // not the whole buffer
			w.kept += room
		}
	} else {
		w.chunks = append(w.chunks, b)
		w.kept += len(b)
	}
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

// bufferWriter holds a whole response in memory.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
