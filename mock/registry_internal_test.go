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
