package mock_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
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

// Auth and the rate limit have one set of rules: a scenario file and the
// control panel's overrides reject the same values, at the same field,
// with the same message.
func TestAccessRulesAreOne(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, c := range []struct {
		key, json, yaml, field, msg string
	}{
		{"auth", `{"type":"basic"}`, `{type: basic}`, "auth.type", `must be none or bearer, got "basic"`},
		{"auth", `{"type":"bearer"}`, `{type: bearer}`, "auth.tokens", "required with type: bearer"},
		{"auth", `{"type":"none","tokens":["x"]}`, `{type: none, tokens: [x]}`, "auth.tokens", "only with type: bearer"},
		{"auth", `{"type":"bearer","tokens":["a b"]}`, `{type: bearer, tokens: ["a b"]}`, "auth.tokens[0]", "must be a non-empty token without spaces"},
		{"rate_limit", `{"requests":0,"window":"1s"}`, `{requests: 0, window: 1s}`, "rate_limit.requests", "must be at least 1, got 0"},
		{"rate_limit", `{"requests":1,"window":"25h"}`, `{requests: 1, window: 25h}`, "rate_limit.window", "must be from 1ms to 24h, got 25h0m0s"},
	} {
		r := admin(t, h, "PUT", "/__mock/overrides", `{"`+c.key+`":`+c.json+`}`)
		checkError(t, "PUT overrides "+c.json, r, 400, "invalid_body", c.field)
		var eb errorBody
		json.Unmarshal(r.body, &eb)
		if !strings.Contains(eb.Error.Message, c.msg) {
			t.Errorf("PUT overrides %s: message %q, want %q", c.json, eb.Error.Message, c.msg)
		}
		file := "extends: default\ndescription: x\n" + c.key + ": " + c.yaml + "\n"
		err := mock.ValidateFile(mock.Options{}, "x.yaml", []byte(file))
		if err == nil || !strings.Contains(err.Error(), ": "+c.field+": "+c.msg) {
			t.Errorf("scenario with %s: %s: %v, want %q", c.key, c.yaml, err, c.field+": "+c.msg)
		}
	}
	// An override names its type; in a scenario, no auth means none.
	for _, body := range []string{`{"auth":{}}`, `{"auth":{"type":""}}`, `{"auth":{"tokens":["x"]}}`} {
		checkError(t, "PUT overrides "+body, admin(t, h, "PUT", "/__mock/overrides", body), 400, "invalid_body", "auth.type")
	}
}
