package journal

import (
	"net/http"
	"strings"
	"testing"
)

// A redacted header keeps its first word only when it is a known
// authentication scheme: any other first word may be half of a secret.
func TestRedactHeaders(t *testing.T) {
	cases := []struct{ header, value, want string }{
		{"Authorization", "Bearer abc", "Bearer [redacted]"},
		{"Authorization", "bearer abc", "bearer [redacted]"},
		{"Authorization", "Basic dXNlcjpw", "Basic [redacted]"},
		{"Authorization", "Digest username=\"u\", nonce=\"n\"", "Digest [redacted]"},
		{"Authorization", "AWS4-HMAC-SHA256 Credential=k", "AWS4-HMAC-SHA256 [redacted]"},
		{"Authorization", "eyJhbGciOiJIUzI1NiJ9.e30.sig", "[redacted]"}, // the upstream's form: the token alone
		{"Authorization", "secret-half1 secret-half2", "[redacted]"},
		{"Authorization", "", "[redacted]"},
		{"X-Mock-Admin-Token", "part1 part2", "[redacted]"},
		{"X-Mock-Admin-Token", "Bearer part2", "Bearer [redacted]"},
		{"x-api-key", "k3y", "[redacted]"},
		{"Api-Key", "k3y", "[redacted]"},
		{"X-Auth-Token", "t0k", "[redacted]"},
		{"Cookie", "sid=abc; theme=dark", "[redacted]"},
		{"Set-Cookie", "sid=abc; HttpOnly", "[redacted]"},
		{"Proxy-Authorization", "Basic dXNlcjpw", "Basic [redacted]"},
		{"Accept", "application/json", "application/json"},
	}
	for _, c := range cases {
		got := flatHeaders(http.Header{c.header: {c.value}})[c.header]
		if got != c.want {
			t.Errorf("%s: %q is journaled as %q, want %q", c.header, c.value, got, c.want)
		}
	}
}

// A journal entry's warnings count against the journal's budget.
func TestJournalCountsWarnings(t *testing.T) {
	r := Record{Entry: Entry{Method: "GET", Path: "/api/v1/feedbacks"}}
	before := r.measure()
	r.Warnings = []string{strings.Repeat("w", 100), "x"}
	if got, want := r.measure()-before, int64(16+100+16+1); got != want {
		t.Errorf("two warnings of 101 bytes add %d bytes to the entry, want %d", got, want)
	}
	r.kept = r.measure()
	r.strip(10)
	if r.Warnings != nil {
		t.Error("a stripped entry keeps its warnings")
	}
}
