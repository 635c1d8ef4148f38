package mock

import (
	"encoding/json"

	sessionpkg "github.com/replymock/replymock/mock/internal/session"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// Snapshot takes session sid as it is now. A session that does not
// exist is taken as a fresh one would be. Its living shops are brought up
// to their clocks first, as a list request would.
func (s *Server) Snapshot(sid string) (*Snapshot, error) {
	now := s.now()
	snap := &Snapshot{Format: SnapshotFormat, Session: sid, TakenAt: now.UTC(), ServerVersion: s.version, MediaBase: s.st.Registry().Loader().Media().Base}
	ss, ok := s.st.Sessions().Find(sid)
	if !ok {
		return snap, nil
	}
	t, err := ss.Take(s.scenarioMap(), now)
	if err != nil {
		return nil, err
	}
	snap.Scenario = t.Pick
	if t.Overrides != (Overrides{}) {
		o := t.Overrides
		snap.Overrides = &o
	}
	for _, f := range t.Own {
		snap.Faults = append(snap.Faults, SnapshotFault{Fault: f.Fault, Matched: f.Matched, Hit: f.Hit})
	}
	for _, c := range t.Shared {
		snap.SharedFaultCounters = append(snap.SharedFaultCounters, SharedFaultCount{ID: c.ID, Matched: c.Matched, Hit: c.Hit})
	}
	for _, ts := range t.Scenarios {
		rec, err := scenarioSnapshot(ts)
		if err != nil {
			return nil, err
		}
		snap.Scenarios = append(snap.Scenarios, rec)
	}
	return snap, nil
}

// scenarioSnapshot writes the session's state in one scenario.
func scenarioSnapshot(ts sessionpkg.TakenScenario) (ScenarioSnapshot, error) {
	sc := ts.Scenario
	rec := ScenarioSnapshot{Name: sc.Name, Fingerprint: sc.Fingerprint(), DataEnd: sc.DataEnd(), Settings: ts.Settings, Shop: ts.Shop}
	if sd := ts.Seed; sd != nil {
		fbs, err := sd.Reviews().Feedbacks()
		if err != nil {
			return rec, err
		}
		mode := SeedAppend
		if sd.Replace() {
			mode = SeedReplace
		}
		rec.Seeded = &SeededSnapshot{Mode: mode, Reviews: rawRecords(fbs)}
	}
	for _, c := range ts.Counters {
		rec.FaultCounters = append(rec.FaultCounters, ScenarioFaultCount{Index: c.Index, Matched: c.Matched, Hit: c.Hit})
	}
	return rec, nil
}

// rawRecords encodes reviews as the list shows them.
func rawRecords(fbs []Feedback) []json.RawMessage {
	out := make([]json.RawMessage, len(fbs))
	for i := range fbs {
		out[i] = reviews.AppendJSON(nil, &fbs[i])
	}
	return out
}

// scenarioMap is the scenarios served now, by name.
func (s *Server) scenarioMap() map[string]*Scenario { return s.st.Registry().All() }
