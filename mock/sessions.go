package mock

import (
	"math/rand/v2"
	"regexp"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = "default"

// AllSessions, given as a session to Reset, AddFault and friends, means
// every session (for a fault: each session, counted separately).
const AllSessions = "*"

// Headers that steer the mock per request.
const (
	HeaderScenario = "X-Mock-Scenario"
	HeaderSession  = "X-Mock-Session"
)

// idRE is what a session id and a client's request id may be.
var idRE = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)

// validID reports whether s may name a session or a request.
func validID(s string) bool { return idRE.MatchString(s) }

// msgBadSessionID says what a session id may be.
const msgBadSessionID = "must be 1 to 128 letters, digits or ._:@-"

// session is one caller's mutable state on top of the scenarios' data.
type session struct {
	id       string
	lastUsed time.Time // guarded by Server.sessionsMu

	mu       sync.Mutex // guards the fields below
	scenario string     // picked with PUT /__mock/scenario; "" follows the server
	states   map[string]*scenarioState
	dropped  bool                     // reset or evicted: no longer in Server.sessions
	faults   []*Fault                 // run-time faults of this session
	counters map[*Fault]*faultCounter // of every fault the session's requests met
	journal  journal
}

func newSession(id string, journalSize int) *session {
	return &session{id: id, journal: journal{size: journalSize}}
}

// scenarioState is what a session changes while it uses one scenario.
type scenarioState struct {
	sc       *Scenario // the version the state belongs to
	settings Settings
	rng      *rand.Rand
	window   rateWindow
	shop     *shopState // the living shop, for a scenario with one
}

// state returns the session's state for sc; the caller holds ss.mu. A
// reloaded scenario keeps the session's settings but starts its fault
// counters, random sequence, rate limit and shop again.
func (ss *session) state(sc *Scenario) *scenarioState {
	if ss.states == nil {
		ss.states = make(map[string]*scenarioState)
	}
	st, ok := ss.states[sc.Name]
	if !ok {
		st = &scenarioState{settings: sc.settings}
		ss.states[sc.Name] = st
	}
	if st.sc != sc {
		if st.sc != nil {
			for i := range st.sc.faults {
				delete(ss.counters, &st.sc.faults[i])
			}
		}
		st.sc, st.shop = sc, nil
		st.rng = sc.rng(ss.id)
		st.window = rateWindow{}
	}
	return st
}

// counter returns the session's counter of fault f; the caller holds ss.mu.
func (ss *session) counter(f *Fault) *faultCounter {
	if ss.counters == nil {
		ss.counters = make(map[*Fault]*faultCounter)
	}
	c, ok := ss.counters[f]
	if !ok {
		c = &faultCounter{}
		ss.counters[f] = c
	}
	return c
}

// settings returns the session's settings in sc.
func (ss *session) settings(sc *Scenario) Settings {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state(sc).settings
}

// runShop brings the session's living shop in sc up to its clock and
// returns it; nil when sc's shop is not alive. The caller holds ss.mu.
func (ss *session) runShop(sc *Scenario, now time.Time) (*shopState, error) {
	if sc.shop == nil {
		return nil, nil
	}
	st := ss.state(sc)
	if st.shop == nil {
		sh, err := newShopState(sc, ss.id, now)
		if err != nil {
			return nil, err
		}
		st.shop = sh
	}
	at := st.shop.now(now)
	if st.shop.spec.Clock != "frozen" && at.Sub(st.shop.processed) < time.Second {
		return st.shop, nil // a real clock's shop runs at most once a second
	}
	return st.shop, st.shop.run(at, st.settings)
}

// reviews is the store the session's list reads in sc: the scenario's,
// or the session's living shop, brought up to its clock.
func (ss *session) reviews(sc *Scenario, now time.Time) (*reviews.Store, error) {
	if sc.shop == nil {
		return sc.store()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sh, err := ss.runShop(sc, now)
	if err != nil {
		return nil, err
	}
	return sh.st, nil
}

// resolve picks the session and scenario of an API request, creating the
// session if needed. name is the X-Mock-Scenario header ("" for none).
func (s *Server) resolve(sid, name string) (*session, *Scenario, error) {
	s.sessionsMu.Lock()
	ss := s.sessionLocked(sid)
	s.sessionsMu.Unlock()
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
	s.sessionsMu.Lock()
	ss, ok := s.sessions[sid]
	if ok && s.expired(ss, s.now()) {
		ok = false
	}
	s.sessionsMu.Unlock()
	if !ok {
		ss = newSession(sid, 0)
	}
	sc, err := s.scenarioOf(ss, name)
	return ss, sc, err
}

// scenarioOf is the scenario a request of ss uses: name if given, else
// the session's pick, else the server's.
func (s *Server) scenarioOf(ss *session, name string) (*Scenario, error) {
	if name == "" {
		ss.mu.Lock()
		name = ss.scenario
		ss.mu.Unlock()
	}
	s.scenariosMu.Lock()
	defer s.scenariosMu.Unlock()
	if name == "" {
		name = s.active
	}
	sc, ok := s.scenarios[name]
	if !ok {
		return nil, invalidParameter(HeaderScenario, "no scenario %q; GET /__mock/scenarios lists them", name)
	}
	return sc, nil
}

// expired reports whether ss has been unused for longer than the TTL; the
// default session never expires. The caller holds s.sessionsMu.
func (s *Server) expired(ss *session, now time.Time) bool {
	return ss.id != DefaultSession && now.Sub(ss.lastUsed) > s.sessionTTL
}

// sessionLocked returns the session id, creating it; the caller holds
// s.sessionsMu. Creating one first drops the sessions idle for longer
// than the TTL, then, at the limit, the least recently used.
func (s *Server) sessionLocked(id string) *session {
	now := s.now()
	ss, ok := s.sessions[id]
	if ok && s.expired(ss, now) {
		s.dropSessionLocked(id) // expired: it starts again
		ok = false
	}
	if !ok {
		var lru *session
		for oid, o := range s.sessions {
			switch {
			case oid == DefaultSession:
			case s.expired(o, now):
				s.dropSessionLocked(oid)
			case lru == nil || o.lastUsed.Before(lru.lastUsed):
				lru = o
			}
		}
		if len(s.sessions) >= s.maxSessions && lru != nil {
			s.log.Info("session evicted: too many sessions", "session", lru.id, "max", s.maxSessions)
			s.dropSessionLocked(lru.id)
		}
		ss = newSession(id, s.journalSize)
		s.sessions[id] = ss
	}
	ss.lastUsed = now
	return ss
}

// dropSessionLocked forgets a session and what its journal kept; the
// caller holds s.sessionsMu.
func (s *Server) dropSessionLocked(id string) {
	ss, ok := s.sessions[id]
	if !ok {
		return
	}
	delete(s.sessions, id)
	ss.mu.Lock()
	s.journalUsed.Add(-ss.journal.bytes())
	ss.journal = journal{}
	// The journal order may still point here for a while: keep nothing.
	ss.states, ss.faults, ss.counters = nil, nil, nil
	ss.dropped = true // a request still running keeps no entry
	ss.mu.Unlock()
}

// Reset returns session (or every session, for AllSessions) to the start:
// scenario settings, fault counters, rate limits, run-time faults and the
// journal. Scenario choices stay: the server's and each session's. With
// AllSessions, the run-time faults for every session and the overrides go
// too.
func (s *Server) Reset(sid string) {
	if sid == AllSessions {
		// The faults for every session go first: a request meanwhile
		// meets none, rather than the old ones with fresh counters.
		s.faultsMu.Lock()
		s.faults, s.overrides = nil, Overrides{}
		s.faultsMu.Unlock()
	}
	s.sessionsMu.Lock()
	reset := func(id string) {
		ss, ok := s.sessions[id]
		if !ok {
			return // nothing to reset: a new session starts from the start
		}
		ss.mu.Lock()
		picked := ss.scenario
		ss.mu.Unlock()
		s.dropSessionLocked(id)
		if picked != "" {
			fresh := s.sessionLocked(id)
			fresh.scenario = picked // nobody else has it yet
		}
	}
	if sid == AllSessions {
		for id := range s.sessions {
			reset(id)
		}
	} else {
		reset(sid)
	}
	s.sessionsMu.Unlock()
}

// sessionsOf lists the session sid, if it exists, or every session for
// AllSessions.
func (s *Server) sessionsOf(sid string) []*session {
	s.sessionsMu.Lock()
	defer s.sessionsMu.Unlock()
	if sid != AllSessions {
		if ss, ok := s.sessions[sid]; ok {
			return []*session{ss}
		}
		return nil
	}
	out := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}
