package shared

import (
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/session"
)

// SetOverridesFor replaces the overrides of session sid, or with
// session.All those for every session; the zero value clears them.
func (st *State) SetOverridesFor(sid string, o access.Overrides) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if sid == session.All {
		st.setSharedOverrides(o)
		return nil
	}
	if err := CheckOverrides(o, "auth.tokens"); err != nil {
		return err
	}
	return st.sessions.Update(func(tx session.Tx) error {
		tx.Open(sid).SetOverrides(o)
		return nil
	})
}

// setSharedOverrides replaces the overrides for every session.
func (st *State) setSharedOverrides(o access.Overrides) {
	st.overridesMu.Lock()
	st.overrides = o
	st.overridesMu.Unlock()
	st.changes.mark(true)
}

func (st *State) SharedOverrides() access.Overrides {
	st.overridesMu.Lock()
	defer st.overridesMu.Unlock()
	return st.overrides
}

// OverridesFor returns the overrides session sid set itself, or with
// session.All those for every session.
func (st *State) OverridesFor(sid string) access.Overrides {
	if sid == session.All {
		return st.SharedOverrides()
	}
	ss, ok := st.sessions.Find(sid)
	if !ok {
		return access.Overrides{}
	}
	return ss.Overrides()
}
