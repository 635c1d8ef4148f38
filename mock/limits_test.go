package mock_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// A new session over MaxSessions evicts the least recently used one; the
// default session is never evicted.
func TestSessionCap(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{MaxSessions: 3, Now: clock.now})
	tone := func(sid string) string { return getSettingsAs(t, h, sid).Feedback[0].Tone }
	setTone := func(sid, tone string) {
		decodeOK(t, "PATCH "+sid, do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"`+tone+`"}]}`,
			"Content-Type", "application/json", "X-Mock-Session", sid), new(mock.Settings))
		clock.add(time.Second)
	}
	setTone(mock.DefaultSession, "d")
	setTone("a", "a")
	setTone("b", "b")
	clock.add(time.Second)
	tone("a") // a is now more recent than b
	setTone("c", "c")
	if tone("a") != "a" || tone("c") != "c" || tone(mock.DefaultSession) != "d" {
		t.Errorf("kept sessions lost their state: a %q, c %q, default %q", tone("a"), tone("c"), tone(mock.DefaultSession))
	}
	if got := tone("b"); got == "b" {
		t.Error("the least recently used session b survived the cap")
	}
	for i := range 50 {
		get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", fmt.Sprintf("burst-%d", i))
	}
	sessions := map[string]bool{}
	for _, e := range h.Requests(mock.JournalFilter{}) {
		sessions[e.Session] = true
	}
	if len(sessions) > 3 {
		t.Errorf("%d sessions have journals after a burst of 50, want at most 3: %v", len(sessions), sessions)
	}
}

// An unused session expires after SessionTTL; the default one does not.
func TestSessionTTL(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{SessionTTL: time.Minute, Now: clock.now})
	for _, sid := range []string{mock.DefaultSession, "old"} {
		do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"kept"}]}`, "Content-Type", "application/json", "X-Mock-Session", sid)
	}
	clock.add(2 * time.Minute)
	get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "new") // a new session sweeps
	if getSettingsAs(t, h, "old").Feedback[0].Tone == "kept" {
		t.Error("a session idle for twice the TTL kept its settings")
	}
	if getSettingsAs(t, h, mock.DefaultSession).Feedback[0].Tone != "kept" {
		t.Error("the default session expired")
	}
}

// Over the journals' body budget, entries are kept without bodies.
func TestJournalBytes(t *testing.T) {
	h := newServer(t, mock.Options{JournalBytes: 50_000})
	for range 6 {
		get(t, h, "/api/v1/feedbacks") // about 18 KB each
	}
	entries := h.Requests(mock.JournalFilter{})
	if len(entries) != 6 {
		t.Fatalf("%d entries, want 6", len(entries))
	}
	kept := 0
	for _, e := range entries {
		if e.Response != "" {
			kept++
		} else if !e.Truncated {
			t.Errorf("entry %d lost its body without being marked truncated", e.Seq)
		}
	}
	if kept == 0 || kept > 3 {
		t.Errorf("%d entries kept their bodies, want the first 1 to 3 under a 50 KB budget", kept)
	}
	h.ClearRequests(mock.AllSessions)
	get(t, h, "/api/v1/feedbacks")
	if e := h.Requests(mock.JournalFilter{}); len(e) != 1 || e[0].Response == "" {
		t.Error("clearing the journal did not give its budget back")
	}
}

func TestReadOnly(t *testing.T) {
	h := newServer(t, mock.Options{ReadOnly: true})
	before := getSettings(t, h)
	checkError(t, "PATCH", patch(t, h, `{"feedback":[{"rating":1,"tone":"x"}]}`), http.StatusForbidden, mock.CodeForbidden, "")
	for _, tc := range []struct{ method, target, body string }{
		{"PUT", "/__mock/scenario", `{"name":"down"}`},
		{"POST", "/__mock/reset", ""},
		{"POST", "/__mock/faults", `{"drop":true}`},
		{"DELETE", "/__mock/faults", ""},
		{"DELETE", "/__mock/requests", ""},
	} {
		checkError(t, tc.method+" "+tc.target, admin(t, h, tc.method, tc.target, tc.body), http.StatusForbidden, mock.CodeForbidden, "")
	}
	if after := getSettings(t, h); !reflect.DeepEqual(after, before) {
		t.Error("read-only settings changed")
	}
	for _, target := range []string{"/api/v1/feedbacks", "/__mock/scenarios", "/__mock/faults", "/__mock/requests", "/__mock/health"} {
		if r := get(t, h, target); r.status != 200 {
			t.Errorf("GET %s in read-only mode: %d", target, r.status)
		}
	}
	if r := get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "empty-shop"); r.status != 200 || !strings.Contains(string(r.body), `"total":0`) {
		t.Errorf("a read-only demo still lets a request pick a scenario: %d", r.status)
	}
}

// APIHandler leaves out the admin API but health.
func TestAPIHandler(t *testing.T) {
	h := newServer(t, mock.Options{}).APIHandler()
	for target, want := range map[string]int{
		"/api/v1/feedbacks?limit=1": 200, "/__mock/health": 200,
		"/__mock/scenarios": 404, "/__mock/requests": 404, "/__mock/openapi.yaml": 404, "/__mock/": 404,
	} {
		if r := get(t, h, target); r.status != want {
			t.Errorf("GET %s: %d, want %d", target, r.status, want)
		}
	}
}

// Over the entry budget of all journals, the oldest entry of any session goes.
func TestJournalEntries(t *testing.T) {
	h := newServer(t, mock.Options{JournalEntries: 5})
	for i := range 9 {
		get(t, h, fmt.Sprintf("/api/v1/feedbacks?limit=%d", i+1), "X-Mock-Session", []string{"a", "b", "c"}[i%3])
	}
	e := h.Requests(mock.JournalFilter{})
	if len(e) != 5 {
		t.Fatalf("%d entries kept, want 5", len(e))
	}
	for i, want := range []string{"limit=5", "limit=6", "limit=7", "limit=8", "limit=9"} {
		if e[i].Query != want {
			t.Errorf("entry %d: %s, want %s (the newest five)", i, e[i].Query, want)
		}
	}
	if a := h.Requests(mock.JournalFilter{Session: "a"}); len(a) != 1 || a[0].Query != "limit=7" {
		t.Errorf("session a keeps %+v, want only its newest", a)
	}
}

// The bound on all journals holds when one session's requests race.
func TestJournalEntriesConcurrent(t *testing.T) {
	h := newServer(t, mock.Options{JournalEntries: 20})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				do(t, h, "GET", "/api/v1/settings/ai", "")
			}
		})
	}
	wg.Wait()
	if n := len(h.Requests(mock.JournalFilter{})); n > 20 {
		t.Errorf("%d entries kept, want at most 20", n)
	}
}

// A session idle for longer than the TTL starts again, even when no other
// session is created.
func TestSessionTTLOnReturn(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{SessionTTL: time.Minute, Now: clock.now})
	h.AddFault("x", mock.Fault{Error: &mock.FaultError{Status: 503}})
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "x"); r.status != 503 {
		t.Fatalf("fault not applied: %d", r.status)
	}
	clock.add(2 * time.Hour)
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "x"); r.status != 200 {
		t.Errorf("after 2 h idle, session x still has its fault: %d", r.status)
	}
}
