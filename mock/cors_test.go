package mock_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

func TestCORSPreflight(t *testing.T) {
	h := newServer(t, mock.Options{})
	tests := []struct {
		path, method, headers, wantMethods string
	}{
		{"/api/v1/settings/ai", "PATCH", "content-type,authorization,x-mock-scenario,x-mock-session", "GET, HEAD, PATCH, OPTIONS"},
		{"/api/v1/settings/ai", "GET", "", "GET, HEAD, PATCH, OPTIONS"},
		{"/api/v1/feedbacks", "GET", "authorization,x-mock-session", "GET, HEAD, OPTIONS"},
		{"/__mock/faults", "POST", "content-type,x-mock-admin-token", "DELETE, GET, HEAD, POST, OPTIONS"},
		{"/__mock/scenario", "PUT", "content-type", "PUT, OPTIONS"},
		{"/__mock/reset", "POST", "", "POST, OPTIONS"},
	}
	for _, tc := range tests {
		hdr := []string{"Origin", "http://localhost:5173", "Access-Control-Request-Method", tc.method}
		if tc.headers != "" {
			hdr = append(hdr, "Access-Control-Request-Headers", tc.headers)
		}
		r := do(t, h, http.MethodOptions, tc.path, "", hdr...)
		what := "preflight " + tc.method + " " + tc.path
		if r.status != http.StatusNoContent {
			t.Errorf("%s: status %d, want 204", what, r.status)
		}
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":      "http://localhost:5173",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods":     tc.wantMethods,
			"Access-Control-Allow-Headers":     tc.headers,
			"Access-Control-Max-Age":           "600",
		} {
			if got := r.header.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", what, k, got, want)
			}
		}
		if !strings.Contains(strings.Join(r.header.Values("Vary"), ","), "Origin") {
			t.Errorf("%s: Vary %q lacks Origin", what, r.header.Values("Vary"))
		}
	}
	// A preflight is not an API request: the down scenario's fault does not
	// hit it, and the real answer then carries the CORS headers.
	r := do(t, h, http.MethodOptions, "/api/v1/feedbacks", "", "Origin", "http://a.test", "Access-Control-Request-Method", "GET", "X-Mock-Scenario", "down")
	if r.status != http.StatusNoContent {
		t.Errorf("preflight in the down scenario: %d", r.status)
	}
	r = get(t, h, "/api/v1/feedbacks", "Origin", "http://a.test", "X-Mock-Scenario", "down")
	if r.status != 503 || r.header.Get("Access-Control-Allow-Origin") != "http://a.test" {
		t.Errorf("503 without CORS headers: a browser could not read it (%d, %q)", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
}

func TestCORSActualRequests(t *testing.T) {
	h := newServer(t, mock.Options{})
	r := get(t, h, "/api/v1/feedbacks?limit=1", "Origin", "https://admin.example.test")
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "https://admin.example.test" {
		t.Errorf("Allow-Origin %q: want the origin echoed, never *", got)
	}
	exposed := r.header.Get("Access-Control-Expose-Headers")
	for _, want := range []string{"Retry-After", "X-Request-Id", "WWW-Authenticate"} {
		if !strings.Contains(exposed, want) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, want)
		}
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Request-Id", "client-42"); r.header.Get("X-Request-Id") != "client-42" {
		t.Errorf("the client's X-Request-Id was not kept: %q", r.header.Get("X-Request-Id"))
	}
	if e := h.Requests(mock.JournalFilter{Limit: 1}); len(e) != 1 || e[0].RequestID != "client-42" {
		t.Errorf("journal request id: %+v", e)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers without an Origin")
	}
}

func TestCORSOriginList(t *testing.T) {
	h := newServer(t, mock.Options{CORSOrigins: []string{"https://app.example.test", "http://localhost:*"}})
	for origin, allowed := range map[string]bool{
		"https://app.example.test":   true,
		"http://localhost:3000":      true,
		"http://localhost:5173":      true,
		"https://evil.example.test":  false,
		"http://localhost.evil.test": false,
		"https://app.example.test.x": false,
	} {
		pre := do(t, h, http.MethodOptions, "/api/v1/settings/ai", "", "Origin", origin, "Access-Control-Request-Method", "PATCH")
		got := get(t, h, "/api/v1/settings/ai", "Origin", origin)
		if allowed {
			if pre.status != 204 || got.header.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("%s: preflight %d, Allow-Origin %q; want allowed", origin, pre.status, got.header.Get("Access-Control-Allow-Origin"))
			}
			continue
		}
		checkError(t, "preflight from "+origin, pre, http.StatusForbidden, "forbidden", "")
		if pre.header.Get("Access-Control-Allow-Origin") != "" || got.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS headers for a disallowed origin", origin)
		}
		if got.status != 200 {
			t.Errorf("%s: the request itself still answers (the browser hides it): %d", origin, got.status)
		}
	}
}
