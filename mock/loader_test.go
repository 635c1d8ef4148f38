package mock_test

import (
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// countFS counts the opens of each file.
type countFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *countFS) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.opens
	c.opens = make(map[string]int)
	return got
}

// Start-up and each reload read every scenario file exactly once, though
// most of the shipped ones extend default.
func TestEachScenarioFileReadOnce(t *testing.T) {
	files := &countFS{FS: scenarios.FS, opens: make(map[string]int)}
	s := newServer(t, mock.Options{Scenarios: files})
	names, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(names) < 10 {
		t.Fatalf("shipped scenarios: %v %v", names, err)
	}
	check := func(when string) {
		t.Helper()
		opens := files.take()
		for _, n := range names {
			if opens[n] != 1 {
				t.Errorf("%s: %s read %d times, want once", when, n, opens[n])
			}
		}
		for n, k := range opens {
			if strings.HasSuffix(n, ".yaml") && !strings.Contains(n, "/") && k > 1 {
				t.Errorf("%s: %s read %d times", when, n, k)
			}
		}
	}
	check("start")
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	check("reload of unchanged files")
	if _, err := mock.ValidateScenarios(mock.Options{Scenarios: files}); err != nil {
		t.Fatal(err)
	}
	check("validate")
}
