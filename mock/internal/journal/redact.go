package journal

import (
	"net/http"
	"strings"
)

// Redacted stands for a secret in the journal (and wherever else a
// secret is shown as having been there).
const Redacted = "[redacted]"

// flatHeaders joins each header's values, as the journal lists them,
// with the secrets a client sends redacted: whoever reads the journal
// (a CI log, the control panel) must not learn a real token.
func flatHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if secretHeaders[http.CanonicalHeaderKey(k)] {
			v = redactValues(v)
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// secretHeaders carry credentials; the journal keeps their scheme only.
var secretHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"X-Mock-Admin-Token":  true,
	"X-Api-Key":           true,
	"Api-Key":             true,
	"X-Auth-Token":        true,
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
// a known one, or nothing of it but that it was there.
func redactValues(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		scheme, _, found := strings.Cut(strings.TrimSpace(v), " ")
		if found && authSchemes[strings.ToLower(scheme)] {
			out[i] = scheme + " " + Redacted
		} else {
			out[i] = Redacted
		}
	}
	return out
}

// redactedForm reports whether want is something a credential header may
// be matched with: a scheme the journal keeps ("Bearer", see
// authSchemes), that scheme with the journal's stand-in ("Bearer
// [redacted]"), or the stand-in alone. Anything else, a bare token
// included, could only be a guess at the secret.
func redactedForm(want string) bool {
	scheme, rest, found := strings.Cut(want, " ")
	return want == Redacted || authSchemes[strings.ToLower(scheme)] && (!found || rest == Redacted)
}
