package mock_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

func TestRoutingErrors(t *testing.T) {
	h := newDefault(t)
	tests := []struct {
		method, target string
		status         int
		code, allow    string
	}{
		{"GET", "/api/v1/nope", 404, mock.CodeNotFound, ""},
		{"GET", "/api/v2/feedbacks", 404, mock.CodeNotFound, ""},
		{"GET", "/api/v1/feedbacks/", 404, mock.CodeNotFound, ""},
		{"GET", "/api/v1//feedbacks", 404, mock.CodeNotFound, ""},
		{"GET", "/api/v1/feedbacks/123", 404, mock.CodeNotFound, ""},
		{"GET", "/API/V1/FEEDBACKS", 404, mock.CodeNotFound, ""},
		{"GET", "/api/v1/settings%2Fai", 404, mock.CodeNotFound, ""},
		{"GET", "/__mock/nope", 404, mock.CodeNotFound, ""},
		{"GET", "/", 404, mock.CodeNotFound, ""},
		{"POST", "/nope", 404, mock.CodeNotFound, ""},
		{"POST", "/api/v1/feedbacks", 405, mock.CodeMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/api/v1/feedbacks", 405, mock.CodeMethodNotAllowed, "GET, HEAD"},
		{"PUT", "/api/v1/settings/ai", 405, mock.CodeMethodNotAllowed, "GET, HEAD, PATCH"},
		{"POST", "/api/v1/settings/ai", 405, mock.CodeMethodNotAllowed, "GET, HEAD, PATCH"},
		{"DELETE", "/api/v1/settings/ai", 405, mock.CodeMethodNotAllowed, "GET, HEAD, PATCH"},
		{"PATCH", "/api/v1/feedbacks", 405, mock.CodeMethodNotAllowed, "GET, HEAD"},
		{"POST", "/__mock/health", 405, mock.CodeMethodNotAllowed, "GET, HEAD"},
	}
	// A bad steering header does not hide what is wrong with the route:
	// the route is checked first, as without the header.
	badHeaders := [][]string{nil, {"X-Mock-Scenario", "No Such"}, {"X-Mock-Session", ""}, {"X-Mock-Seed", "0"}}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			for _, header := range badHeaders {
				r := do(t, h, tc.method, tc.target, "", header...)
				checkError(t, fmt.Sprint(tc.method, " ", tc.target, " ", header), r, tc.status, tc.code, "")
				if got := r.header.Get("Allow"); got != tc.allow {
					t.Errorf("%v: Allow = %q, want %q", header, got, tc.allow)
				}
			}
		})
	}
	// The same headers on a route that exists are the 400 they were.
	for _, header := range badHeaders[1:] {
		r := do(t, h, "GET", "/api/v1/feedbacks", "", header...)
		if r.status != http.StatusBadRequest {
			t.Errorf("GET /api/v1/feedbacks with %v: status %d, want 400", header, r.status)
		}
	}
}

func TestHeadAndHealth(t *testing.T) {
	h := newDefault(t)
	get := do(t, h, http.MethodGet, "/api/v1/feedbacks", "")
	head := do(t, h, http.MethodHead, "/api/v1/feedbacks", "")
	if head.status != 200 || head.header.Get("Content-Length") != get.header.Get("Content-Length") {
		t.Errorf("HEAD: status %d, Content-Length %q; want 200, %q", head.status, head.header.Get("Content-Length"), get.header.Get("Content-Length"))
	}
	if r := do(t, h, http.MethodHead, "/api/v1/settings/ai", ""); r.status != 200 {
		t.Errorf("HEAD /settings/ai: status %d", r.status)
	}
	// A bad parameter is the GET's 400 (net/http sends no body for HEAD).
	if r := do(t, h, http.MethodHead, "/api/v1/feedbacks?limit=500", ""); r.status != 400 {
		t.Errorf("HEAD /feedbacks?limit=500: status %d; want 400", r.status)
	}
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h2 := newServer(t, mock.Options{Version: "v1.2.3", Now: clock.now, Scenario: "en-shop"})
	clock.add(90 * time.Second)
	decodeOK(t, "switch", admin(t, h2, http.MethodPut, "/__mock/scenario", `{"name":"default"}`), new(any))
	var health mock.Health
	decodeOK(t, "GET /__mock/health", do(t, h2, http.MethodGet, "/__mock/health", ""), &health)
	if health != (mock.Health{Status: "ok", Scenario: "default", StartScenario: "en-shop", Reviews: 1009, UptimeSeconds: 90, Version: "v1.2.3",
		Store: mock.StoreHealth{Kind: "memory", State: "ok"}}) {
		t.Errorf("health = %+v", health)
	}
}
