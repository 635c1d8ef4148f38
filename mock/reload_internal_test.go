package mock

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/scenarios"
)

// Reloads do not keep old versions' data alive.
func TestReloadForgetsOldData(t *testing.T) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"default.yaml": {Data: def}}
	s, err := New(Options{Scenarios: files})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		files["x.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "extends: default\ndescription: x\nseed: %d\n", i+1)}
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		s.scenarios["x"].store() // build it, as a request would
	}
	s.loader.cache.mu.Lock()
	n := len(s.loader.cache.m)
	s.loader.cache.mu.Unlock()
	if n != 2 {
		t.Errorf("%d data versions cached after 5 reloads, want 2 (default and the current x)", n)
	}
}

// Dropped sessions keep nothing, though the journal order still points
// at them for a while.
func TestDroppedSessionKeepsNothing(t *testing.T) {
	s, err := New(Options{MaxSessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	var first *session
	for i := range 10 {
		s.mu.Lock()
		ss := s.sessionLocked(fmt.Sprintf("s%d", i))
		s.mu.Unlock()
		if i == 0 {
			first = ss
		}
		ss.mu.Lock()
		ss.state(s.scenarios["default"])
		ss.mu.Unlock()
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	if !first.dropped || first.states != nil {
		t.Errorf("an evicted session keeps its state: dropped %v, %d states", first.dropped, len(first.states))
	}
}
