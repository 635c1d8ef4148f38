package session

import (
	"maps"
	"slices"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shop"
)

// Taken is a session as it was at one moment, each part as its package
// keeps it. A snapshot is written from it.
type Taken struct {
	Pick      string
	Overrides access.Overrides
	Own       []TakenFault // the session's run-time faults, with its counters
	Shared    []Count      // its counters of the faults for every session, those met
	Scenarios []TakenScenario
}

// TakenFault is one of the session's run-time faults and its counter.
type TakenFault struct {
	Fault fault.Fault
	fault.Counter
}

// Count is a counter of a fault met, named by ID or Index.
type Count struct {
	ID    string
	Index int
	fault.Counter
}

// TakenScenario is the session's state in one scenario served now.
type TakenScenario struct {
	Scenario *scenario.Scenario
	Seed     *Seed              // what it seeded there, nil for nothing
	Settings *settings.Settings // nil: never used there
	Write    *Write             // the last settings write, nil for none
	Counters []Count            // the scenario's faults met, on the version served now
	Shop     *shop.Snapshot     // its living shop, on the version served now
}

// Take takes the session at now, its living shops first brought up to
// their clocks. current are the scenarios served now, by name.
//
// withShared is set for a snapshot given out: the shared shop a
// pristine session read is taken as its own. The state folder leaves it
// out: restored, the session reads the shared shop again, which has gone
// on as it would have.
func (ss *Session) Take(current map[string]*scenario.Scenario, now time.Time, withShared bool) (Taken, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t := Taken{Pick: ss.pick, Overrides: ss.overrides}
	shared, own := ss.faultsLocked()
	for _, f := range own {
		tf := TakenFault{Fault: *f}
		if c := ss.counters[f]; c != nil {
			tf.Counter = *c
		}
		t.Own = append(t.Own, tf)
	}
	for _, f := range shared {
		if c := ss.counters[f]; c != nil && (c.Matched > 0 || c.Hit > 0) {
			t.Shared = append(t.Shared, Count{ID: f.ID, Counter: *c})
		}
	}
	for _, name := range ss.namesLocked() {
		sc := current[name]
		if sc == nil {
			continue
		}
		ts, err := ss.takeLocked(sc, now, withShared)
		if err != nil {
			return Taken{}, err
		}
		t.Scenarios = append(t.Scenarios, ts)
	}
	return t, nil
}

// namesLocked are the scenarios the session has a state or seeds in;
// the caller holds ss.mu.
func (ss *Session) namesLocked() []string {
	ss.seeds.mu.Lock()
	names := slices.AppendSeq(slices.Collect(maps.Keys(ss.states)), maps.Keys(ss.seeds.m))
	ss.seeds.mu.Unlock()
	slices.Sort(names)
	return slices.Compact(names)
}

// takeLocked takes the session's state in sc; the caller holds ss.mu.
func (ss *Session) takeLocked(sc *scenario.Scenario, now time.Time, withShared bool) (TakenScenario, error) {
	ts := TakenScenario{Scenario: sc}
	ss.seeds.mu.Lock()
	ts.Seed = ss.seeds.m[sc.Name]
	ss.seeds.mu.Unlock()
	st := ss.states[sc.Name]
	if st == nil {
		return ts, nil
	}
	set := st.settings
	ts.Settings, ts.Write = &set, st.last
	if st.sc != sc {
		return ts, nil
	}
	for i := range sc.Faults() {
		if c := ss.counters[&sc.Faults()[i]]; c != nil && (c.Matched > 0 || c.Hit > 0) {
			ts.Counters = append(ts.Counters, Count{Index: i, Counter: *c})
		}
	}
	if sc.Shop() == nil || st.shop == nil && !(withShared && st.read && ss.pristineLocked(st)) {
		return ts, nil
	}
	base, err := ss.baseLocked(sc)
	if err != nil {
		return ts, err
	}
	err = ss.readShopLocked(sc, now, func(sh *shop.Shop) error {
		ts.Shop = sh.Snapshot(base, now)
		return nil
	})
	return ts, err
}

// The setters below fill a session made by New before Put keeps it:
// no one else has it yet.

func (ss *Session) SetCounter(f *fault.Fault, c fault.Counter) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	*ss.counterLocked(f) = c
}

func (ss *Session) PutSeed(name string, sd *Seed) {
	ss.seeds.mu.Lock()
	defer ss.seeds.mu.Unlock()
	if ss.seeds.m == nil {
		ss.seeds.m = make(map[string]*Seed)
	}
	ss.seeds.m[name] = sd
}

// PutSettings makes set the session's settings in sc; its shop there
// starts afresh.
func (ss *Session) PutSettings(sc *scenario.Scenario, set settings.Settings) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.stateLocked(sc)
	st.settings, st.bytes = set, stateBytes(set, st.last) // counted once Put keeps the session
	st.dropShopLocked()
}

// PutWrite makes w the session's last settings write in sc.
func (ss *Session) PutWrite(sc *scenario.Scenario, w *Write) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.stateLocked(sc)
	st.last, st.bytes = w, stateBytes(st.settings, w) // counted once Put keeps the session
}

// PutShop makes sh the session's own living shop in its scenario.
func (ss *Session) PutShop(sh *shop.Shop) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.stateLocked(sh.Scenario())
	st.shop, st.own = sh, true
}
