package wire

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	names := []string{"default", "flaky", "slow", "down", "scenario", "scenarios", "addr", "admin-addr"}
	for _, tc := range []struct{ name, want string }{
		{"Flaky", "flaky"},
		{"flakey", "flaky"},
		{"flaky", ""},
		{"scenerio", "scenario"},
		{"dwon", "down"},
		{"sloww", "slow"},
		{"port", ""},
		{"xyz", ""},
		{"defualt", "default"},
		{"ADDR", "addr"},
	} {
		if got := Nearest(tc.name, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A body sent as a form (curl -d) is told how to send JSON.
func TestFormBodySaysHowToSendJSON(t *testing.T) {
	r := httptest.NewRequest("POST", "/", strings.NewReader("a=1"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	_, err := ReadJSONBody(httptest.NewRecorder(), r, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 415 || !strings.Contains(ae.Message, "-H 'Content-Type: application/json'") {
		t.Errorf("a form body: %v", err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader("a=1"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if _, err := ReadDocument(r, &Body{}); err == nil || !strings.Contains(err.Error(), "curl -d sends a form") {
		t.Errorf("a form body to a document route: %v", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"limit", "limit", 0}, {"limt", "limit", 1}, {"serach", "search", 1}, {"datefrom", "datefrom", 0},
		{"answer", "answered", 2}, {"", "abc", 3}, {"abc", "", 3}, {"ca", "abc", 3}, {"page", "rating", 5}} {
		if got := EditDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
