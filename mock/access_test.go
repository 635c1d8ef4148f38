package mock_test

import (
	"errors"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

func TestRateLimitWindow(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{Scenario: "rate-limited", Now: clock.now})
	for range 5 {
		get(t, h, "/api/v1/feedbacks?limit=1")
	}
	clock.add(7 * time.Second)
	r := get(t, h, "/api/v1/feedbacks?limit=1")
	if r.status != 429 || r.header.Get("Retry-After") != "3" {
		t.Errorf("7s into the window: %d, Retry-After %q; want 429, 3", r.status, r.header.Get("Retry-After"))
	}
	clock.add(3 * time.Second)
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.status != 200 {
		t.Errorf("in a new window: %d, want 200", r.status)
	}
}

// A truncate fault cuts whatever the answer would have been: under
// bearer auth without a token, half a 401.
func TestTruncateAfterAuth(t *testing.T) {
	m := newServer(t, mock.Options{Scenario: "unauthorized"})
	m.AddFault(mock.AllSessions, mock.Fault{Truncate: true})
	ts := httptest.NewServer(m)
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/api/v1/feedbacks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("status %d, read error %v; want a truncated 401", resp.StatusCode, err)
	}
}
