package mock

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"
)

// Scenario returns the scenario the server serves by default.
func (s *Server) Scenario() *Scenario {
	s.scenariosMu.Lock()
	defer s.scenariosMu.Unlock()
	return s.scenarios[s.active]
}

// ScenarioInfo describes one scenario for the admin API.
type ScenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Extends     string `json:"extends,omitempty"`
	Active      bool   `json:"active"`
}

// Scenarios lists the scenarios, marking the one active for session.
func (s *Server) Scenarios(sid string) []ScenarioInfo {
	picked := ""
	if sid != AllSessions {
		for _, ss := range s.sessionsOf(sid) {
			ss.mu.Lock()
			picked = ss.scenario
			ss.mu.Unlock()
		}
	}
	s.scenariosMu.Lock()
	defer s.scenariosMu.Unlock()
	active := s.active
	if picked != "" {
		active = picked
	}
	out := make([]ScenarioInfo, 0, len(s.scenarios))
	for _, name := range slices.Sorted(maps.Keys(s.scenarios)) {
		sc := s.scenarios[name]
		out = append(out, ScenarioInfo{Name: name, Description: sc.Description, Extends: sc.Extends, Active: name == active})
	}
	return out
}

// SetScenario makes name the active scenario of session, or of the server
// (every session that has not picked its own) when session is AllSessions.
func (s *Server) SetScenario(sid, name string) error {
	s.scenariosMu.Lock()
	sc, ok := s.scenarios[name]
	if !ok {
		have := strings.Join(slices.Sorted(maps.Keys(s.scenarios)), ", ")
		s.scenariosMu.Unlock()
		return invalidBody("name", "no scenario %q; have: %s", name, have)
	}
	if sid == AllSessions {
		s.active = name
	}
	s.scenariosMu.Unlock()
	// Picks are written holding sessionsMu, so that a Reset, which keeps
	// a session's pick, cannot drop the session in between.
	s.sessionsMu.Lock()
	pick := func(ss *session, name string) {
		ss.mu.Lock()
		ss.scenario = name
		ss.mu.Unlock()
	}
	if sid == AllSessions {
		for _, ss := range s.sessions {
			pick(ss, "") // every session follows the server again
		}
	} else {
		pick(s.sessionLocked(sid), name)
	}
	s.sessionsMu.Unlock()
	s.log.Info("scenario switched", "session", sid, "scenario", name)
	_, err := sc.store() // build its data now rather than in the next request
	return err
}

// Reload reads the scenarios folder again. If any file changed, every
// scenario is validated again and swapped in; a broken one is logged and
// its previous version keeps serving. It returns the problems found.
func (s *Server) Reload() error {
	p, err := s.loader.newPass()
	if err != nil {
		return err
	}
	seen := make(map[string][]byte, len(p.names))
	for _, n := range p.names {
		data, err := p.read(n)
		if err != nil {
			data = []byte(err.Error()) // a file that cannot be read has changed too; load reports it
		}
		seen[n] = data
	}
	s.scenariosMu.Lock()
	last := s.seen
	if last == nil {
		last = s.sources
	}
	changed := !maps.EqualFunc(seen, last, bytes.Equal)
	s.seen = seen
	s.scenariosMu.Unlock()
	if !changed {
		return nil
	}
	var errs []error
	next := make(map[string]*Scenario)
	sources := make(map[string][]byte)
	for _, n := range p.names {
		sc, err := p.load(n) // from the bytes read above
		if err != nil {
			errs = append(errs, err)
			s.log.Error("scenario reload failed; the previous version keeps serving", "scenario", n, "err", err)
			continue
		}
		next[n], sources[n] = sc, seen[n]
	}
	s.scenariosMu.Lock()
	defer s.scenariosMu.Unlock()
	for n, old := range s.scenarios {
		if _, ok := next[n]; !ok && (slices.Contains(p.names, n) || n == s.active) {
			next[n] = old // broken, or removed while active: keep it
			sources[n] = s.sources[n]
		}
	}
	for n, sc := range next {
		if !bytes.Equal(sources[n], s.sources[n]) {
			s.log.Info("scenario reloaded", "scenario", n)
		}
		if old, ok := s.scenarios[n]; ok && old.fingerprint == sc.fingerprint {
			next[n] = old // unchanged: keep the same version, so counters go on
		}
	}
	s.scenarios, s.sources = next, sources
	s.loader.cache.retain(next) // old versions' data can go
	return errors.Join(errs...)
}

// Watch calls Reload every interval until ctx ends.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Reload() // problems are logged by Reload
		}
	}
}
