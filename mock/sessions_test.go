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

// A session evicted (past MaxSessions, or idle past SessionTTL) and used
// again says so, once: its first API answer after carries a warning
// naming when and why, which its journal keeps. To make room, sessions
// that only read go before those that wrote.
func TestEvictedSessionSaysSo(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{MaxSessions: 3, SessionTTL: time.Hour, Now: clock.now})
	write := func(sid string) {
		t.Helper()
		if r := do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"warm"}]}`, "Content-Type", "application/json", "X-Mock-Session", sid); r.status != 200 {
			t.Fatalf("PATCH %s: %d", sid, r.status)
		}
		clock.add(time.Second)
	}
	read := func(sid string) []string {
		t.Helper()
		r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", sid)
		clock.add(time.Second)
		return r.header.Values(mock.HeaderWarning)
	}
	write("ci") // the oldest, but it wrote
	read("r1")  // read only
	read("r2")
	write("w1") // evicts r1, not ci
	if w := read("ci"); len(w) != 0 {
		t.Fatalf("ci, kept, warns %q", w)
	}
	write("w2") // evicts r2
	write("w3") // all wrote: evicts the least recently used, w1
	w := read("w1")
	if len(w) != 1 || !strings.Contains(w[0], "session w1 was evicted at 2026-11-20T12:00:") ||
		!strings.Contains(w[0], "the least recently used, past --max-sessions 3") {
		t.Fatalf("w1's first request after its eviction warns %q", w)
	}
	if tone := getSettingsAs(t, h, "w1").Feedback[0].Tone; tone == "warm" {
		t.Errorf("w1 kept its settings through its eviction")
	}
	if w := read("w1"); len(w) != 0 {
		t.Errorf("w1's second request warns again: %q", w)
	}
	entries := h.Requests(mock.JournalFilter{Session: "w1"})
	if len(entries) == 0 || len(entries[0].Warnings) != 1 || !strings.Contains(entries[0].Warnings[0], "was evicted") {
		t.Errorf("w1's journal does not keep the warning: %+v", entries)
	}
	// Verifying a request the eviction took says why it is missing; one
	// that is there does not.
	v, err := h.Verify(mock.JournalFilter{Session: "w1", Method: "PATCH"}, mock.AtLeast(1))
	if err != nil || v.OK || !strings.Contains(v.Evicted, "session w1 was evicted at") {
		t.Errorf("verify of w1's PATCH, gone with its eviction: %+v %v", v, err)
	}
	r := admin(t, h, "GET", "/__mock/verify?session=w1&method=PATCH", "")
	if r.status != 409 || !strings.Contains(string(r.body), "session w1 was evicted at") {
		t.Errorf("GET /__mock/verify of w1's PATCH: %d %s", r.status, r.body)
	}
	if v, err := h.Verify(mock.JournalFilter{Session: "w1", Method: "GET"}, mock.AtLeast(1)); err != nil || !v.OK || v.Evicted != "" {
		t.Errorf("verify of w1's GETs: %+v %v", v, err)
	}
	// r1, evicted for room long ago, says so too.
	if w := read("r1"); len(w) != 1 || !strings.Contains(w[0], "session r1 was evicted") {
		t.Errorf("r1 warns %q", w)
	}

	// Idle past the TTL.
	write("idle")
	clock.add(2 * time.Hour)
	if w := read("idle"); len(w) != 1 || !strings.Contains(w[0], "unused for longer than --session-ttl, 1h0m0s") {
		t.Errorf("a session idle for 2 h warns %q", w)
	}
}
