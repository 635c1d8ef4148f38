package mock

import (
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/journal"
	sessionpkg "github.com/replymock/replymock/mock/internal/session"
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = sessionpkg.Default

// AllSessions, given as a session to Reset, AddFault and friends, means
// every session (for a fault: each session, counted separately).
const AllSessions = journal.AllSessions

// Headers that steer the mock per request.
const (
	HeaderScenario = api.HeaderScenario
	HeaderSession  = api.HeaderSession
	HeaderSeed     = api.HeaderSeed
)

// validID reports whether s may name a session or a request.
func validID(s string) bool { return sessionpkg.ValidID(s) }

// session is one caller's state on top of the scenarios' data, kept by
// the session store (mock/internal/session).
type session = sessionpkg.Session

// resolve picks the session and scenario of an API request
// (shared.State.Resolve).
func (s *Server) resolve(sid, name string) (*session, *Scenario, error) {
	return s.st.Resolve(sid, name)
}

// Reset returns session (or every session, for AllSessions) to the start:
// scenario settings, fault counters, rate limits, run-time faults, living
// shops and the journal. Scenario choices stay: the server's and each
// session's; so do seeded reviews, which are the session's start (a
// living shop starts again on them). With AllSessions, the run-time
// faults for every session and the overrides go too.
func (s *Server) Reset(sid string) { s.st.Reset(sid) }
