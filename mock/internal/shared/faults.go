package shared

import (
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
)

// PutFault adds f for session sid (session.All: for every session) and
// returns f with its id and how many faults it replaced (with replace,
// those of f's name). It makes the session once the registry has room.
func (st *State) PutFault(sid string, f fault.Fault, replace bool) (fault.Fault, int, error) {
	var removed []*fault.Fault
	err := st.sessions.Update(func(tx session.Tx) error {
		var before func()
		if sid != session.All {
			before = func() { tx.Open(sid) }
		}
		var err error
		if replace {
			f, removed, err = st.faults.Replace(sid, f, before)
		} else {
			f, err = st.faults.Add(sid, f, before)
		}
		if err == nil {
			forgetCounters(tx.List(session.All), removed)
		}
		return err
	})
	if err != nil {
		return fault.Fault{}, 0, err
	}
	st.faultsChanged(sid, "")
	return f, len(removed), nil
}

// Faults lists the run-time faults that apply to session sid.
func (st *State) Faults(sid string) []fault.Fault { return st.faults.List(sid) }

// RemoveFaults removes the run-time fault with id, or with id "" every
// run-time fault of session sid, and reports how many went.
func (st *State) RemoveFaults(sid, id string) int {
	removed := st.faults.Remove(sid, id)
	forgetCounters(st.sessions.List(session.All), removed)
	if len(removed) > 0 {
		st.faultsChanged(sid, id)
	}
	return len(removed)
}

// faultsChanged marks whose run-time faults changed; one removed by id
// may have been any session's.
func (st *State) faultsChanged(sid, id string) {
	if sid != session.All && id == "" {
		st.changes.session(sid)
		return
	}
	st.markAll()
}

func forgetCounters(sessions []*session.Session, gone []*fault.Fault) {
	if len(gone) == 0 {
		return
	}
	for _, ss := range sessions {
		ss.ForgetFaults(gone)
	}
}
