package admin

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/session"
)

// handleScenariosList serves GET /__mock/scenarios.
func (a *Admin) handleScenariosList(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.Default)
	if err != nil {
		return 0, nil, err
	}
	list := a.State.Scenarios(sid)
	active := ""
	for _, sc := range list {
		if sc.Active {
			active = sc.Name
		}
	}
	return http.StatusOK, map[string]any{"active": active, "scenarios": list}, nil
}

// handleScenarioPut serves PUT /__mock/scenario: {"name": "slow"}.
func (a *Admin) handleScenarioPut(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeBody(r, smallBody, &body); err != nil {
		return 0, nil, err
	}
	if err := a.State.SetScenario(sid, body.Name); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]string{"scenario": body.Name, "session": sid}, nil
}

// handleReset serves POST /__mock/reset.
func (a *Admin) handleReset(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	a.State.Reset(sid)
	return http.StatusOK, map[string]string{"reset": sid}, nil
}
