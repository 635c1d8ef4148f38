package mock

import (
	"math"
	"net/http"
	"regexp"

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

// idRE is what a session id and a client's request id may be.
var idRE = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)

// validID reports whether s may name a session or a request.
func validID(s string) bool { return idRE.MatchString(s) }

// msgBadSessionID says what a session id may be.
const msgBadSessionID = "must be 1 to 128 letters, digits or ._:@-"

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

// resolve picks the session and scenario of an API request, creating the
// session if needed. name is the X-Mock-Scenario header ("" for none).
func (s *Server) resolve(sid, name string) (*session, *Scenario, error) {
	ss := s.sessions.Open(sid)
	sc, err := s.scenarioOf(ss, name)
	if err != nil {
		return nil, nil, err
	}
	return ss, sc, nil
}

// peek is resolve for a request that only reads: a session that does not
// exist (or has expired) is not created, and the answer is about a fresh
// one, which is what the session would start as.
func (s *Server) peek(sid, name string) (*session, *Scenario, error) {
	ss := s.sessions.Look(sid)
	sc, err := s.scenarioOf(ss, name)
	return ss, sc, err
}

// scenarioOf is the scenario a request of ss uses: name if given, else
// the session's pick, else the server's.
func (s *Server) scenarioOf(ss *session, name string) (*Scenario, error) {
	if name == "" {
		name = ss.Pick()
	}
	sc, name, ok := s.registry.Get(name)
	if !ok {
		return nil, wire.InvalidParameter(HeaderScenario, "no scenario %q; GET /__mock/scenarios lists them", name)
	}
	return sc, nil
}

// Reset returns session (or every session, for AllSessions) to the start:
// scenario settings, fault counters, rate limits, run-time faults, living
// shops and the journal. Scenario choices stay: the server's and each
// session's; so do seeded reviews, which are the session's start (a
// living shop starts again on them). With AllSessions, the run-time
// faults for every session and the overrides go too.
func (s *Server) Reset(sid string) {
	if sid == AllSessions {
		// The faults for every session go first: a request meanwhile
		// meets none, rather than the old ones with fresh counters.
		s.faults.Drop(AllSessions)
		s.overridesMu.Lock()
		s.overrides = Overrides{}
		s.overridesMu.Unlock()
	}
	s.sessions.Reset(sid)
}
