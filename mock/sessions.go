package mock

import (
	"math"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = "default"

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

// session is one caller's mutable state on top of the scenarios' data.
type session struct {
	id       string
	lastUsed time.Time    // guarded by Server.sessionsMu
	shops    *shop.Budget // accounts the session's living shops; nil for a session only looked at
	// journalKey names the session's journal in Server.journals, from
	// before the session is kept, and never changes; the zero Key, of a
	// session only looked at, names none.
	journalKey journal.Key

	mu       sync.Mutex // guards the fields below
	scenario string     // picked with PUT /__mock/scenario; "" follows the server
	states   map[string]*scenarioState
	dropped  bool                      // reset or evicted: no longer in Server.sessions
	counters map[*Fault]*fault.Counter // of every fault the session's requests met
	// overrides are the session's own (PUT /__mock/overrides?session=ID),
	// over those for every session.
	overrides  Overrides
	seeds      *seedBox       // reviews seeded by PUT /__mock/data (seed.go); shared with the session a reset made
	seedBudget *budget.Budget // Server.seedBudget, for a kept session; nil for one only looked at
}

func newSession(id string, shops *shop.Budget) *session {
	return &session{id: id, shops: shops, seeds: &seedBox{}}
}

// scenarioState is what a session changes while it uses one scenario.
type scenarioState struct {
	sc       *Scenario // the version the state belongs to
	settings Settings
	window   access.Window
	shop     *shop.Shop // the living shop, for a scenario with one
}

// state returns the session's state for sc; the caller holds ss.mu. A
// reloaded scenario keeps the session's settings but starts its fault
// counters, rate limit and shop again.
func (ss *session) state(sc *Scenario) *scenarioState {
	if ss.states == nil {
		ss.states = make(map[string]*scenarioState)
	}
	st, ok := ss.states[sc.Name]
	if !ok {
		st = &scenarioState{settings: sc.Settings()}
		ss.states[sc.Name] = st
	}
	if st.sc != sc {
		if st.sc != nil {
			for i := range st.sc.Faults() {
				delete(ss.counters, &st.sc.Faults()[i])
			}
		}
		if st.shop != nil {
			st.shop.Release()
		}
		st.sc, st.shop = sc, nil
		st.window = access.Window{}
	}
	return st
}

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

// counter returns the session's counter of fault f; the caller holds ss.mu.
func (ss *session) counter(f *Fault) *fault.Counter {
	if ss.counters == nil {
		ss.counters = make(map[*Fault]*fault.Counter)
	}
	c, ok := ss.counters[f]
	if !ok {
		c = &fault.Counter{}
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
// returns it; nil when sc's shop is not alive. A shop evicted by the
// shops' memory budget starts again here. The caller holds ss.mu.
func (ss *session) runShop(sc *Scenario, now time.Time) (*shop.Shop, error) {
	if sc.Shop() == nil {
		return nil, nil
	}
	st := ss.state(sc)
	sh := st.shop
	if sh == nil {
		base, err := ss.baseLocked(sc)
		if err != nil {
			return nil, err
		}
		sh = shop.New(sc, base, now)
		st.keepShop(ss, sh)
	} else {
		sh.Touch()
	}
	return sh, sh.Bring(now, st.settings)
}

// keepShop makes sh the state's shop, kept within the shops' budget
// (unless the session is dropped: its request keeps nothing); the
// caller holds ss.mu.
func (st *scenarioState) keepShop(ss *session, sh *shop.Shop) {
	st.shop = sh
	if !ss.dropped && ss.shops != nil {
		ss.shops.Add(sh, ss, func() {
			if st.shop == sh {
				st.shop = nil
			}
		})
	}
}

// The session is the owner of its shops in the shops' budget.
func (ss *session) ID() string    { return ss.id }
func (ss *session) Lasting() bool { return ss.id == DefaultSession }
func (ss *session) TryLock() bool { return ss.mu.TryLock() }
func (ss *session) Unlock()       { ss.mu.Unlock() }

// reviewList is what the list and /__mock/data read: a scenario's Store,
// or a Stack on it (the session's seeded reviews, its living shop).
type reviewList interface {
	Find(q reviews.Query) reviews.Result
	JSON(i int) []byte
	PageSize(res reviews.Result) int
	AppendPage(b []byte, res reviews.Result, q reviews.Query) []byte
}

// reviews is what the session's list reads in sc: the scenario's store,
// the reviews the session seeded, or the session's living shop on either,
// brought up to its clock.
func (ss *session) reviews(sc *Scenario, now time.Time) (reviewList, error) {
	if sc.Shop() == nil {
		// Outside ss.mu: a big scenario's first build holds no session's lock.
		base, err := sc.Store()
		if err != nil {
			return nil, err
		}
		ss.mu.Lock()
		defer ss.mu.Unlock()
		v, err := ss.seedViewLocked(sc, base)
		if v == nil || err != nil {
			return base, err
		}
		return v, nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sh, err := ss.runShop(sc, now)
	if err != nil {
		return nil, err
	}
	return sh.Reviews(), nil
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
		ss = newSession(sid, nil)
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
	sc, name, ok := s.registry.Get(name)
	if !ok {
		return nil, wire.InvalidParameter(HeaderScenario, "no scenario %q; GET /__mock/scenarios lists them", name)
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
		s.evictForLocked(now)
		ss = newSession(id, s.shops)
		ss.seedBudget = s.seedBudget
		ss.journalKey = s.journals.Open(id)
		s.sessions[id] = ss
	}
	ss.lastUsed = now
	return ss
}

// evictForLocked makes room for one more session: it drops the sessions
// idle for longer than the TTL, then, at the limit, the least recently
// used. The caller holds s.sessionsMu.
func (s *Server) evictForLocked(now time.Time) {
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
	ss.dropSeedsLocked()
	s.clearSessionLocked(ss)
	ss.mu.Unlock()
}

// clearSessionLocked empties a session taken out of s.sessions, but for
// its scenario choice and seeded reviews, and marks it dropped, under
// s.sessionsMu and ss.mu.
func (s *Server) clearSessionLocked(ss *session) {
	s.journals.Drop(ss.journalKey)
	for _, st := range ss.states {
		if st.shop != nil {
			st.shop.Release()
		}
	}
	ss.states, ss.counters, ss.overrides = nil, nil, Overrides{}
	s.faults.Drop(ss.id) // its run-time faults go with it
	ss.dropped = true    // a request still running keeps no shop (nor, by its Key, any entry), and meets none of its faults
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
	s.sessionsMu.Lock()
	reset := func(id string) {
		ss, ok := s.sessions[id]
		if !ok {
			return // nothing to reset: a new session starts from the start
		}
		// In one critical section: a seeding that got this session
		// before finds it dropped and tries again on the fresh one,
		// rather than seed a session that is going.
		ss.mu.Lock()
		picked, seeds := ss.scenario, ss.seeds
		delete(s.sessions, id)
		s.clearSessionLocked(ss)
		ss.mu.Unlock()
		if picked != "" || seeds.any() {
			// The fresh session shares the seeds with ss, which a
			// request that got it before the reset may still read.
			fresh := s.sessionLocked(id)
			fresh.scenario, fresh.seeds = picked, seeds // nobody else has it yet
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
	return s.sessionsOfLocked(sid)
}

// sessionsOfLocked is sessionsOf for a caller that holds s.sessionsMu.
func (s *Server) sessionsOfLocked(sid string) []*session {
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
