package mock_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

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
		{"PUT", "/__mock/faults", `{"name":"x","drop":true}`},
		{"DELETE", "/__mock/faults/f1", ""},
		{"PUT", "/__mock/overrides", `{"strict":true}`},
		{"PUT", "/__mock/data", `{"reviews":[]}`},
		{"DELETE", "/__mock/data", ""},
		{"POST", "/__mock/snapshot", `{}`},
		{"POST", "/__mock/clock", `{"advance":"1h"}`},
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

// A read-only demo lives: nobody can change it, yet its clock runs,
// reviews arrive, and those of 4 and 5 stars get their replies out of the
// box (the demo's settings), while 1 to 3 stars get drafts.
func TestReadOnlyDemoLives(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{ReadOnly: true, Scenario: "demo", Now: clock.now})
	before := counts(t, h)
	var c0 mock.Clock
	decodeOK(t, "clock", get(t, h, "/__mock/clock"), &c0)
	clock.add(3 * time.Hour)
	var c1 mock.Clock
	decodeOK(t, "clock", get(t, h, "/__mock/clock"), &c1)
	if c1.Now <= c0.Now {
		t.Errorf("the read-only shop's clock stood still: %s, then %s", c0.Now, c1.Now)
	}
	after := counts(t, h)
	if after.Total-before.Total != 90 {
		t.Errorf("%d arrivals in 3 hours of a read-only demo, want 90 (30 an hour)", after.Total-before.Total)
	}
	var page listData
	decodeOK(t, "list", get(t, h, "/api/v1/feedbacks?limit=100"), &page)
	replied, drafts := 0, 0
	for _, f := range page.Feedbacks[:90] {
		switch {
		case f.AnswerText != "" && f.ProductValuation >= 4:
			replied++
		case f.AnswerText != "":
			t.Errorf("review %d of %d stars answered: the demo drafts those", f.ID, f.ProductValuation)
		case f.AnswerState == mock.AnswerStateDraft && f.ProductValuation <= 3:
			drafts++
		}
	}
	if replied == 0 || drafts == 0 {
		t.Errorf("of 90 arrivals in a read-only demo, %d answered and %d drafted; want both", replied, drafts)
	}
}

// APIHandler leaves out the admin API but health.
func TestAPIHandler(t *testing.T) {
	h := newServer(t, mock.Options{}).APIHandler()
	for target, want := range map[string]int{
		"/api/v1/feedbacks?limit=1": 200, "/__mock/health": 200,
		"/__mock/scenarios": 404, "/__mock/requests": 404, "/__mock/openapi.yaml": 404, "/__mock/": 404,
	} {
		if r := getUnchecked(h, target); r.status != want {
			t.Errorf("GET %s: %d, want %d", target, r.status, want)
		}
	}
}

// AdminHandler serves the admin API, its page and documents, and nothing
// of the API: a settings PATCH sent to it changes nothing.
func TestAdminHandler(t *testing.T) {
	s := newServer(t, mock.Options{})
	h := s.AdminHandler()
	for target, want := range map[string]int{
		"/__mock/scenarios": 200, "/__mock/health": 200, "/__mock/": 200, "/__mock/openapi.yaml": 200, "/__mock": 301, "/": 302,
		"/api/v1/feedbacks?limit=1": 404, "/api/v1/settings/ai": 404, "/api/v1": 404, "/favicon.ico": 404,
	} {
		if r := getUnchecked(h, target); r.status != want {
			t.Errorf("GET %s: %d, want %d", target, r.status, want)
		}
	}
	before := getSettings(t, s)
	req := httptest.NewRequest("PATCH", "/api/v1/settings/ai", strings.NewReader(`{"feedback":[{"rating":1,"tone":"calm"}]}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkError(t, "PATCH on the admin listener", response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}, http.StatusNotFound, mock.CodeNotFound, "")
	if !strings.Contains(rec.Body.String(), "--addr") {
		t.Errorf("the 404 does not say where the API is: %s", rec.Body)
	}
	if after := getSettings(t, s); !reflect.DeepEqual(after, before) {
		t.Error("a PATCH to the admin listener changed the settings")
	}
}

// ServeHTTP leaves the caller's request as it was: no request id written
// into its header, the same body.
func TestServeHTTPLeavesRequestAlone(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, c := range []struct{ method, target, body string }{
		{"GET", "/api/v1/feedbacks?limit=1", ""},
		{"PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":2,"tone":"calm"}]}`},
		{"PATCH", "/api/v1/settings/ai", `{"bad":1}`},
		{"GET", "/__mock/health", ""},
	} {
		req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		before, body := req.Header.Clone(), req.Body
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Header().Get(mock.HeaderRequestID) == "" {
			t.Errorf("%s %s: no request id in the answer", c.method, c.target)
		}
		if !reflect.DeepEqual(req.Header, before) {
			t.Errorf("%s %s: request header changed from %v to %v", c.method, c.target, before, req.Header)
		}
		if req.Body != body {
			t.Errorf("%s %s: request body replaced", c.method, c.target)
		}
	}
	// The journal still knows each request's id.
	entries := h.Requests(mock.JournalFilter{})
	if len(entries) != 3 {
		t.Fatalf("%d journal entries, want the 3 API requests", len(entries))
	}
	for _, e := range entries {
		if e.RequestID == "" || e.Headers[mock.HeaderRequestID] != "" {
			t.Errorf("journal entry %d: request_id %q, header %q: the id belongs in request_id only", e.Seq, e.RequestID, e.Headers[mock.HeaderRequestID])
		}
	}
}
