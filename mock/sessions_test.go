package mock_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// X-Mock-Scenario picks a scenario for one request; an unknown one is a 400.
func TestScenarioHeader(t *testing.T) {
	h := newServer(t, mock.Options{})
	if c := counts(t, h, "X-Mock-Scenario", "empty-shop"); c.Total != 0 {
		t.Errorf("empty-shop via header: total %d", c.Total)
	}
	if c := counts(t, h); c.Total != 1009 {
		t.Errorf("without the header: total %d", c.Total)
	}
	checkError(t, "unknown scenario", get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "nope"), 400, mock.CodeInvalidParameter, "X-Mock-Scenario")
	checkError(t, "bad session", get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "white space"), 400, mock.CodeInvalidParameter, "X-Mock-Session")
	checkError(t, "path escape", get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "../default"), 400, mock.CodeInvalidParameter, "X-Mock-Scenario")
	// A request that never got a scenario is not journaled: it ran nowhere.
	for _, e := range h.Requests(mock.JournalFilter{}) {
		if e.Status == 400 {
			t.Errorf("journal holds the request that named no scenario: %+v", e)
		}
	}
}

// Parallel sessions never see each other's settings, counters or journal.
func TestSessionsAreIsolated(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "first-calls-fail"})
	var wg sync.WaitGroup
	var failures atomic.Int32
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid := fmt.Sprintf("s%d", i)
			hdr := []string{"X-Mock-Session", sid}
			for range 2 { // this scenario fails each session's first two calls
				if r := get(t, h, "/api/v1/settings/ai", hdr...); r.status != 500 {
					failures.Add(1)
				}
			}
			tone := fmt.Sprintf("tone-%d", i)
			r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"tone":"`+tone+`"}]}`,
				"Content-Type", "application/json", "X-Mock-Session", sid)
			if r.status != 200 {
				failures.Add(1)
				return
			}
			for range 20 {
				var s mock.Settings
				r := get(t, h, "/api/v1/settings/ai", hdr...)
				if r.status != 200 || decodeQuiet(r.body, &s) != nil || s.Feedback[1].Tone != tone {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d requests saw another session's state", n)
	}
	m := h
	for i := range 12 {
		sid := fmt.Sprintf("s%d", i)
		reqs := m.Requests(mock.JournalFilter{Session: sid})
		if len(reqs) != 23 {
			t.Errorf("session %s journal has %d entries, want 23", sid, len(reqs))
		}
		for _, e := range reqs {
			if e.Session != sid {
				t.Errorf("session %s journal holds an entry of %s", sid, e.Session)
			}
		}
	}
	get(t, h, "/api/v1/settings/ai") // the default session's two failures
	get(t, h, "/api/v1/settings/ai")
	if got := getSettings(t, h); got.Feedback[1].Tone == "" || strings.HasPrefix(got.Feedback[1].Tone, "tone-") {
		t.Errorf("the default session sees tone %q", got.Feedback[1].Tone)
	}
}

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

// Admin reads about a session that does not exist answer what it would
// start as and create nothing: with a cap of 2, a burst of reads about
// other sessions does not evict the one session that has state.
func TestAdminReadsCreateNoSession(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{MaxSessions: 2, Now: clock.now})
	decodeOK(t, "PATCH a", do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"mine"}]}`,
		"Content-Type", "application/json", "X-Mock-Session", "a"), new(mock.Settings))
	for i := range 5 {
		clock.add(time.Second)
		sid := fmt.Sprintf("reader-%d", i)
		for _, target := range []string{
			"/__mock/faults?session=" + sid,
			"/__mock/settings?session=" + sid,
			"/__mock/data?session=" + sid,
			"/__mock/scenarios?session=" + sid,
			"/__mock/requests?session=" + sid,
			"/__mock/verify?count=0&session=" + sid,
			"/__mock/clock?scenario=demo-frozen&session=" + sid,
		} {
			if r := admin(t, h, "GET", target, ""); r.status != 200 {
				t.Fatalf("GET %s: %d %s", target, r.status, r.body)
			}
		}
	}
	if got := getSettingsAs(t, h, "a").Feedback[0].Tone; got != "mine" {
		t.Errorf("session a lost its settings (tone %q): reads about other sessions created sessions and evicted it", got)
	}
	var view struct {
		Session  string        `json:"session"`
		Scenario string        `json:"scenario"`
		Settings mock.Settings `json:"settings"`
	}
	decodeOK(t, "GET /__mock/settings?session=fresh", admin(t, h, "GET", "/__mock/settings?session=fresh", ""), &view)
	if want := getSettingsAs(t, h, mock.DefaultSession).Feedback[0].Tone; view.Session != "fresh" || view.Settings.Feedback[0].Tone != want {
		t.Errorf("a session that does not exist reads as %q with tone %q, want a fresh session with the scenario's tone %q",
			view.Session, view.Settings.Feedback[0].Tone, want)
	}
}
