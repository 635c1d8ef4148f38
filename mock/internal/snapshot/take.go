package snapshot

import (
	"crypto/sha256"
	"encoding/json"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/session"
)

// Take takes session sid as it is now (a missing one as a fresh one
// would be), its living shops first brought up to their clocks.
func (k *Keeper) Take(sid string) (*Snapshot, error) { return k.take(sid, true) }

// TakeOwn is Take without the shop a session shares with every pristine
// session of a scenario: what a store keeps of the session.
func (k *Keeper) TakeOwn(sid string) (*Snapshot, error) { return k.take(sid, false) }

// Sum is the SHA-256 of s's JSON without TakenAt, so two takings of an
// unchanged session sum the same.
func (s *Snapshot) Sum() ([32]byte, error) {
	c := *s
	c.TakenAt = time.Time{}
	body, err := json.Marshal(&c)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(body), nil
}

func (k *Keeper) take(sid string, withShared bool) (*Snapshot, error) {
	now := k.now()
	snap := &Snapshot{Format: Format, Session: sid, TakenAt: now.UTC(), ServerVersion: k.version, MediaBase: k.mediaBase()}
	ss, ok := k.st.Sessions().Find(sid)
	if !ok {
		return snap, nil
	}
	t, err := ss.Take(k.st.Registry().All(), now, withShared)
	if err != nil {
		return nil, err
	}
	snap.Scenario = t.Pick
	if t.Overrides != (access.Overrides{}) {
		o := t.Overrides
		snap.Overrides = &o
	}
	for _, f := range t.Own {
		snap.Faults = append(snap.Faults, Fault{Fault: f.Fault, Matched: f.Matched, Hit: f.Hit})
	}
	for _, c := range t.Shared {
		snap.SharedFaultCounters = append(snap.SharedFaultCounters, SharedFaultCount{ID: c.ID, Matched: c.Matched, Hit: c.Hit})
	}
	for _, ts := range t.Scenarios {
		rec, err := scenarioState(ts)
		if err != nil {
			return nil, err
		}
		snap.Scenarios = append(snap.Scenarios, rec)
	}
	return snap, nil
}

// mediaBase is the base of the media URLs served now.
func (k *Keeper) mediaBase() string { return k.st.Registry().Loader().Media().Base }

func scenarioState(ts session.TakenScenario) (ScenarioState, error) {
	sc := ts.Scenario
	rec := ScenarioState{Name: sc.Name, Fingerprint: sc.Fingerprint(), DataEnd: sc.DataEnd(), Settings: ts.Settings, LastWrite: ts.Write, Shop: ts.Shop}
	if sd := ts.Seed; sd != nil {
		fbs, err := sd.Reviews().Feedbacks()
		if err != nil {
			return rec, err
		}
		mode := fixture.SeedAppend
		if sd.Replace() {
			mode = fixture.SeedReplace
		}
		rec.Seeded = &Seeded{Mode: mode, Reviews: rawRecords(fbs)}
	}
	for _, c := range ts.Counters {
		rec.FaultCounters = append(rec.FaultCounters, ScenarioFaultCount{Index: c.Index, Matched: c.Matched, Hit: c.Hit})
	}
	return rec, nil
}

// rawRecords encodes reviews as the list shows them.
func rawRecords(fbs []reviews.Feedback) []json.RawMessage {
	out := make([]json.RawMessage, len(fbs))
	for i := range fbs {
		out[i] = reviews.AppendJSON(nil, &fbs[i])
	}
	return out
}
