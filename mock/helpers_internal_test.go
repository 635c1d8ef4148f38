package mock

import sessionpkg "github.com/replymock/replymock/mock/internal/session"

// session is one caller's state on top of the scenarios' data.
type session = sessionpkg.Session

// resolve picks the session and scenario of an API request.
func (s *Server) resolve(sid, name string) (*session, *Scenario, error) {
	return s.st.Resolve(sid, name)
}

// scenarioMap is the scenarios served now, by name.
func (s *Server) scenarioMap() map[string]*Scenario { return s.st.Registry().All() }
