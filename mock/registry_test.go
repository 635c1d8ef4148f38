package mock_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// Hot reload swaps a changed file in and keeps serving the old version of
// a broken one.
func TestReload(t *testing.T) {
	def, _ := scenarios.FS.ReadFile("default.yaml")
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"mine.yaml":    {Data: []byte("extends: default\ndescription: first\nfaults: [{error: {status: 500}}]\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files})
	desc := func() string {
		for _, sc := range h.Scenarios(mock.DefaultSession) {
			if sc.Name == "mine" {
				return sc.Description
			}
		}
		return ""
	}
	if r := get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine"); r.status != 500 {
		t.Fatalf("mine: %d", r.status)
	}
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: second\nfaults: [{error: {status: 502}}]\n")}
	if err := h.Reload(); err != nil {
		t.Fatalf("reload of a good file: %v", err)
	}
	if desc() != "second" || get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine").status != 502 {
		t.Errorf("after reload: %q", desc())
	}
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: third\nfaults: [{error: {status: 99}}]\n")}
	err := h.Reload()
	if err == nil || !strings.Contains(err.Error(), "scenarios/mine.yaml:3:") || !strings.Contains(err.Error(), "faults[0].error.status") {
		t.Errorf("reload of a broken file: %v", err)
	}
	if desc() != "second" || get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine").status != 502 {
		t.Errorf("the broken file replaced the good version: %q", desc())
	}
	files["new.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: new one\ndata: {}\n")}
	h.Reload() // mine.yaml is still broken; new.yaml is fine
	if c := counts(t, h, "X-Mock-Scenario", "new"); c.Total != 0 {
		t.Errorf("new scenario: total %d", c.Total)
	}
}

// Sessions' counters survive a reload that does not change their scenario.
func TestReloadKeepsCounters(t *testing.T) {
	def, _ := scenarios.FS.ReadFile("default.yaml")
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"once.yaml":    {Data: []byte("extends: default\ndescription: once\nfaults: [{times: 1, error: {status: 500}}]\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files, Scenario: "once"})
	if get(t, h, "/api/v1/feedbacks").status != 500 {
		t.Fatal("first call should fail")
	}
	files["other.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: other\n")}
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	if r := get(t, h, "/api/v1/feedbacks"); r.status != 200 {
		t.Errorf("after an unrelated reload the fault fired again: %d", r.status)
	}
}
