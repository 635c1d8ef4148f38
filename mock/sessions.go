package mock

import (
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/journal"
	sessionpkg "github.com/replymock/replymock/mock/internal/session"
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = sessionpkg.Default

// AllSessions, given as a session to Reset, AddFault and the like, means
// every session.
const AllSessions = journal.AllSessions

// Headers that steer the mock per request.
const (
	HeaderScenario = api.HeaderScenario
	HeaderSession  = api.HeaderSession
	HeaderSeed     = api.HeaderSeed
)

// validID reports whether s may name a session or a request.
func validID(s string) bool { return sessionpkg.ValidID(s) }

// Reset returns session sid, or every session with AllSessions, to the
// start: settings, fault counters, rate limits, run-time faults, living
// shops and the journal. Scenario choices and seeded reviews stay. With
// AllSessions, the overrides and the faults for every session go too.
func (s *Server) Reset(sid string) { s.st.Reset(sid) }
