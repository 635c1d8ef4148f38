package admin

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/session"
)

// handleOverridesGet serves GET /__mock/overrides: those for every
// session, or ?session=ID's own.
func (a *Admin) handleOverridesGet(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.st.OverridesFor(sid), nil
}

// handleOverridesPut serves PUT /__mock/overrides: for every session,
// or ?session=ID.
func (a *Admin) handleOverridesPut(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	var o access.Overrides
	if err := decodeBody(r, &o); err != nil {
		return 0, nil, err
	}
	if err := a.st.SetOverridesFor(sid, o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o, nil
}
