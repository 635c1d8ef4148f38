package mock

import (
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	sessionpkg "github.com/replymock/replymock/mock/internal/session"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/wire"
)

// apiContext is what an API handler needs beyond the request: the
// session and the scenario it runs in.
type apiContext struct {
	ss *session
	sc *Scenario
}

// apiHandler serves one API operation.
type apiHandler func(w http.ResponseWriter, r *http.Request, ac apiContext)

// apiOp is one API operation: a path and the methods it answers.
type apiOp struct {
	path    string
	methods []string
	handle  apiHandler
}

// apiTable lists the API's operations; serveAPI finds a request's by exact
// path (as sent, not cleaned or decoded) and method.
type apiTable []apiOp

func (t apiTable) find(escapedPath, method string) apiHandler {
	for i := range t {
		if t[i].path == escapedPath {
			for _, m := range t[i].methods {
				if m == method {
					return t[i].handle
				}
			}
		}
	}
	return nil
}

// plan is what happens to one API request, decided on arrival.
type plan struct {
	fault.Outcome           // the faults': the delay, the fault that acts on the answer, the journal's labels
	deny          *APIError // 401 or 429, when no fault answered first
	retryIn       time.Duration
	strict        bool // a request with warnings is answered 400
}

// exchange is what the server keeps of one request while it serves it,
// in one allocation: the answer's request id header, the response
// recorder and the request body capture.
type exchange struct {
	id   [1]string // the X-Request-Id header's value
	rec  recorder
	body capture
}

// serveAPI runs an /api/v1 request through the scenario: faults, auth
// and rate limit, then the API itself, and records it in the journal.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, x *exchange) {
	start := time.Now()
	requestID := x.id[0]
	x.rec.ResponseWriter, x.body.r = w, r.Body
	x.rec.hold = true
	rec, body := &x.rec, &x.body
	entry := journal.Record{Entry: JournalEntry{RequestID: requestID, Time: s.now(),
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}, Header: r.Header}
	warns := detectWarnings(r)
	if warns != nil {
		warns.setHeader(rec.Header())
		entry.Warnings = warns.texts()
		s.metrics.warned(warns)
	}
	var ss *session
	var p *plan
	defer func() {
		defer rec.release() // after the journal has the entry
		took := time.Since(start)
		entry.Status = rec.status
		s.metrics.observe(apiRoute(r.URL.Path), rec.status, entry.Scenario, took, p)
		s.logRequest(r, &entry, rec.status, start, took)
		if ss == nil {
			return // the request never got a session: nothing to journal
		}
		entry.DurationMS = float64(took.Microseconds()) / 1000
		entry.Body, entry.Truncated = body.buf.String(), body.cut || rec.cut
		entry.Resp, entry.More, entry.Lent = rec.first, rec.more, rec.firstLent
		s.st.Journals().Record(ss.Key(), entry)
	}()
	defer s.recoverPanic(rec, r) // before the journal's deferred call, so it records the 500

	sid := r.Header.Get(HeaderSession)
	if sid == "" {
		sid = DefaultSession
	} else if !validID(sid) {
		s.writeError(rec, r, wire.InvalidParameter(HeaderSession, msgBadSessionID))
		return
	}
	seed, err := requestSeed(r.Header)
	if err != nil {
		s.writeError(rec, r, err) // before the session is made: a bad request changes nothing
		return
	}
	entry.Session = sid
	var sc *Scenario
	ss, sc, err = s.resolve(sid, r.Header.Get(HeaderScenario))
	if err != nil {
		s.writeError(rec, r, err)
		return
	}
	entry.Scenario = sc.Name
	if seed == 0 {
		seed = sc.Seed
	}
	pl := s.plan(ss, sc, r, seed)
	p = &pl
	entry.Fault = strings.Join(p.Labels, ", ")

	if d := p.Delay(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			entry.Fault += " (client gone)"
			return
		}
	}
	goesUp := s.goesUpstream(r, sc)
	if p.Replaces() || p.deny != nil || warns != nil && warns.counts[warnBodyOnGet] > 0 && !goesUp {
		// No handler reads the body: read what the journal keeps of it.
		io.Copy(io.Discard, io.LimitReader(body, MaxJournalBody))
	}
	if p.Answer(rec) { // a fault's answer in place of the API's
		return
	}
	answer := func(w http.ResponseWriter) {
		switch {
		case p.deny == access.ErrUnauthorized:
			access.SetChallenge(w.Header(), access.RealmAPI)
			s.writeError(w, r, p.deny)
		case p.deny != nil:
			wire.SetRetryAfter(w.Header(), p.retryIn)
			s.writeError(w, r, p.deny)
		case p.strict && warns != nil:
			io.Copy(io.Discard, io.LimitReader(body, MaxJournalBody)) // for the journal
			s.writeError(w, r, warns.strictError())
		case goesUp:
			entry.Proxied = true // before: a broken upstream copy ends the handler
			s.passUpstream(w, r, body, sc)
		default:
			s.answerAPI(w, r, body, apiContext{ss, sc})
		}
	}
	out, end := p.Through(rec) // a fault may change the answer: cut it short
	answer(out)
	if end != nil {
		end()
	}
}

// logRequest logs an API request's line at level info, for a request
// that started at start and took took. LogAttrs would walk the stack for
// the call's program counter on every request: this one's is found once.
// And the clock was just read: now is start+took.
func (s *Server) logRequest(r *http.Request, e *journal.Record, status int, start time.Time, took time.Duration) {
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	line := slog.NewRecord(start.Add(took), slog.LevelInfo, "request", requestLogPC())
	line.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.String("session", e.Session), slog.String("scenario", e.Scenario),
		slog.String("request_id", e.RequestID), slog.String("fault", e.Fault))
	s.log.Handler().Handle(r.Context(), line)
}

// requestLogPC is the program counter of logRequest's caller, serveAPI's
// request line, as slog.Logger would record it for a handler's
// AddSource; found on the first call.
func requestLogPC() uintptr {
	if pc := logPC.Load(); pc != 0 {
		return uintptr(pc)
	}
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:]) // runtime.Callers, requestLogPC, logRequest, then its caller
	logPC.Store(uint64(pcs[0]))
	return pcs[0]
}

var logPC atomic.Uint64

// answerAPI runs the operation the request names, or answers 404 or 405.
// The handler reads the body through body, for the journal, on a shallow
// copy of r: the caller's request is not changed.
func (s *Server) answerAPI(w http.ResponseWriter, r *http.Request, body io.ReadCloser, ac apiContext) {
	h := s.api.find(r.URL.EscapedPath(), r.Method)
	if h == nil {
		s.router.ServeHTTP(w, r)
		return
	}
	h(w, withBody(r, body), ac)
}

// withBody is r, or a shallow copy of it whose body reads through body.
func withBody(r *http.Request, body io.ReadCloser) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	r2 := *r
	r2.Body = body
	return &r2
}

// goesUpstream reports whether sc's proxy takes r: a path replymock has
// no operation for, or one its proxy lists.
func (s *Server) goesUpstream(r *http.Request, sc *Scenario) bool {
	spec := s.proxies.Spec(sc.Proxy())
	return spec != nil && spec.Takes(strings.TrimPrefix(r.URL.Path, APIPrefix), s.api.find(r.URL.EscapedPath(), r.Method) != nil)
}

// passUpstream sends r to sc's real service and its answer back as it
// streams (a recorder stops holding it), the body read through body.
func (s *Server) passUpstream(w http.ResponseWriter, r *http.Request, body io.ReadCloser, sc *Scenario) {
	if rec, ok := w.(*recorder); ok {
		rec.passThrough()
	}
	s.proxies.Forward(w, withBody(r, body), s.proxies.Spec(sc.Proxy()).URL)
}

// plan decides faults, auth and the rate limit for a request, advancing
// the session's counters; seed is the one of its fault draws.
func (s *Server) plan(ss *session, sc *Scenario, r *http.Request, seed int64) plan {
	var p plan
	req := fault.Request{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, APIPrefix), Seed: seed}
	p.Outcome = ss.Meet(sc, s.st.SharedOverrides(), req, func(o fault.Outcome, turn sessionpkg.Turn) fault.Outcome {
		p.strict = turn.Overrides.Strictness(sc.Strict(), s.strict)
		if o.Replaces() {
			return o
		}
		auth, rl := turn.Overrides.Access(sc.Auth(), sc.RateLimit())
		if !auth.Allows(r.Header.Get("Authorization")) {
			p.deny = access.ErrUnauthorized
			return o
		}
		if rl != nil {
			if retryIn, ok := turn.Window.Admit(rl, s.now()); !ok {
				p.deny, p.retryIn = access.ErrRateLimited(rl), retryIn
				o.Labels = append(o.Labels, "rate limit")
			}
		}
		return o
	})
	return p
}
