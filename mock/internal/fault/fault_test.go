package fault

import (
	"testing"
)

func TestFaultMatches(t *testing.T) {
	tests := []struct {
		method, path string
		reqMethod    string
		reqPath      string
		want         bool
	}{
		{"", "", "GET", "/feedbacks", true},
		{"*", "*", "PATCH", "/settings/ai", true},
		{"GET", "/feedbacks", "GET", "/feedbacks", true},
		{"get", "/feedbacks", "GET", "/feedbacks", true},
		{"GET", "/feedbacks", "PATCH", "/feedbacks", false},
		{"", "/settings/*", "GET", "/settings/ai", true},
		{"", "/settings/*", "GET", "/feedbacks", false},
		{"", "/*", "GET", "/settings/ai", false},
		{"", "/**", "GET", "/settings/ai", true},
		{"", "/settings/**", "GET", "/settings/ai", true},
		{"", "/settings/**", "GET", "/settingsx", false},
		{"", "/feed*", "GET", "/feedbacks", true},
	}
	for _, tc := range tests {
		f := Fault{Method: tc.method, Path: tc.path}
		if got := f.Matches(tc.reqMethod, tc.reqPath); got != tc.want {
			t.Errorf("fault %q %q on %s %s: %v, want %v", tc.method, tc.path, tc.reqMethod, tc.reqPath, got, tc.want)
		}
	}
}
