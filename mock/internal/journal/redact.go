package journal

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/replymock/replymock/mock/internal/wire"
)

// A rule on names, not a list, tells which headers and query parameters
// carry credentials: services name their keys freely (X-Acme-Token,
// access_token), and a list would miss the next one. The rule may redact
// a harmless value (X-Csrf-Token); that costs a test a pattern, not a
// secret.
//
// A name is a credential's when, in lower case and without '-', '_' and
// '.', it holds one of credentialWords, or is one of credentialNames, or
// was given to the Redactor.
var credentialWords = []string{"auth", "token", "secret", "pass", "pwd", "apikey", "accesskey",
	"subscriptionkey", "privatekey", "credential", "cookie", "signature", "jwt", "bearer", "sessionid", "refresh"}

// credentialNames are names that are credentials whole: Google's key=,
// an Azure shared access signature's sig=, an OAuth code=.
var credentialNames = []string{"key", "sig", "code"}

// normalName is name in lower case, without '-', '_' and '.'.
func normalName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' {
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// credentialName reports whether the normalName n names a credential by
// the rule.
func credentialName(n string) bool {
	if slices.Contains(credentialNames, n) {
		return true
	}
	for _, w := range credentialWords {
		if w == "auth" && holdsAuth(n) || w != "auth" && strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// holdsAuth reports whether n holds "auth" other than in "author"
// (authors, authority). Authorization and authorisation count.
func holdsAuth(n string) bool {
	for i := 0; ; i++ {
		j := strings.Index(n[i:], "auth")
		if j < 0 {
			return false
		}
		i += j
		if rest := n[i:]; !strings.HasPrefix(rest, "author") || strings.HasPrefix(rest, "authoriz") || strings.HasPrefix(rest, "authoris") {
			return true
		}
	}
}

// Redactor tells which headers and query parameters carry credentials:
// those the rule names, and those it was given. nil follows the rule
// alone.
type Redactor struct {
	also map[string]bool // normal names given besides the rule
}

// NewRedactor returns a Redactor of the rule and of names.
func NewRedactor(names []string) (*Redactor, error) {
	rd := &Redactor{also: make(map[string]bool, len(names))}
	for _, name := range names {
		if !wire.IsToken(name) {
			return nil, fmt.Errorf("a header or query parameter name (letters, digits and !#$%%&'*+-.^_`|~), got %q", name)
		}
		rd.also[normalName(name)] = true
	}
	return rd, nil
}

// Secret reports whether the header or query parameter name carries a
// credential.
func (rd *Redactor) Secret(name string) bool {
	n := normalName(name)
	return credentialName(n) || rd != nil && rd.also[n]
}

// headers joins each header's values, as the journal lists them, with
// credentials redacted.
func (rd *Redactor) headers(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if rd.Secret(k) {
			v = redactValues(v)
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// query is a raw query with the value of each credential parameter
// redacted: "api_key=[redacted]&limit=5". It splits on ; as well as &,
// as some servers do, so no credential hides inside another value.
func (rd *Redactor) query(raw string) string {
	return queryParam.ReplaceAllStringFunc(raw, func(param string) string {
		k, _, _ := strings.Cut(param, "=")
		if rd.Secret(unescape(k)) {
			return k + "=" + wire.Redacted
		}
		return param
	})
}

// queryParam matches a query parameter that has a value: name=value,
// between the separators & and ;.
var queryParam = regexp.MustCompile(`[^&;=]*=[^&;]*`)

// unescape is a query name or value, decoded when it can be.
func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// authSchemes are the schemes a redacted value may keep, lower-cased:
// IANA's HTTP Authentication Scheme Registry and a few in common use.
// Any other first word may be part of the secret itself.
var authSchemes = map[string]bool{
	"basic": true, "bearer": true, "concealed": true, "digest": true, "dpop": true,
	"gnap": true, "hoba": true, "mutual": true, "negotiate": true, "oauth": true,
	"privatetoken": true, "scram-sha-1": true, "scram-sha-256": true, "vapid": true,
	"ntlm": true, "token": true, "aws4-hmac-sha256": true,
}

// redactValues keeps each value's scheme ("Bearer [redacted]") when it is
// a known one, else nothing.
func redactValues(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		scheme, _, found := strings.Cut(strings.TrimSpace(v), " ")
		if found && authSchemes[strings.ToLower(scheme)] {
			out[i] = scheme + " " + wire.Redacted
		} else {
			out[i] = wire.Redacted
		}
	}
	return out
}

// redactedForm reports whether a credential header may be matched with
// want: a known scheme ("Bearer"), with the stand-in or without it, or
// the stand-in alone. Anything else would be a guess at the secret.
func redactedForm(want string) bool {
	scheme, rest, found := strings.Cut(want, " ")
	return want == wire.Redacted || authSchemes[strings.ToLower(scheme)] && (!found || rest == wire.Redacted)
}
