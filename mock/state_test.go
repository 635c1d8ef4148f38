package mock_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// A save writes each session once it changed, leaves an unchanged one
// alone, and removes the file of a session that is gone; a server on the
// folder comes back with the sessions as they were.
func TestStateDirSave(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{Now: clock.now})
	dir := t.TempDir()
	d, err := mock.OpenStateDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat(".", 128)
	for _, s := range []string{"a", "b", "c.1", "Alice", "alice", long} {
		patchIn(t, h, s, `{"feedback":[{"rating":1,"signature":"`+s+`"}]}`)
	}
	if err := d.Save(h); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(dir, "sessions", name) }
	for _, name := range []string{"a.json", "b.json", "c%2E1.json", "%41lice.json", "alice.json"} {
		if _, err := os.Stat(file(name)); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
	stamp := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(file("a.json"), stamp, stamp)
	os.Chtimes(file("b.json"), stamp, stamp)
	clock.add(time.Minute)
	get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "a") // used, unchanged
	patchIn(t, h, "b", `{"feedback":[{"rating":1,"signature":"b2"}]}`)
	do(t, h, http.MethodPost, "/__mock/reset?session=c.1", "")
	if err := d.Save(h); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(file("a.json")); !fi.ModTime().Equal(stamp) {
		t.Error("an unchanged session was written again")
	}
	if fi, _ := os.Stat(file("b.json")); fi.ModTime().Equal(stamp) {
		t.Error("a changed session was not written")
	}
	if _, err := os.Stat(file("c%2E1.json")); !os.IsNotExist(err) {
		t.Errorf("a reset session's file is still there: %v", err)
	}
	want := map[string]string{"a": sessionView(t, h, "a"), "b": sessionView(t, h, "b"), "Alice": sessionView(t, h, "Alice"), "alice": sessionView(t, h, "alice"), long: sessionView(t, h, long)}
	again := newServer(t, mock.Options{Now: clock.now})
	d2, _ := mock.OpenStateDir(dir, nil)
	if n := d2.Restore(again); n != len(want) {
		t.Errorf("restored %d sessions, want %d", n, len(want))
	}
	for s, w := range want {
		if got := sessionView(t, again, s); got != w {
			t.Errorf("session %s restored: %s", s, firstDiff(got, w))
		}
	}
}
