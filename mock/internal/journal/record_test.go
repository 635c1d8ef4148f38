package journal

import (
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
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

// headerRunRE finds a run of names in backquotes, as the README lists
// headers: "`Authorization`, `Cookie` and `X-Auth-Token`".
var headerRunRE = regexp.MustCompile("`[A-Za-z-]+`(?:,?\\s+(?:and\\s+|or\\s+)?`[A-Za-z-]+`)+")

// secretHeaders is the one list of credential headers: wherever the
// README lists them (a run of names with two of them or more), it lists
// exactly these.
func TestReadmeListsSecretHeaders(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(maps.Keys(secretHeaders))
	lists := 0
	for _, run := range headerRunRE.FindAllString(string(readme), -1) {
		var got []string
		secrets := 0
		for _, m := range regexp.MustCompile("`([A-Za-z-]+)`").FindAllStringSubmatch(run, -1) {
			got = append(got, m[1])
			if secretHeaders[m[1]] {
				secrets++
			}
		}
		if secrets < 2 {
			continue // not a list of credentials
		}
		lists++
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("the README lists the credential headers as %q, the journal redacts %q:\n%s", got, want, run)
		}
	}
	if lists < 3 {
		t.Errorf("the README lists the credential headers %d times, want the 3 places (the journal, patterns, security)", lists)
	}
}
