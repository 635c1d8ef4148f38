package mock

import (
	"math"
	"net/http"

	"github.com/replymock/replymock/mock/internal/journal"
	sessionpkg "github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = sessionpkg.Default

// AllSessions, given as a session to Reset, AddFault and friends, means
// every session (for a fault: each session, counted separately).
const AllSessions = journal.AllSessions

// Headers that steer the mock per request.
const (
	HeaderScenario = "X-Mock-Scenario"
	HeaderSession  = "X-Mock-Session"
	HeaderSeed     = "X-Mock-Seed"
)

// validID reports whether s may name a session or a request.
func validID(s string) bool { return sessionpkg.ValidID(s) }

// msgBadSessionID says what a session id may be.
const msgBadSessionID = sessionpkg.MsgBadID

// session is one caller's state on top of the scenarios' data, kept by
// the session store (mock/internal/session).
type session = sessionpkg.Session

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
		return 0, wire.InvalidParameter(HeaderSeed, "must be an integer from 1 to %d, got %q", int64(math.MaxInt64), clip(vs[0]))
	}
	return n, nil
}

// resolve picks the session and scenario of an API request
// (state.Resolve).
func (s *Server) resolve(sid, name string) (*session, *Scenario, error) {
	return s.st.Resolve(sid, name)
}

// peek is resolve for a request that only reads (state.Peek).
func (s *Server) peek(sid, name string) (*session, *Scenario, error) { return s.st.Peek(sid, name) }

// Reset returns session (or every session, for AllSessions) to the start:
// scenario settings, fault counters, rate limits, run-time faults, living
// shops and the journal. Scenario choices stay: the server's and each
// session's; so do seeded reviews, which are the session's start (a
// living shop starts again on them). With AllSessions, the run-time
// faults for every session and the overrides go too.
func (s *Server) Reset(sid string) { s.st.Reset(sid) }
