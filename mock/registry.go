package mock

import (
	"context"
	"time"
)

// Scenario returns the scenario the server serves by default.
func (s *Server) Scenario() *Scenario { return s.st.Registry().Default() }

// Scenarios lists the scenarios, marking the one active for session.
func (s *Server) Scenarios(sid string) []ScenarioInfo { return s.st.Scenarios(sid) }

// SetScenario makes name the active scenario of session sid, or with
// AllSessions of every session that has not picked its own.
func (s *Server) SetScenario(sid, name string) error { return s.st.SetScenario(sid, name) }

// Reload reads the scenarios folder again and swaps in every file that
// changed, at once. A broken file is logged and its previous version
// keeps serving. It returns the problems found.
func (s *Server) Reload() error { return s.st.Registry().Reload(false) }

// Watch looks at the scenarios folder every interval until ctx ends. It
// swaps in a changed file once it has stayed the same for one interval,
// so a file still being written is never read half-way. Problems are
// logged, and the previous versions keep serving.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	s.st.Registry().Watch(ctx, interval)
}
