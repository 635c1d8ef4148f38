package mock_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

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
		if r := getUnchecked(h, target); r.status != want {
			t.Errorf("GET %s: %d, want %d", target, r.status, want)
		}
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
