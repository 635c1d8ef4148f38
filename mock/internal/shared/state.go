// Package shared holds what the API and the admin API share, and the
// steps both take on it.
//
// That is the scenarios served, the sessions, the run-time faults, the
// overrides for every session, the journals and the memory budgets. The
// steps: a request's session and scenario, a scenario picked, faults put
// and removed, overrides set, reviews seeded, a reset. It owns no HTTP.
//
// Locks: the session store's before a session's (package session); the
// overrides' lock is never held while taking another. The fault
// registry's and the journals' come last and call nothing back; the
// registry's additions run with the store held.
package shared

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Config is what a State is made of; its zero limits are not defaults
// (the facade's Options fill them).
type Config struct {
	Log            *slog.Logger
	Now            func() time.Time
	Registry       *scenario.Registry
	MaxSessions    int
	SessionTTL     time.Duration
	MaxShopBytes   int64
	MaxSeedBytes   int64
	JournalSize    int
	JournalBytes   int64
	JournalEntries int
	Visitors       Visitors // what a public listener's clients may start
}

// State is the server's shared state.
type State struct {
	log      *slog.Logger
	now      func() time.Time
	registry *scenario.Registry
	sessions session.Store
	shops    *shop.Budget
	seeds    *budget.Budget
	// each session's within access.MaxSessionOverrideBytes, so all within
	// MaxSessions of them
	overrideBytes *budget.Budget
	settings      *budget.Budget // of MaxSessions sessions' patched settings, session.MaxSettingsBytes each
	budgets       budget.Set
	faults        *fault.Registry
	journals      *journal.Journals

	overridesMu sync.Mutex
	overrides   access.Overrides // for every session

	counts   Counts // nil in one process
	pinned   atomic.Pointer[func(id string) bool]
	changes  changes
	visitors visitors
}

// New is the state of a server that has served nothing yet.
func New(cfg Config) *State {
	st := &State{
		log:      cfg.Log,
		now:      cfg.Now,
		registry: cfg.Registry,
		faults:   fault.NewRegistry(fault.MaxRuntime, fault.MaxRuntimeBytes),
		shops:    shop.NewBudget(cfg.MaxShopBytes, cfg.Log),
		seeds: budget.New("replymock_seed_bytes",
			"What all sessions' seeded reviews keep together, as counted against Options.MaxSeedBytes.", cfg.MaxSeedBytes),
		overrideBytes: budget.New("replymock_override_bytes",
			fmt.Sprintf("What the sessions' own overrides keep together (their tokens), each within %d KiB.", access.MaxSessionOverrideBytes>>10), int64(cfg.MaxSessions)*access.MaxSessionOverrideBytes),
		settings: budget.New("replymock_settings_bytes",
			fmt.Sprintf("What the settings sessions patched keep together (their JSON), %d KiB a session on average.", session.MaxSettingsBytes>>10), int64(cfg.MaxSessions)*session.MaxSettingsBytes),
		journals: journal.New(cfg.JournalSize, cfg.JournalBytes, cfg.JournalEntries),
		visitors: visitors{Visitors: cfg.Visitors},
	}
	st.sessions = session.NewMemory(session.Config{Max: cfg.MaxSessions, TTL: cfg.SessionTTL, Now: cfg.Now, Log: cfg.Log,
		Shops: st.shops, Seeds: st.seeds, Overrides: st.overrideBytes, Settings: st.settings, Faults: st.faults, Journals: st.journals,
		Changed: st.changes.session, Evicted: st.changes.evict, Pinned: st.isPinned})
	st.budgets.Add(st.journals.Budget(), st.shops.Bytes(), st.seeds, st.overrideBytes, st.settings, st.faults.Budget())
	// A snapshot leaves out a scenario not served at the time: after a
	// reload, every session is kept again, with what it holds in a
	// scenario that came back.
	cfg.Registry.OnSwap(func() { go st.markAll() })
	return st
}

func (st *State) markAll() {
	st.changes.mark(true)
	for _, ss := range st.sessions.List(session.All) {
		st.changes.session(ss.ID())
	}
}

func (st *State) Sessions() session.Store { return st.sessions }

func (st *State) Registry() *scenario.Registry { return st.registry }

func (st *State) Journals() *journal.Journals { return st.journals }

func (st *State) Budgets() *budget.Set { return &st.budgets }

func (st *State) Shops() *shop.Budget { return st.shops }

func (st *State) FaultRegistry() *fault.Registry { return st.faults }

// Resolve picks the session and scenario of an API request, creating the
// session if needed. name is the X-Mock-Scenario header ("" for none).
func (st *State) Resolve(sid, name string) (*session.Session, *scenario.Scenario, error) {
	ss := st.sessions.Open(sid)
	sc, err := st.ScenarioOf(ss, name)
	if err != nil {
		return nil, nil, err
	}
	return ss, sc, nil
}

// Peek is Resolve for a request that only reads: a session that does not
// exist is not created, and the answer is about a fresh one.
func (st *State) Peek(sid, name string) (*session.Session, *scenario.Scenario, error) {
	ss := st.sessions.Look(sid)
	sc, err := st.ScenarioOf(ss, name)
	return ss, sc, err
}

const (
	HeaderSession  = "X-Mock-Session"
	HeaderScenario = "X-Mock-Scenario"
)

// ScenarioHeader is the scenario a request's X-Mock-Scenario names, ""
// without one. An empty one is refused: an unset variable in a client
// must not quietly mean the session's scenario.
func ScenarioHeader(h http.Header) (string, error) {
	names := h.Values(HeaderScenario)
	if len(names) > 0 && names[0] == "" {
		return "", wire.InvalidParameter(HeaderScenario, "is empty: name a scenario, or leave the header out for the session's")
	}
	return h.Get(HeaderScenario), nil
}

// ScenarioOf is the scenario a request of ss uses: name if given, else
// the session's pick, else the server's.
func (st *State) ScenarioOf(ss *session.Session, name string) (*scenario.Scenario, error) {
	if name == "" {
		name = ss.Pick()
	}
	sc, name, ok := st.registry.Get(name)
	if !ok {
		return nil, wire.InvalidParameter(HeaderScenario, "no scenario %q; GET /__mock/scenarios lists them", name)
	}
	return sc, nil
}

// Reset returns session sid (every session for session.All) to the
// start, as Server.Reset says.
func (st *State) Reset(sid string) {
	if sid == session.All {
		// The faults for every session go first: a request meanwhile
		// meets none, rather than the old ones with fresh counters.
		st.faults.Drop(session.All)
		st.setSharedOverrides(access.Overrides{})
	}
	st.sessions.Reset(sid)
	st.journals.Forget(sid) // the fleet's journal
	if st.counts != nil {
		st.counts.Forget(sid)
	}
}

// Scenarios lists the scenarios, marking the one active for session sid.
func (st *State) Scenarios(sid string) []scenario.Info {
	picked := ""
	if sid != session.All {
		for _, ss := range st.sessions.List(sid) {
			picked = ss.Pick()
		}
	}
	return st.registry.List(picked)
}

// SetScenario makes name the active scenario of session sid, or of the
// server (every session that has not picked its own) for session.All.
func (st *State) SetScenario(sid, name string) error {
	sc, err := st.registry.Pick(name, sid == session.All)
	if err != nil {
		return err
	}
	// With the store held, so that a Reset, which keeps a session's pick,
	// cannot drop the session in between.
	st.sessions.Update(func(tx session.Tx) error {
		if sid != session.All {
			tx.Open(sid).SetPick(name)
			return nil
		}
		for _, ss := range tx.List(session.All) {
			ss.SetPick("")
		}
		st.changes.mark(true)
		return nil
	})
	st.log.Info("scenario switched", "session", sid, "scenario", name)
	_, err = sc.Store() // build its data now rather than in the next request
	return err
}

func (st *State) Seeds() *budget.Budget { return st.seeds }
