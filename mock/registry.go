package mock

import (
	"context"
	sessionpkg "github.com/replymock/replymock/mock/internal/session"
	"time"
)

// Scenario returns the scenario the server serves by default.
func (s *Server) Scenario() *Scenario { return s.registry.Default() }

// Scenarios lists the scenarios, marking the one active for session.
func (s *Server) Scenarios(sid string) []ScenarioInfo {
	picked := ""
	if sid != AllSessions {
		for _, ss := range s.sessions.List(sid) {
			picked = ss.Pick()
		}
	}
	return s.registry.List(picked)
}

// SetScenario makes name the active scenario of session, or of the server
// (every session that has not picked its own) when session is AllSessions.
func (s *Server) SetScenario(sid, name string) error {
	sc, err := s.registry.Pick(name, sid == AllSessions)
	if err != nil {
		return err
	}
	// Picks are written with the store held, so that a Reset, which keeps
	// a session's pick, cannot drop the session in between.
	s.sessions.Update(func(tx sessionpkg.Tx) error {
		if sid != AllSessions {
			tx.Open(sid).SetPick(name)
			return nil
		}
		for _, ss := range tx.List(AllSessions) {
			ss.SetPick("") // every session follows the server again
		}
		return nil
	})
	s.log.Info("scenario switched", "session", sid, "scenario", name)
	_, err = sc.Store() // build its data now rather than in the next request
	return err
}

// Reload reads the scenarios folder again and swaps in at once every file
// that changed, for a caller that knows the files are complete (Watch
// waits for a file to settle instead). If any file changed, every scenario
// is validated again and swapped in; a broken one is logged and its
// previous version keeps serving. It returns the problems found.
func (s *Server) Reload() error { return s.registry.Reload(false) }

// Watch looks at the scenarios folder every interval until ctx ends, and
// swaps in each changed file once it has stayed the same for one interval
// (a file still being written is never swapped in half-way, even when its
// beginning alone is a valid scenario). Problems are logged, and the
// previous versions keep serving.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	s.registry.Watch(ctx, interval)
}
