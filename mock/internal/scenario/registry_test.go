package scenario

import (
	"bytes"
	"cmp"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/scenarios"
)

// Reloads do not keep old versions' data alive.
func TestReloadForgetsOldData(t *testing.T) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"default.yaml": {Data: def}}
	r := load(t, Config{Scenarios: files}, "")
	for i := range 5 {
		files["x.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "extends: default\ndescription: x\nseed: %d\n", i+1)}
		if err := r.Reload(false); err != nil {
			t.Fatal(err)
		}
		r.All()["x"].Store() // build it, as a request would
	}
	r.l.cache.mu.Lock()
	n := len(r.l.cache.m)
	r.l.cache.mu.Unlock()
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
	r := load(t, Config{Scenarios: files}, "")
	desc := func(name string) string {
		if sc, _, ok := r.Get(name); ok {
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
		if err := r.Reload(true); err != nil {
			t.Fatalf("%s: poll: %v", st.what, err)
		}
		if got, got2 := desc("mine"), desc("new"); got != st.wantMine || got2 != st.wantNew {
			t.Errorf("after a poll with %s: mine %q, new %q; want %q, %q", st.what, got, got2, st.wantMine, st.wantNew)
		}
	}
	// Reload, for a caller that knows the file is complete, does not wait.
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: at once\n")}
	if err := r.Reload(false); err != nil || desc("mine") != "at once" {
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
	r := load(t, Config{Scenarios: root.FS(), Logger: slog.New(slog.NewTextHandler(&logs, nil))}, "")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A hang detector, not a speed check: opening the pipe would wait for
	// a writer for ever.
	poll := func() {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- r.Reload(true) }()
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
	got := r.All()["mine"].Description
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
	r := load(t, Config{Scenarios: files, Now: func() time.Time { return clock }}, "now")
	newest := func() string {
		st, err := r.All()["now"].Store()
		if err != nil {
			t.Fatal(err)
		}
		fbs, err := st.Feedbacks()
		if err != nil {
			t.Fatal(err)
		}
		return slices.MaxFunc(fbs, func(a, b reviews.Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) }).CreatedDate
	}
	first := r.All()["now"]
	if got := newest(); got > "2027-03-01 11:00:00" || got < "2027-02-28 11:00:00" {
		t.Fatalf("newest review %s; want within the day before 2027-03-01 11:00:00 (now-1h)", got)
	}
	clock = clock.Add(72 * time.Hour)
	files["other.yaml"] = &fstest.MapFile{Data: []byte("description: y\nseed: 2\nsettings: settings/default.yaml\n")}
	if err := r.Reload(false); err != nil {
		t.Fatal(err)
	}
	if r.All()["now"] != first {
		t.Errorf("a change to another file made a new version of the scenario anchored to now")
	}
	files["now.yaml"] = &fstest.MapFile{Data: anchored(60)}
	if err := r.Reload(false); err != nil {
		t.Fatal(err)
	}
	if got := newest(); got < "2027-03-03 11:00:00" {
		t.Errorf("after its own change, the newest review is %s; want it anchored to the clock's new time", got)
	}
}

// load is the registry a server with cfg serves, active its default
// ("" for "default"), its data anchored to the present as a server's.
func load(t *testing.T, cfg Config, active string) *Registry {
	t.Helper()
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	r, err := Load(NewLoader(cfg), now().UTC().Truncate(time.Second), cmp.Or(active, "default"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
