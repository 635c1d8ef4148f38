package mock_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/replymock/replymock/mock"
)

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

func TestJournal(t *testing.T) {
	h := newServer(t, mock.Options{JournalSize: 4})
	get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "j")
	patch(t, h, `{}`)
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"question":{"tone":"calm"}}`, "Content-Type", "application/json", "X-Mock-Session", "j", "X-Mock-Scenario", "strict-tones")
	get(t, h, "/api/v1/nope", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=2", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=3", "X-Mock-Session", "j")

	var j struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j", ""), &j)
	if j.Count != 4 {
		t.Fatalf("journal of j: %d entries, want the newest 4", j.Count)
	}
	if j.Requests[0].Method != "PATCH" {
		t.Errorf("oldest kept entry %s %s, want the PATCH (the first GET fell out)", j.Requests[0].Method, j.Requests[0].Path)
	}
	if q := j.Requests[3].Query; q != "limit=3" {
		t.Errorf("newest entry query %q", q)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j&path=/api/v1/feedbacks", ""), &j)
	if j.Count != 2 {
		t.Errorf("path filter: %d entries", j.Count)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?method=PATCH", ""), &j)
	if j.Count != 2 {
		t.Fatalf("PATCH filter over all sessions: %d entries", j.Count)
	}
	e := j.Requests[0]
	if e.Session != "default" || e.Status != 200 || e.Body != "{}" || !strings.Contains(e.Response, `"feedback"`) || e.Headers["Content-Type"] != "application/json" {
		t.Errorf("PATCH entry %+v", e)
	}
	if j.Requests[1].Scenario != "strict-tones" || j.Requests[1].Session != "j" {
		t.Errorf("entry scenario %q session %q", j.Requests[1].Scenario, j.Requests[1].Session)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?path=/api/v1/*&limit=1", ""), &j)
	if j.Count != 1 || j.Requests[0].Query != "limit=3" {
		t.Errorf("limit=1: %+v", j.Requests)
	}
	decodeOK(t, "DELETE requests", admin(t, h, "DELETE", "/__mock/requests?session=j", ""), new(map[string]string))
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests", ""), &j)
	if j.Count != 1 || j.Requests[0].Session != "default" {
		t.Errorf("after clearing j: %+v", j.Requests)
	}
	checkError(t, "bad limit", admin(t, h, "GET", "/__mock/requests?limit=0", ""), 400, mock.CodeInvalidParameter, "limit")
}

// The journal keeps the request body even when no handler read it.
func TestJournalBodyWhenFaulted(t *testing.T) {
	for _, name := range []string{"settings-save-fails", "unauthorized", "down"} {
		h := newServer(t, mock.Options{Scenario: name})
		patch(t, h, `{"feedback":[{"rating":1,"tone":"calm"}]}`)
		if e := h.Requests(mock.JournalFilter{}); len(e) != 1 || e[0].Body != `{"feedback":[{"rating":1,"tone":"calm"}]}` {
			t.Errorf("%s: journal %+v, want the PATCH body", name, e)
		}
	}
}

// The journal never gives back a secret the client sent: credentials are
// redacted, their scheme kept; auth still checks the real token.
func TestJournalRedactsSecrets(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "unauthorized"})
	ok := get(t, h, "/api/v1/settings/ai", "Authorization", "Bearer demo-token", "Cookie", "sid=s3cret; theme=dark",
		"Proxy-Authorization", "Basic dXNlcjpzM2NyZXQ=", "X-Mock-Admin-Token", "admin-s3cret", "X-Mock-Session", "redact")
	if ok.status != 200 {
		t.Fatalf("the right token: %d", ok.status)
	}
	if r := get(t, h, "/api/v1/settings/ai", "Authorization", "Bearer wrong-token", "X-Mock-Session", "redact"); r.status != 401 {
		t.Fatalf("a wrong token: %d", r.status)
	}
	list := admin(t, h, "GET", "/__mock/requests?session=redact", "")
	for _, secret := range []string{"demo-token", "wrong-token", "s3cret", "dXNlcjpzM2NyZXQ="} {
		if strings.Contains(string(list.body), secret) {
			t.Errorf("GET /__mock/requests gives back %q: %s", secret, list.body)
		}
	}
	entries := h.Requests(mock.JournalFilter{Session: "redact"})
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	want := map[string]string{"Authorization": "Bearer [redacted]", "Cookie": "[redacted]",
		"Proxy-Authorization": "Basic [redacted]", "X-Mock-Admin-Token": "[redacted]", "X-Mock-Session": "redact"}
	for k, v := range want {
		if got := entries[0].Headers[k]; got != v {
			t.Errorf("journal header %s = %q, want %q", k, got, v)
		}
	}
}
