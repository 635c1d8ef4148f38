package mock

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// Snapshot takes session sid as it is now. A session that does not
// exist is taken as a fresh one would be. Its living shops are brought up
// to their clocks first, as a list request would.
func (s *Server) Snapshot(sid string) (*Snapshot, error) {
	now := s.now()
	snap := &Snapshot{Format: SnapshotFormat, Session: sid, TakenAt: now.UTC(), ServerVersion: s.version, MediaBase: s.registry.Loader().Media().Base}
	s.sessionsMu.Lock()
	ss, ok := s.sessions[sid]
	if ok && s.expired(ss, now) {
		ok = false
	}
	s.sessionsMu.Unlock()
	if !ok {
		return snap, nil
	}
	current := s.scenarioMap()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	global, own := s.faultsOf(ss)
	snap.Scenario = ss.scenario
	if ss.overrides != (Overrides{}) {
		o := ss.overrides
		snap.Overrides = &o
	}
	for _, f := range own {
		sf := SnapshotFault{Fault: *f}
		if c := ss.counters[f]; c != nil {
			sf.Matched, sf.Hit = c.Matched, c.Hit
		}
		snap.Faults = append(snap.Faults, sf)
	}
	for _, f := range global {
		if c := ss.counters[f]; c != nil && (c.Matched > 0 || c.Hit > 0) {
			snap.SharedFaultCounters = append(snap.SharedFaultCounters, SharedFaultCount{ID: f.ID, Matched: c.Matched, Hit: c.Hit})
		}
	}
	ss.seeds.mu.Lock()
	seeds := ss.seeds.m
	names := make([]string, 0, len(ss.states)+len(seeds))
	for name := range ss.states {
		names = append(names, name)
	}
	for name := range seeds {
		names = append(names, name)
	}
	ss.seeds.mu.Unlock()
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		sc := current[name]
		if sc == nil {
			continue // the scenario is gone: nothing of it can come back
		}
		rec := ScenarioSnapshot{Name: name, Fingerprint: sc.Fingerprint(), DataEnd: sc.DataEnd()}
		if sd := seedsOf(ss, name); sd != nil {
			fbs, err := sd.own.Feedbacks()
			if err != nil {
				return nil, err
			}
			rec.Seeded = &SeededSnapshot{Mode: sd.info().Mode, Reviews: rawRecords(fbs)}
		}
		if st := ss.states[name]; st != nil {
			settings := st.settings
			rec.Settings = &settings
			if st.sc == sc {
				for i := range sc.Faults() {
					if c := ss.counters[&sc.Faults()[i]]; c != nil && (c.Matched > 0 || c.Hit > 0) {
						rec.FaultCounters = append(rec.FaultCounters, ScenarioFaultCount{Index: i, Matched: c.Matched, Hit: c.Hit})
					}
				}
				if st.shop != nil {
					shop, err := ss.shopSnapshot(sc, now)
					if err != nil {
						return nil, err
					}
					rec.Shop = shop
				}
			}
		}
		snap.Scenarios = append(snap.Scenarios, rec)
	}
	return snap, nil
}

// seedsOf is what ss seeded in the scenario name; nil for nothing.
func seedsOf(ss *session, name string) *seedState {
	ss.seeds.mu.Lock()
	defer ss.seeds.mu.Unlock()
	return ss.seeds.m[name]
}

// rawRecords encodes reviews as the list shows them.
func rawRecords(fbs []Feedback) []json.RawMessage {
	out := make([]json.RawMessage, len(fbs))
	for i := range fbs {
		out[i] = reviews.AppendJSON(nil, &fbs[i])
	}
	return out
}

// shopSnapshot takes the session's living shop in sc, brought up to its
// clock. The caller holds ss.mu.
func (ss *session) shopSnapshot(sc *Scenario, now time.Time) (*ShopSnapshot, error) {
	sh, err := ss.runShop(sc, now)
	if err != nil {
		return nil, err
	}
	base, err := ss.baseLocked(sc)
	if err != nil {
		return nil, err
	}
	return sh.Snapshot(base, now)
}

// scenarioMap is the scenarios served now, by name.
func (s *Server) scenarioMap() map[string]*Scenario { return s.registry.All() }
