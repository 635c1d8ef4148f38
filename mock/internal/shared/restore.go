package shared

import (
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
)

// Install puts fresh, a session filled from a snapshot, in place of
// session sid, with its run-time faults and seedBytes of seeded reviews,
// in one step. The bounds are checked with the old one gone. If refused,
// nothing changes.
func (st *State) Install(sid string, fresh *session.Session, faults []*fault.Fault, seedBytes int64) error {
	return st.sessions.Update(func(tx session.Tx) error {
		err := st.faults.Restore(sid, faults, func() error {
			var oldSeeds int64
			for _, old := range tx.List(sid) {
				oldSeeds += old.SeedBytes()
			}
			if !st.seeds.Fits(seedBytes - oldSeeds) {
				return st.errSeedMemory(seedBytes - oldSeeds)
			}
			tx.Drop(sid)
			st.seeds.Charge(seedBytes)
			return nil
		})
		if err == nil {
			tx.Put(fresh)
		}
		return err
	})
}

// SetShared puts in place the run-time faults and the overrides for
// every session, as a state folder's server state holds them.
func (st *State) SetShared(faults []*fault.Fault, o access.Overrides) {
	st.faults.SetShared(faults)
	st.setSharedOverrides(o)
}
