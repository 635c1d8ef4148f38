package mock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/scenarios"
)

// Options configures a Server. The zero value serves the embedded default
// scenario with its own seed and logs nothing.
type Options struct {
	// Scenario is the name of the scenario to serve; "" means "default".
	Scenario string
	// Scenarios holds NAME.yaml scenario files; nil means the embedded ones.
	Scenarios fs.FS
	// Fixtures holds the files scenarios refer to (settings/, reviews/,
	// phrases/); nil means the embedded ones.
	Fixtures fs.FS
	// Seed, when not 0, replaces every scenario's seed for generated data.
	Seed int64
	// AdminToken, when set, is required by every /__mock/ route but health.
	AdminToken string
	// CORSOrigins lists the browser origins that may call the server:
	// exact origins or path.Match patterns (http://localhost:*). Empty, or
	// "*" in it, allows any origin.
	CORSOrigins []string
	// JournalSize is how many requests each session's journal keeps; 0
	// means DefaultJournalSize, a negative value keeps none.
	JournalSize int
	// JournalBytes bounds the request and response bodies all journals
	// keep together; beyond it, new entries are kept without bodies. 0
	// means DefaultJournalBytes.
	JournalBytes int64
	// JournalEntries bounds the entries all journals keep together; beyond
	// it, the oldest entry of any session goes. 0 means
	// DefaultJournalEntries.
	JournalEntries int
	// MaxSessions bounds the sessions kept; a new session over it evicts
	// the least recently used one (never the default session). 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// SessionTTL is how long an unused session lives; 0 means
	// DefaultSessionTTL. The default session never expires.
	SessionTTL time.Duration
	// ReadOnly makes a demo: PATCH and every admin write answer 403.
	ReadOnly bool
	// Version is reported by /__mock/health.
	Version string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// Defaults of the limits in Options.
const (
	DefaultJournalBytes   = 128 << 20
	DefaultJournalEntries = 50_000
	DefaultMaxSessions    = 1000
	DefaultSessionTTL     = time.Hour
)

// DefaultSession is the session of requests without X-Mock-Session.
const DefaultSession = "default"

// AllSessions, given as a session to Reset, AddFault and friends, means
// every session (for a fault: each session, counted separately).
const AllSessions = "*"

// Server is the fake service. It is an http.Handler and owns no listener:
// wrap it in an http.Server or httptest.NewServer. Two Servers share no state.
type Server struct {
	log         *slog.Logger
	now         func() time.Time
	router      *mux.Router
	loader      *loader
	adminToken  string
	corsOrigins []string
	journalCap  int
	journalMax  int64        // JournalBytes
	journalUsed atomic.Int64 // body bytes kept by all journals
	maxSessions int
	sessionTTL  time.Duration
	readOnly    bool
	version     string
	started     time.Time
	metrics     *metrics
	allow       allowTable
	reqSeq      atomic.Int64

	mu        sync.Mutex // guards the fields below
	scenarios map[string]*Scenario
	sources   map[string][]byte // contents of the scenarios serving
	seen      map[string][]byte // contents at the last reload, to notice changes
	active    string
	sessions  map[string]*session
	faults    []*Fault // run-time faults for every session; replaced, never changed in place
	faultSeq  int
	overrides Overrides    // auth and rate limit for every session, from the control page
	seq       int64        // journal sequence
	order     journalOrder // which session holds each journal entry
}

// New loads and validates every scenario, builds the active one's data,
// and returns the server. A bad scenario or fixture fails here, with file,
// line and field.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	s := &Server{
		log:         opts.Logger,
		now:         opts.Now,
		loader:      opts.loader(),
		adminToken:  opts.AdminToken,
		corsOrigins: opts.CORSOrigins,
		journalCap:  opts.JournalSize,
		journalMax:  opts.JournalBytes,
		maxSessions: opts.MaxSessions,
		sessionTTL:  opts.SessionTTL,
		readOnly:    opts.ReadOnly,
		version:     opts.Version,
		started:     opts.Now(),
		metrics:     newMetrics(),
		sessions:    make(map[string]*session),
		order:       journalOrder{ring: make([]orderItem, max(opts.JournalEntries, 0))},
	}
	scs, sources, err := s.loader.loadAll()
	if err != nil {
		return nil, err
	}
	if _, ok := scs[opts.Scenario]; !ok {
		_, err := s.loader.load(opts.Scenario) // for its "not found" message
		return nil, err
	}
	s.scenarios, s.sources, s.active = scs, sources, opts.Scenario
	if _, err := scs[opts.Scenario].store(); err != nil { // build the served data now, not on the first request
		return nil, err
	}
	s.router = s.routes()
	return s, nil
}

// withDefaults fills the zero fields of opts; it is the one place defaults live.
func (opts Options) withDefaults() Options {
	if opts.Scenario == "" {
		opts.Scenario = "default"
	}
	if opts.Scenarios == nil {
		opts.Scenarios = scenarios.FS
	}
	if opts.Fixtures == nil {
		opts.Fixtures = fixtures.FS
	}
	if opts.JournalSize == 0 {
		opts.JournalSize = DefaultJournalSize
	}
	if opts.JournalBytes == 0 {
		opts.JournalBytes = DefaultJournalBytes
	}
	if opts.JournalEntries <= 0 {
		opts.JournalEntries = DefaultJournalEntries
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts
}

func (opts Options) loader() *loader {
	return &loader{scenarios: opts.Scenarios, fixtures: opts.Fixtures, seed: opts.Seed, cache: &dataCache{}}
}

// loadAll loads every scenario in the folder; any problem fails it.
func (l *loader) loadAll() (map[string]*Scenario, map[string][]byte, error) {
	names, err := scenarioNames(l.scenarios)
	if err != nil {
		return nil, nil, err
	}
	scs := make(map[string]*Scenario, len(names))
	sources := make(map[string][]byte, len(names))
	var errs []error
	for _, n := range names {
		sc, err := l.load(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		data, err := fs.ReadFile(l.scenarios, n+".yaml")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scs[n], sources[n] = sc, data
	}
	return scs, sources, errors.Join(errs...)
}

// Scenario returns the scenario the server serves by default.
func (s *Server) Scenario() *Scenario {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scenarios[s.active]
}

// ScenarioInfo describes one scenario for the admin API.
type ScenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Extends     string `json:"extends,omitempty"`
	Active      bool   `json:"active"`
}

// Scenarios lists the scenarios, marking the one active for session.
func (s *Server) Scenarios(sid string) []ScenarioInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	active := s.active
	if ss := s.sessions[sid]; ss != nil && ss.scenario != "" {
		active = ss.scenario
	}
	out := make([]ScenarioInfo, 0, len(s.scenarios))
	for _, name := range slices.Sorted(maps.Keys(s.scenarios)) {
		sc := s.scenarios[name]
		out = append(out, ScenarioInfo{Name: name, Description: sc.Description, Extends: sc.Extends, Active: name == active})
	}
	return out
}

// SetScenario makes name the active scenario of session, or of the server
// (every session that has not picked its own) when session is AllSessions.
func (s *Server) SetScenario(sid, name string) error {
	s.mu.Lock()
	sc, ok := s.scenarios[name]
	if !ok {
		have := strings.Join(slices.Sorted(maps.Keys(s.scenarios)), ", ")
		s.mu.Unlock()
		return invalidBody("name", "no scenario %q; have: %s", name, have)
	}
	if sid == AllSessions {
		s.active = name
		for _, ss := range s.sessions {
			ss.mu.Lock()
			ss.scenario = ""
			ss.mu.Unlock()
		}
	} else {
		ss := s.sessionLocked(sid)
		ss.mu.Lock()
		ss.scenario = name
		ss.mu.Unlock()
	}
	s.mu.Unlock()
	s.log.Info("scenario switched", "session", sid, "scenario", name)
	_, err := sc.store() // build its data now rather than in the next request
	return err
}

// Reset returns session (or every session, for AllSessions) to the start:
// scenario settings, fault counters, rate limits, run-time faults and the
// journal. Scenario choices stay: the server's and each session's.
func (s *Server) Reset(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reset := func(id string) {
		picked := ""
		if ss, ok := s.sessions[id]; ok {
			picked = ss.scenario // written only under s.mu too
		}
		s.dropSessionLocked(id)
		if picked != "" {
			s.sessionLocked(id).scenario = picked
		}
	}
	if sid == AllSessions {
		for id := range s.sessions {
			reset(id)
		}
		s.faults = nil
		s.overrides = Overrides{}
		return
	}
	reset(sid)
}

// dropSessionLocked forgets a session and what its journal kept; the
// caller holds s.mu.
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

// sessionLocked returns the session id, creating it; the caller holds
// s.mu. Creating one first drops the sessions idle for longer than the
// TTL, then, at the limit, the least recently used.
func (s *Server) sessionLocked(id string) *session {
	now := s.now()
	ss, ok := s.sessions[id]
	if ok && id != DefaultSession && now.Sub(ss.lastUsed) > s.sessionTTL {
		s.dropSessionLocked(id) // expired: it starts again
		ok = false
	}
	if !ok {
		var lru *session
		for oid, o := range s.sessions {
			switch {
			case oid == DefaultSession:
			case now.Sub(o.lastUsed) > s.sessionTTL:
				s.dropSessionLocked(oid)
			case lru == nil || o.lastUsed.Before(lru.lastUsed):
				lru = o
			}
		}
		if len(s.sessions) >= s.maxSessions && lru != nil {
			s.log.Info("session evicted: too many sessions", "session", lru.id, "max", s.maxSessions)
			s.dropSessionLocked(lru.id)
		}
		ss = &session{id: id, states: make(map[string]*scenarioState), journal: journal{size: s.journalCap}}
		s.sessions[id] = ss
	}
	ss.lastUsed = now
	return ss
}

// resolve picks the session and scenario of a request. name is the
// X-Mock-Scenario header ("" for none).
func (s *Server) resolve(sessionID, name string) (*session, *Scenario, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessionLocked(sessionID)
	if name == "" {
		ss.mu.Lock()
		name = ss.scenario
		ss.mu.Unlock()
	}
	if name == "" {
		name = s.active
	}
	sc, ok := s.scenarios[name]
	if !ok {
		return nil, nil, invalidParameter(HeaderScenario, "no scenario %q; GET /__mock/scenarios lists them", name)
	}
	return ss, sc, nil
}

// session is one caller's mutable state on top of the scenarios' data.
type session struct {
	id       string
	lastUsed time.Time // guarded by Server.mu

	mu       sync.Mutex // guards the fields below
	scenario string     // picked with PUT /__mock/scenario; "" follows the server. Written holding Server.mu and mu
	states   map[string]*scenarioState
	dropped  bool                     // reset or evicted: no longer in Server.sessions
	faults   []*Fault                 // run-time faults of this session
	counters map[*Fault]*faultCounter // counters of run-time faults
	journal  journal
}

// scenarioState is what a session changes while it uses one scenario.
type scenarioState struct {
	sc       *Scenario // the version the state belongs to
	settings Settings
	counters []faultCounter // one per scenario fault
	rng      *rand.Rand
	window   time.Time  // start of the rate-limit window
	inWindow int        // requests counted in it
	shop     *shopState // the living shop, for a scenario with one
}

// state returns the session's state for sc; the caller holds ss.mu. A
// reloaded scenario keeps the session's settings but restarts its counters.
func (ss *session) state(sc *Scenario) *scenarioState {
	if ss.states == nil {
		ss.states = make(map[string]*scenarioState) // dropped while a request ran
	}
	st, ok := ss.states[sc.Name]
	if !ok {
		st = &scenarioState{settings: sc.settings}
		ss.states[sc.Name] = st
	}
	if st.sc != sc {
		st.sc, st.shop = sc, nil // a reloaded scenario's shop starts again
		st.counters = make([]faultCounter, len(sc.faults))
		st.rng = newRNG(sc.Seed, ss.id)
		st.window, st.inWindow = time.Time{}, 0
	}
	return st
}

func (ss *session) getSettings(sc *Scenario) Settings {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state(sc).settings
}

// patchSettings applies p atomically: on error nothing changes. In a
// living shop, a rating whose settings change can be answered from now.
func (ss *session) patchSettings(s *Server, sc *Scenario, p *settingsPatch) (Settings, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.state(sc)
	next, err := p.apply(st.settings)
	if err != nil {
		return st.settings, err
	}
	if sh, err := ss.shop(s, sc); err != nil {
		return st.settings, err
	} else if sh != nil {
		now := sh.now(s.now())
		for i := range next.Feedback {
			if !reflect.DeepEqual(next.Feedback[i], st.settings.Feedback[i]) {
				sh.changedAt[i] = now
			}
		}
	}
	st.settings = next
	return next, nil
}

// AddFault adds a run-time fault for session, or for every session with
// AllSessions, and returns it with its id. Faults added later are checked
// after the scenario's own and the earlier ones.
func (s *Server) AddFault(sid string, f Fault) (Fault, error) {
	if probs := f.validate(); len(probs) > 0 {
		return Fault{}, invalidBody(probs[0].field, "%s", probs[0].msg)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultSeq++
	f.ID, f.seq = fmt.Sprintf("f%d", s.faultSeq), s.faultSeq
	fp := &f
	if sid == AllSessions {
		s.faults = append(s.faults, fp)
		return f, nil
	}
	ss := s.sessionLocked(sid)
	ss.mu.Lock()
	ss.faults = append(ss.faults, fp)
	ss.mu.Unlock()
	return f, nil
}

// Faults lists the run-time faults that apply to session: every session's
// first, then its own. With AllSessions, it lists every run-time fault.
func (s *Server) Faults(sid string) []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Fault
	for _, f := range s.faults {
		out = append(out, *f)
	}
	for id, ss := range s.sessions {
		if sid != AllSessions && id != sid {
			continue
		}
		ss.mu.Lock()
		for _, f := range ss.faults {
			out = append(out, *f)
		}
		ss.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Fault) int { return a.seq - b.seq })
	return out
}

// RemoveFaults removes the run-time fault with id, or with id "" every
// run-time fault of session (AllSessions: of every session and global).
// It reports how many were removed.
func (s *Server) RemoveFaults(sid, id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	keep := func(f *Fault, owner string) bool {
		drop := id != "" && f.ID == id || id == "" && (sid == AllSessions || owner == sid)
		if drop {
			n++
		}
		return !drop
	}
	// A new slice: requests in flight read the old one without the lock.
	s.faults = slices.DeleteFunc(slices.Clone(s.faults), func(f *Fault) bool { return !keep(f, AllSessions) })
	for owner, ss := range s.sessions {
		ss.mu.Lock()
		ss.faults = slices.DeleteFunc(ss.faults, func(f *Fault) bool { return !keep(f, owner) })
		for f := range ss.counters {
			if !slices.Contains(s.faults, f) && !slices.Contains(ss.faults, f) {
				delete(ss.counters, f) // its fault is gone
			}
		}
		ss.mu.Unlock()
	}
	return n
}

// Requests returns the journal entries that match f, oldest first.
func (s *Server) Requests(f JournalFilter) []JournalEntry {
	s.mu.Lock()
	sessions := make([]*session, 0, len(s.sessions))
	for id, ss := range s.sessions {
		if f.Session == "" || f.Session == id {
			sessions = append(sessions, ss)
		}
	}
	s.mu.Unlock()
	var out []JournalEntry
	for _, ss := range sessions {
		ss.mu.Lock()
		out = append(out, ss.journal.list(f)...)
		ss.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b JournalEntry) int { return int(a.Seq - b.Seq) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

// ClearRequests empties the journal of session, or of every session.
func (s *Server) ClearRequests(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ss := range s.sessions {
		if sid == AllSessions || id == sid {
			ss.mu.Lock()
			s.journalUsed.Add(-ss.journal.bytes())
			ss.journal = journal{size: s.journalCap}
			ss.mu.Unlock()
		}
	}
}

// Reload reads the scenarios folder again. If any file changed, every
// scenario is validated again and swapped in; a broken one is logged and
// its previous version keeps serving. It returns the problems found.
func (s *Server) Reload() error {
	names, err := scenarioNames(s.loader.scenarios)
	if err != nil {
		return err
	}
	seen := make(map[string][]byte, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(s.loader.scenarios, n+".yaml")
		if err != nil {
			data = []byte(err.Error()) // load reports it below
		}
		seen[n] = data
	}
	s.mu.Lock()
	last := s.seen
	if last == nil {
		last = s.sources
	}
	changed := !maps.EqualFunc(seen, last, bytes.Equal)
	s.seen = seen
	s.mu.Unlock()
	if !changed {
		return nil
	}
	var errs []error
	next := make(map[string]*Scenario)
	sources := make(map[string][]byte)
	for _, n := range names {
		sc, err := s.loader.load(n)
		if err != nil {
			errs = append(errs, err)
			s.log.Error("scenario reload failed; the previous version keeps serving", "scenario", n, "err", err)
			continue
		}
		next[n] = sc
		sources[n] = seen[n]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, old := range s.scenarios {
		if _, ok := next[n]; !ok && (slices.Contains(names, n) || n == s.active) {
			next[n] = old // broken, or removed while active: keep it
			sources[n] = s.sources[n]
		}
	}
	for n, sc := range next {
		if !bytes.Equal(sources[n], s.sources[n]) {
			s.log.Info("scenario reloaded", "scenario", n)
		}
		if old, ok := s.scenarios[n]; ok && old.fingerprint == sc.fingerprint {
			next[n] = old // unchanged: keep the same version, so counters go on
		}
	}
	s.scenarios, s.sources = next, sources
	s.loader.cache.retain(next) // old versions' data can go
	return errors.Join(errs...)
}

// Watch calls Reload every interval until ctx ends.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Reload() // problems are logged by Reload
		}
	}
}

// recoverPanic, deferred, turns a handler's panic into a logged 500 in
// the envelope (if nothing was sent yet). http.ErrAbortHandler, a
// deliberately dropped connection, goes on up to net/http.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	s.log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
	writeJSON(w, http.StatusInternalServerError, errorEnvelope{Error: StatusError(http.StatusInternalServerError)})
}

// APIHandler serves the API and /__mock/health but not the rest of the
// admin API, for a public listener when the admin API has a listener of
// its own (replymock --admin-addr).
func (s *Server) APIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && r.URL.Path != AdminPrefix+"/health" {
			s.handleNotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})
}

// ServeHTTP implements http.Handler. A panic in a handler is logged and
// answered with a 500 in the envelope, if nothing was sent yet.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	id := s.requestID(r)
	w.Header().Set(HeaderRequestID, id)
	r.Header.Set(HeaderRequestID, id) // for the journal
	if s.cors(w, r) {
		return
	}
	if strings.HasPrefix(r.URL.Path, APIPrefix+"/") || r.URL.Path == APIPrefix {
		s.serveAPI(w, r)
		return
	}
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	s.router.ServeHTTP(rec, r)
	level := slog.LevelInfo
	if r.URL.Path == AdminPrefix+"/health" || r.Method == http.MethodGet && r.URL.Path == AdminPrefix+"/requests" {
		level = slog.LevelDebug // health checks and journal polling would drown the rest
	}
	s.log.LogAttrs(r.Context(), level, "admin request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.String("request_id", id))
}
