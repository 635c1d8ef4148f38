package mock

import "net/http"

// handleScenariosList serves GET /__mock/scenarios.
func (s *Server) handleScenariosList(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	list := s.Scenarios(sid)
	active := ""
	for _, sc := range list {
		if sc.Active {
			active = sc.Name
		}
	}
	return http.StatusOK, map[string]any{"active": active, "scenarios": list}, nil
}

// handleScenarioPut serves PUT /__mock/scenario: {"name": "slow"}.
func (s *Server) handleScenarioPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeAdminBody(r, &body); err != nil {
		return 0, nil, err
	}
	if err := s.SetScenario(sid, body.Name); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]string{"scenario": body.Name, "session": sid}, nil
}

// handleReset serves POST /__mock/reset.
func (s *Server) handleReset(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	s.Reset(sid)
	return http.StatusOK, map[string]string{"reset": sid}, nil
}
