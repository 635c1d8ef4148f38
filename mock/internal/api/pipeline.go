package api

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// call is the session and scenario an operation runs in, with the
// faults it met and its journal entry.
type call struct {
	ss    *session.Session
	sc    *scenario.Scenario
	o     *fault.Outcome
	entry *journal.Record
}

// play lets the faults that play a live service change what the read
// shows through l, and notes in the journal what they did.
func (c call) play(l fault.Live) {
	if c.o == nil {
		return
	}
	for _, note := range c.o.Play(l) {
		c.entry.Fault = strings.TrimPrefix(c.entry.Fault+"; "+note, "; ")
	}
}

// plan is what happens to one API request, decided on arrival.
type plan struct {
	fault.Outcome
	deny    *wire.APIError // 401 or 429, when no fault answered first
	retryIn time.Duration
	strict  bool // a request with warnings is answered 400
}

// Exchange is what the server keeps of one request while it serves it,
// in one allocation.
type Exchange struct {
	ID [1]string // the X-Request-Id header's value, set by the caller
	// Public: the request came on a public listener, so the sessions and
	// scenarios it starts are bounded (shared.State.ResolveVisitor).
	Public bool
	rec    recorder
	body   capture
	// entry and plan are here, not on Serve's stack: the handlers' table
	// takes pointers to them, which would move each to the heap.
	entry journal.Record
	plan  plan
}

// Watch passes w through for an admin request, keeping its Status.
func (x *Exchange) Watch(w http.ResponseWriter) http.ResponseWriter {
	x.rec.ResponseWriter = w
	return &x.rec
}

// Status is the status the request was answered with; 0 for none yet.
func (x *Exchange) Status() int { return x.rec.status }

// Serve runs an /api/v1 request through the scenario: faults, auth and
// rate limit, then the API itself, and records it in the journal.
func (a *API) Serve(w http.ResponseWriter, r *http.Request, x *Exchange) {
	start := time.Now()
	requestID := x.ID[0]
	x.rec.ResponseWriter, x.body.r = w, r.Body
	x.rec.hold = true
	rec, body := &x.rec, &x.body
	entry := &x.entry
	*entry = journal.Record{Entry: journal.Entry{RequestID: requestID, Time: a.Now(),
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}, Header: r.Header}
	warns := detectWarnings(r)
	if warns != nil {
		warns.setHeader(rec.Header())
		entry.Warnings = warns.texts()
	}
	var ss *session.Session
	var p *plan
	defer func() {
		defer rec.release() // after the journal has the entry
		took := time.Since(start)
		entry.Status = rec.status
		a.journal(x, ss, entry, took)
		if warns != nil {
			a.metrics.warned(warns)
		}
		a.metrics.observe(apiRoute(r.URL.Path), rec.status, entry.Scenario, took, p)
		a.logRequest(r, entry, rec.status, start, took)
	}()
	defer Recover(a.Log, rec, r) // before the journal's deferred call, so it records the 500

	sid, err := SessionOf(r.Header)
	var seed int64
	if err == nil {
		seed, err = requestSeed(r.Header)
	}
	var scenarioName string
	if err == nil {
		scenarioName, err = shared.ScenarioHeader(r.Header)
	}
	if err != nil {
		a.refuse(rec, r, err) // before the session is made: a bad request changes nothing
		return
	}
	entry.Session = sid
	var sc *scenario.Scenario
	if x.Public { // within what its clients may start
		ss, sc, err = a.State.ResolveVisitor(sid, scenarioName, r.RemoteAddr)
	} else {
		ss, sc, err = a.State.Resolve(sid, scenarioName)
	}
	if err != nil {
		a.refuse(rec, r, err)
		return
	}
	entry.Scenario = sc.Name
	if e, ok := ss.TakeEviction(); ok { // not a client's mistake: strict mode does not refuse it
		text := e.Warning(sid)
		rec.Header().Add(HeaderWarning, warningValue(text))
		entry.Warnings = append(entry.Warnings, text)
	}
	if seed == 0 {
		seed = sc.Seed
	}
	p = &x.plan
	*p = a.plan(ss, sc, r, seed)
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
	goesUp := a.goesUpstream(r, sc)
	// A fault's answer, a refusal, strict mode's 400 and a GET with a body
	// that goes nowhere upstream leave the body unread by any handler:
	// read what the journal keeps of it.
	unread := p.Replaces() || p.deny != nil ||
		(p.strict && warns != nil) ||
		(warns != nil && warns.counts[warnBodyOnGet] > 0 && !goesUp)
	if unread {
		io.Copy(io.Discard, io.LimitReader(body, journal.MaxBody))
	}
	if p.Answer(rec) { // a fault's answer in place of the API's
		return
	}
	out, end := p.Through(rec) // a fault may change the answer: cut it short
	a.answer(out, r, body, p, warns, goesUp, call{ss, sc, &p.Outcome, entry})
	if !goesUp {
		a.keep(rec, r, ss.ID()) // before end: a fault that cuts the answer short ends the handler
	}
	if end != nil {
		end()
	}
}

// refuse answers a request whose steering headers are bad. A method or
// path that no operation takes is wrong first: it gets the router's 404
// or 405 with Allow, as without the headers.
func (a *API) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if find(r.URL.EscapedPath(), r.Method) == nil {
		a.Fallback.ServeHTTP(w, r)
		return
	}
	a.writeError(w, r, err)
}

// journal records a request's entry in ss's journal, if it has a
// session. An entry a fleet's store cannot take is lost.
func (a *API) journal(x *Exchange, ss *session.Session, entry *journal.Record, took time.Duration) {
	if ss == nil {
		return
	}
	rec, body := &x.rec, &x.body
	entry.DurationMS = float64(took.Microseconds()) / 1000
	entry.Body, entry.Truncated = body.buf.String(), body.cut || rec.cut
	if body.cut {
		entry.Cut = append(entry.Cut, fmt.Sprintf("body: kept %d of %d bytes read", body.buf.Len(), body.read))
	}
	if rec.cut {
		entry.Cut = append(entry.Cut, fmt.Sprintf("response: kept %d of %d bytes", rec.kept, rec.sent))
	}
	entry.Resp, entry.More, entry.Lent = rec.first, rec.more, rec.firstLent
	a.State.Journals().Record(ss.Key(), *entry)
}

// keep holds a write's success until what it changed is kept (the state
// folder), so that an answered write outlives the process; else the
// answer is the error.
func (a *API) keep(rec *recorder, r *http.Request, sid string) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || rec.status >= 300 {
		return
	}
	if err := a.State.SyncWrite(r.Context(), sid); err != nil {
		rec.discard()
		a.writeError(rec, r, err)
	}
}

// Headers that steer the mock per request.
const (
	HeaderScenario = shared.HeaderScenario
	HeaderSession  = shared.HeaderSession
	HeaderSeed     = "X-Mock-Seed"
)

// requestSeed is the seed a request's X-Mock-Seed header gives its fault
// draws, or 0 without one (the scenario's seed then applies).
func requestSeed(h http.Header) (int64, error) {
	vs := h.Values(HeaderSeed)
	switch len(vs) {
	case 0:
		return 0, nil
	case 1:
	default:
		return 0, wire.InvalidParameter(HeaderSeed, "given %d times; give it at most once", len(vs))
	}
	n, err := wire.ParseDigits(vs[0])
	if err != nil || n < 1 {
		return 0, wire.InvalidParameter(HeaderSeed, "must be an integer from 1 to %d, got %q", int64(math.MaxInt64), wire.Clip(vs[0]))
	}
	return n, nil
}

// SessionOf is the session an API request names in X-Mock-Session, or
// the default session. A bad id, "*" among them, is a 400.
func SessionOf(h http.Header) (string, error) {
	ids := h.Values(HeaderSession)
	if len(ids) == 0 {
		return session.Default, nil
	}
	sid := ids[0]
	if !session.ValidID(sid) { // "" too: an unset variable must not mean the default session
		return "", wire.InvalidParameter(HeaderSession, session.MsgBadID)
	}
	return sid, nil
}

// answer gives a request the answer p planned: the refusal of auth or
// the rate limit, strict mode's 400, the real service's answer, or the
// operation's (404 or 405 for none). The body is read through body, for
// the journal.
func (a *API) answer(w http.ResponseWriter, r *http.Request, body *capture, p *plan, warns *clientWarnings, goesUp bool, c call) {
	switch {
	case p.deny == access.ErrUnauthorized:
		access.SetChallenge(w.Header(), access.RealmAPI)
		a.writeError(w, r, p.deny)
	case p.deny != nil:
		wire.SetRetryAfter(w.Header(), p.retryIn)
		a.writeError(w, r, p.deny)
	case p.strict && warns != nil:
		first := warns.list[0]
		a.writeError(w, r, wire.InvalidParameter(first.field, "strict mode: %s", first.text))
	case goesUp:
		if err := proxy.CheckPath(r, Prefix); err != nil {
			a.writeError(w, r, err) // nothing leaves for a path that could lead out of the API there
			return
		}
		c.entry.Proxied = true // before: a broken upstream copy ends the handler
		if rec, ok := w.(*recorder); ok {
			rec.copies = true // the answer streams as it comes: the journal keeps copies
			rec.release()
		}
		a.Proxies.Forward(w, withBody(r, body), a.Proxies.Spec(c.sc.Proxy()).URL)
	default:
		if op := find(r.URL.EscapedPath(), r.Method); op != nil {
			op.handle(a, w, withBody(r, body), c)
		} else {
			a.Fallback.ServeHTTP(w, r)
		}
	}
}

// logRequest logs an API request's line at level info, as made by its
// caller, Serve, at start+took (the clock was just read).
func (a *API) logRequest(r *http.Request, e *journal.Record, status int, start time.Time, took time.Duration) {
	if !a.Log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // runtime.Callers, logRequest, then its caller
	line := slog.NewRecord(start.Add(took), slog.LevelInfo, "request", pcs[0])
	line.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.String("session", e.Session), slog.String("scenario", e.Scenario),
		slog.String("request_id", e.RequestID), slog.String("fault", e.Fault))
	a.Log.Handler().Handle(r.Context(), line)
}

// withBody is r, or a shallow copy of it whose body reads through body:
// the caller's request is not changed.
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
func (a *API) goesUpstream(r *http.Request, sc *scenario.Scenario) bool {
	spec := a.Proxies.Spec(sc.Proxy())
	return spec != nil && spec.Takes(strings.TrimPrefix(r.URL.Path, Prefix), find(r.URL.EscapedPath(), r.Method) != nil)
}

// plan decides faults, auth and the rate limit for a request, advancing
// the session's counters; seed is the one of its fault draws.
func (a *API) plan(ss *session.Session, sc *scenario.Scenario, r *http.Request, seed int64) plan {
	var p plan
	req := fault.Request{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, Prefix), Seed: seed, Shared: a.State.FaultCounter(ss.ID())}
	p.Outcome = ss.Meet(sc, a.State.SharedOverrides(), req, func(o fault.Outcome, turn session.Turn) fault.Outcome {
		p.strict = turn.Overrides.Strictness(sc.Strict(), a.Strict)
		if o.Replaces() {
			return o
		}
		auth, rl := turn.Overrides.Access(sc.Auth(), sc.RateLimit())
		if !auth.Allows(r.Header.Get("Authorization")) {
			p.deny = access.ErrUnauthorized
			return o
		}
		if rl != nil {
			if retryIn, ok := a.State.CountRequest(ss.ID(), sc.Name, turn.Window, rl, a.Now()); !ok {
				p.deny, p.retryIn = access.ErrRateLimited(rl), retryIn
				o.Labels = append(o.Labels, "rate limit")
			}
		}
		return o
	})
	if p.Limited {
		// The count of a fault that fires N times moved: kept before any
		// answer (a dropped connection's too), it fires N times across a
		// restart. A state folder that cannot keep it rolls the session
		// back to what it keeps, the count included, and the answer goes
		// on: the fault fired, and fires again as it would after a
		// restart, so memory never serves what a restart would not.
		a.State.SyncWrite(r.Context(), ss.ID())
	}
	return p
}
