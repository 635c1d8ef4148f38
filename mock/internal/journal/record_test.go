package journal

import (
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
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
		got := (*Redactor)(nil).headers(http.Header{c.header: {c.value}})[c.header]
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

// Every credential header and query parameter the rule must catch, each
// journaled redacted and refused as a pattern's value; and names that are
// no credentials, kept as sent.
func TestCredentialNames(t *testing.T) {
	secrets := []string{
		// headers
		"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Mock-Admin-Token", "X-Api-Key", "Api-Key",
		"X-Auth-Token", "X-Access-Token", "Private-Token", "X-Amz-Security-Token", "X-Goog-Api-Key",
		"Ocp-Apim-Subscription-Key", "X-Forwarded-Authorization", "Token", "X-Auth", "X-Csrf-Token", "X-Client-Secret",
		"X-Hub-Signature-256", "X-Amz-Credential", "X-Authorisation", "OAuth-Token", "X-Jwt-Assertion", "X-Password",
		// query parameters
		"api_key", "apikey", "apiKey", "token", "access_token", "refresh_token", "id_token", "client_secret",
		"password", "passwd", "pwd", "key", "sig", "X-Amz-Signature", "X-Amz-Security-Token", "AWSAccessKeyId",
		"auth", "oauth_token", "private_key", "session_token", "jwt",
		"pass", "code", "refresh", "sessionid", "X-Session-Id", "X-Upstream-Bearer", "passphrase",
	}
	for _, name := range secrets {
		if !(*Redactor)(nil).Secret(name) {
			t.Errorf("%s is not taken for a credential", name)
		}
		if got := (*Redactor)(nil).headers(http.Header{name: {"s3cret"}})[name]; got != wire.Redacted {
			t.Errorf("header %s: s3cret is journaled as %q", name, got)
		}
		if got := (*Redactor)(nil).query(name + "=s3cret&limit=5"); got != name+"=[redacted]&limit=5" {
			t.Errorf("query %s: journaled as %q", name, got)
		}
		if _, err := compile(Filter{Header: map[string]string{name: "s3cret"}}, nil); err == nil {
			t.Errorf("header.%s=s3cret is a pattern", name)
		}
		if _, err := compile(Filter{Query: map[string]string{name: "s3cret"}}, nil); err == nil {
			t.Errorf("query.%s=s3cret is a pattern", name)
		}
	}
	plain := []string{"X-Mock-Session", "X-Mock-Scenario", "X-Mock-Seed", "X-Request-Id", "Content-Type", "Accept",
		"User-Agent", "Idempotency-Key", "Author", "X-Authors", "Authority", "Monkey", "Keys", "Signal",
		"limit", "offset", "answered", "nm_id", "date_from", "date_to", "search", "order", "counts_only", "isAnswered", "take", "skip"}
	for _, name := range plain {
		if (*Redactor)(nil).Secret(name) {
			t.Errorf("%s is taken for a credential", name)
		}
		if got := (*Redactor)(nil).query(name + "=v"); got != name+"=v" {
			t.Errorf("query %s=v is journaled as %q", name, got)
		}
	}
}

// A query is journaled as sent, but for the values of credentials: each
// redacted whole, however the name is written and whatever separates it.
func TestRedactQuery(t *testing.T) {
	cases := []struct{ raw, want string }{
		{"", ""},
		{"limit=5&offset=0", "limit=5&offset=0"},
		{"api_key=abc", "api_key=[redacted]"},
		{"limit=5&access_token=abc&token=def&token=ghi", "limit=5&access_token=[redacted]&token=[redacted]&token=[redacted]"},
		{"api%5Fkey=abc", "api%5Fkey=[redacted]"},           // the name escaped
		{"search=a;token=abc", "search=a;token=[redacted]"}, // ; separates for some servers
		{"token", "token"}, // no value to hide
		{"token=&limit=1", "token=[redacted]&limit=1"},        // even an empty one
		{"x=%zz&password=p%20w", "x=%zz&password=[redacted]"}, // a bad escape elsewhere
		{"search=token%3Dabc", "search=token%3Dabc"},          // a value that names one is a value
		{"&&token=a&", "&&token=[redacted]&"},                 // empty parts kept as sent
		{"limit=1&", "limit=1&"},
	}
	for _, c := range cases {
		if got := (*Redactor)(nil).query(c.raw); got != c.want {
			t.Errorf("%q is journaled as %q, want %q", c.raw, got, c.want)
		}
	}
}

// Names given to a Redactor are credentials too, in any case and whatever
// their separators; a name that is not a token is refused.
func TestRedactorNames(t *testing.T) {
	rd, err := NewRedactor([]string{"X-Tenant", "customer_ref"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"X-Tenant", "x-tenant", "x_tenant", "Customer-Ref", "customer_ref", "token"} {
		if !rd.Secret(name) {
			t.Errorf("%s is not taken for a credential", name)
		}
	}
	if rd.Secret("X-Tenants") || rd.Secret("limit") {
		t.Error("a name not given is taken for a credential")
	}
	if got := rd.query("customer_ref=42&limit=1"); got != "customer_ref=[redacted]&limit=1" {
		t.Errorf("customer_ref is journaled as %q", got)
	}
	for _, bad := range []string{"", "a b", "x:y", "naïve"} {
		if _, err := NewRedactor([]string{bad}); err == nil {
			t.Errorf("%q is taken", bad)
		}
	}
}

// wordRunRE finds a run of lower-case words in backquotes, as mock/API.md
// lists the rule's: "`auth`, `token`, ... or `jwt`".
var wordRunRE = regexp.MustCompile("`[a-z]+`(?:,?\\s+(?:or\\s+)?`[a-z]+`)+")

// mock/API.md (its journal section) states the rule as it is: the words a credential's name
// holds, once, and the names that are credentials whole.
func TestReadmeStatesTheRule(t *testing.T) {
	readme, err := os.ReadFile("../../API.md")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(credentialWords))
	found := 0
	for _, run := range wordRunRE.FindAllString(string(readme), -1) {
		var got []string
		for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(run, -1) {
			got = append(got, m[1])
		}
		if !slices.Contains(got, "token") || !slices.Contains(got, "secret") {
			continue // not the rule's words
		}
		found++
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("mock/API.md gives the rule's words as %q, the journal's are %q", got, want)
		}
	}
	if found != 1 {
		t.Errorf("mock/API.md states the rule's words %d times, want once", found)
	}
	names := "named `" + strings.Join(credentialNames, "` or `") + "`"
	if !strings.Contains(string(readme), names) {
		t.Errorf("mock/API.md does not say %q", names)
	}
}
