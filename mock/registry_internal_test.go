package mock

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

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

// A file being written is not swapped in half-way: a changed file is
// taken once it read the same in two polls in a row, even when its
// beginning alone is a valid scenario.
func TestPollWaitsForAFileToSettle(t *testing.T) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const complete = "extends: default\ndescription: complete\nfaults: [{error: {status: 502}}]\n"
	half := complete[:len("extends: default\ndescription: comp")] // valid on its own
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"mine.yaml":    {Data: []byte("extends: default\ndescription: first\n")},
	}
	s, err := New(Options{Scenarios: files})
	if err != nil {
		t.Fatal(err)
	}
	desc := func(name string) string {
		s.scenariosMu.Lock()
		defer s.scenariosMu.Unlock()
		if sc := s.scenarios[name]; sc != nil {
			return sc.Description
		}
		return "(none)"
	}
	steps := []struct {
		what      string
		mine, new string // the files' contents before the poll ("" leaves them)
		wantMine  string // the descriptions served after it
		wantNew   string
	}{
		{"the first half written", half, "", "first", "(none)"},
		{"the rest written", complete, "", "first", "(none)"},
		{"unchanged since the last poll", "", "", "complete", "(none)"},
		{"a new file, half written", "", "extends: default\ndescription: ne", "complete", "(none)"},
		{"the new file complete", "", "extends: default\ndescription: new one\n", "complete", "(none)"},
		{"the new file unchanged", "", "", "complete", "new one"},
	}
	for _, st := range steps {
		if st.mine != "" {
			files["mine.yaml"] = &fstest.MapFile{Data: []byte(st.mine)}
		}
		if st.new != "" {
			files["new.yaml"] = &fstest.MapFile{Data: []byte(st.new)}
		}
		if err := s.poll(); err != nil {
			t.Fatalf("%s: poll: %v", st.what, err)
		}
		if got, got2 := desc("mine"), desc("new"); got != st.wantMine || got2 != st.wantNew {
			t.Errorf("after a poll with %s: mine %q, new %q; want %q, %q", st.what, got, got2, st.wantMine, st.wantNew)
		}
	}
	// Reload, for a caller that knows the file is complete, does not wait.
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: at once\n")}
	if err := s.Reload(); err != nil || desc("mine") != "at once" {
		t.Errorf("Reload: %v, mine %q; want it swapped in at once", err, desc("mine"))
	}
}

// A named pipe that appears in the scenarios folder stops neither polls
// nor the reload of a good change after it, and is warned about once.
func TestPollAfterANamedPipeAppears(t *testing.T) {
	dir := t.TempDir()
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("default.yaml", string(def))
	write("mine.yaml", "extends: default\ndescription: first\n")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var logs bytes.Buffer // written by the polls below, one at a time
	s, err := New(Options{Scenarios: root.FS(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A hang detector, not a speed check: opening the pipe would wait for
	// a writer for ever.
	poll := func() {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- s.poll() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("poll: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("poll has not returned after 10 s: it opened the named pipe")
		}
	}
	poll()
	poll()
	if n := strings.Count(logs.String(), "scenarios/pipe.yaml: skipped: a named pipe, not a regular file"); n != 1 {
		t.Errorf("the pipe is warned about %d times in two polls, want once:\n%s", n, logs.String())
	}
	write("mine.yaml", "extends: default\ndescription: second\n")
	poll()
	poll()
	s.scenariosMu.Lock()
	got := s.scenarios["mine"].Description
	s.scenariosMu.Unlock()
	if got != "second" {
		t.Errorf("after a change and two polls, mine is %q, want %q", got, "second")
	}
}

// Data anchored to now ends at the clock's time when its scenario is
// loaded; a reload that changes another file keeps that version and its
// data, although the clock has moved on; a change to the file itself
// anchors it anew.
func TestReloadKeepsDataAnchoredToNow(t *testing.T) {
	clock := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	anchored := func(count int) []byte {
		return fmt.Appendf(nil, "description: now\nseed: 5\nsettings: settings/default.yaml\ndata:\n  generate:\n    count: %d\n    end: now-1h\n    days: 30\n", count)
	}
	files := fstest.MapFS{"now.yaml": {Data: anchored(50)}, "other.yaml": {Data: []byte("description: x\nseed: 1\nsettings: settings/default.yaml\n")}}
	s, err := New(Options{Scenarios: files, Scenario: "now", Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	newest := func() string {
		st, err := s.scenarios["now"].store()
		if err != nil {
			t.Fatal(err)
		}
		fbs := listFeedbacks(t, st)
		return fbs[0].CreatedDate // newest first
	}
	first := s.scenarios["now"]
	if got := newest(); got > "2027-03-01 11:00:00" || got < "2027-02-28 11:00:00" {
		t.Fatalf("newest review %s; want within the day before 2027-03-01 11:00:00 (now-1h)", got)
	}
	clock = clock.Add(72 * time.Hour)
	files["other.yaml"] = &fstest.MapFile{Data: []byte("description: y\nseed: 2\nsettings: settings/default.yaml\n")}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if s.scenarios["now"] != first {
		t.Errorf("a change to another file made a new version of the scenario anchored to now")
	}
	files["now.yaml"] = &fstest.MapFile{Data: anchored(60)}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := newest(); got < "2027-03-03 11:00:00" {
		t.Errorf("after its own change, the newest review is %s; want it anchored to the clock's new time", got)
	}
}
