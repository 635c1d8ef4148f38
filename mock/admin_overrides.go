package mock

import "net/http"

// handleOverridesGet serves GET /__mock/overrides: those for every
// session, or ?session=ID's own.
func (s *Server) handleOverridesGet(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.OverridesFor(sid), nil
}

// handleOverridesPut serves PUT /__mock/overrides: for every session,
// or ?session=ID.
func (s *Server) handleOverridesPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	var o Overrides
	if err := decodeAdminBody(r, &o); err != nil {
		return 0, nil, err
	}
	if err := s.SetOverridesFor(sid, o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o, nil
}
