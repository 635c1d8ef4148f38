package mock

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
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
	// Descriptions is the description by language (en, ru), when the
	// scenario gives them.
	Descriptions map[string]string `json:"descriptions,omitempty"`
	Extends      string            `json:"extends,omitempty"`
	Active       bool              `json:"active"`
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
		out = append(out, ScenarioInfo{Name: name, Description: sc.Description, Descriptions: sc.Descriptions, Extends: sc.Extends, Active: name == active})
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
		return wire.InvalidBody("name", "no scenario %q; have: %s", name, have)
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

// Reload reads the scenarios folder again and swaps in at once every file
// that changed, for a caller that knows the files are complete (Watch
// waits for a file to settle instead). If any file changed, every scenario
// is validated again and swapped in; a broken one is logged and its
// previous version keeps serving. It returns the problems found.
func (s *Server) Reload() error { return s.reload(false) }

// poll is one look at the scenarios folder by Watch: like Reload, but a
// changed file is taken only once it read the same in two polls in a row,
// so that a file still being written is never swapped in half-way, even
// when its beginning alone is a valid scenario.
func (s *Server) poll() error { return s.reload(true) }

func (s *Server) reload(settled bool) error {
	p, err := s.loader.newPass()
	if err != nil {
		return err
	}
	read := p.readAll()
	prev := s.loader.swapPolled(&folderState{files: read, skipped: p.skipped})
	s.loader.warnSkipped(p.skipped, prev)
	listed := p.names
	inFolder := func(n string) bool { return slices.Contains(listed, n) || p.skipped[n] != nil }
	var polled map[string][]byte
	if prev != nil {
		polled = prev.files
	}
	s.scenariosMu.Lock()
	last := s.seen
	if last == nil {
		last = s.sources
	}
	use := read // what this reload builds from
	if settled {
		use = make(map[string][]byte, len(read))
		var ready []string
		for _, n := range p.names {
			old, ok := polled[n]
			src, serving := s.sources[n]
			switch {
			case ok && bytes.Equal(old, read[n]):
				use[n] = read[n] // the same in two polls in a row
			case serving:
				// Still changing: build the version serving now.
				use[n] = src
				p.files[n] = fileRead{data: src}
			default:
				// New and still changing: as if not there yet.
				p.files[n] = fileRead{err: fs.ErrNotExist}
				continue
			}
			ready = append(ready, n)
		}
		p.names = ready
	}
	changed := !maps.EqualFunc(use, last, bytes.Equal)
	s.seen = use
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
		next[n], sources[n] = sc, use[n]
	}
	s.scenariosMu.Lock()
	defer s.scenariosMu.Unlock()
	for n, old := range s.scenarios {
		if _, ok := next[n]; !ok && (inFolder(n) || n == s.active) {
			next[n] = old // broken, skipped, or removed while active: keep it
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

// Watch looks at the scenarios folder every interval until ctx ends, and
// swaps in each changed file once it has stayed the same for one interval
// (see poll). Problems are logged, and the previous versions keep serving.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.poll() // problems are logged by reload
		}
	}
}
