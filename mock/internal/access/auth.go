// Package access decides who may call the server and how often.
// It holds the API's bearer auth and rate limit (a scenario's, or the
// overrides'), the admin token, and the browser origins and Host names
// the server answers (against cross-site requests and DNS rebinding).
package access

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Auth is who may call the API: anyone (type none, the default), or a
// client that sends one of Tokens as a bearer token.
type Auth struct {
	Type   string   `yaml:"type" json:"type"`
	Tokens []string `yaml:"tokens" json:"tokens,omitempty"`
}

// RateLimit allows Requests API requests per Window, per session. A
// request over it gets 429 with Retry-After.
type RateLimit struct {
	Requests int           `yaml:"requests" json:"requests"`
	Window   wire.Duration `yaml:"window" json:"window"`
}

// Bounds of a rate limit's window.
const (
	minRateWindow = time.Millisecond
	maxRateWindow = 24 * time.Hour
)

// Problems lists what is wrong with a.
func (a Auth) Problems() []wire.FieldProblem {
	var probs []wire.FieldProblem
	switch a.Type {
	case "", "none":
		if len(a.Tokens) > 0 {
			probs = append(probs, wire.FieldProblem{Field: "tokens", Msg: "only with type: bearer"})
		}
	case "bearer":
		if len(a.Tokens) == 0 {
			probs = append(probs, wire.FieldProblem{Field: "tokens", Msg: "required with type: bearer: the tokens clients may send"})
		}
		for i, tok := range a.Tokens {
			if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
				probs = append(probs, wire.FieldProblem{Field: fmt.Sprintf("tokens[%d]", i), Msg: "must be a non-empty token without spaces"})
			}
		}
	default:
		probs = append(probs, wire.FieldProblem{Field: "type", Msg: fmt.Sprintf("must be none or bearer, got %q", a.Type)})
	}
	return probs
}

// Problems lists what is wrong with rl.
func (rl *RateLimit) Problems() []wire.FieldProblem {
	var probs []wire.FieldProblem
	if rl.Requests < 1 {
		probs = append(probs, wire.FieldProblem{Field: "requests", Msg: fmt.Sprintf("must be at least 1, got %d", rl.Requests)})
	}
	if w := rl.Window.D(); w < minRateWindow || w > maxRateWindow {
		probs = append(probs, wire.FieldProblem{Field: "window", Msg: fmt.Sprintf("must be from 1ms to 24h, got %s", rl.Window)})
	}
	return probs
}

// Allows reports whether an Authorization header passes a, comparing
// tokens in constant time.
func (a Auth) Allows(header string) bool {
	if a.Type != "bearer" {
		return true
	}
	got, ok := BearerToken(header)
	if !ok {
		return false
	}
	match := 0
	for _, t := range a.Tokens {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(t))
	}
	return match == 1
}

// Window counts a session's requests in the current window.
type Window struct {
	start time.Time
	n     int
}

// CountRequest counts a request at now and reports whether rl lets it
// through; when not, retryIn is how long until the window ends (at
// least 1s).
func (w *Window) CountRequest(rl *RateLimit, now time.Time) (retryIn time.Duration, ok bool) {
	if w.start.IsZero() || now.Sub(w.start) >= rl.Window.D() {
		w.start, w.n = now, 0
	}
	w.n++
	if w.n <= rl.Requests {
		return 0, true
	}
	return max(w.start.Add(rl.Window.D()).Sub(now), time.Second), false
}

// Overrides change auth, the rate limit and strict mode whatever the
// scenario says: the control page's switches. They are for every
// session, or for one, whose own win field by field.
type Overrides struct {
	Auth      *Auth      `json:"auth"`
	RateLimit *RateLimit `json:"rate_limit"`
	Strict    *bool      `json:"strict"` // a request with warnings is answered 400
}

// MaxSessionOverrideBytes bounds what one session's overrides keep (see
// Size), so a thousand sessions cannot each keep a megabyte.
const MaxSessionOverrideBytes = 64 << 10

// Validate reports the first problem of o. Unlike a scenario's auth, an
// override's must name its type.
func (o Overrides) Validate() error {
	var probs []wire.FieldProblem
	if o.Auth != nil {
		if o.Auth.Type == "" {
			probs = append(probs, wire.FieldProblem{Field: "auth.type", Msg: `must be none or bearer, got ""`})
		}
		probs = append(probs, wire.Prefixed("auth", o.Auth.Problems())...)
	}
	if o.RateLimit != nil {
		probs = append(probs, wire.Prefixed("rate_limit", o.RateLimit.Problems())...)
	}
	if len(probs) > 0 {
		return wire.InvalidBody(probs[0].Field, "%s", probs[0].Msg)
	}
	return nil
}

// Size is what o's tokens keep.
func (o Overrides) Size() int {
	n := 0
	if o.Auth != nil {
		for _, t := range o.Auth.Tokens {
			n += 16 + len(t)
		}
	}
	return n
}

// Shown is o as an answer shows it: the tokens a client set are
// secrets, so the list is one wire.Redacted.
func (o Overrides) Shown() Overrides {
	if o.Auth != nil && len(o.Auth.Tokens) > 0 {
		auth := *o.Auth
		auth.Tokens = []string{wire.Redacted}
		o.Auth = &auth
	}
	return o
}

// Over lays o over base: each field o sets wins.
func (o Overrides) Over(base Overrides) Overrides {
	if o.Auth == nil {
		o.Auth = base.Auth
	}
	if o.RateLimit == nil {
		o.RateLimit = base.RateLimit
	}
	if o.Strict == nil {
		o.Strict = base.Strict
	}
	return o
}

// Strictness reports whether a request with warnings is answered 400:
// as o says, else as the scenario says, else def.
func (o Overrides) Strictness(scenario *bool, def bool) bool {
	switch {
	case o.Strict != nil:
		return *o.Strict
	case scenario != nil:
		return *scenario
	}
	return def
}

// Access is the auth and rate limit for a request: the scenario's,
// unless o overrides them.
func (o Overrides) Access(auth Auth, rl *RateLimit) (Auth, *RateLimit) {
	if o.Auth != nil {
		auth = *o.Auth
	}
	if o.RateLimit != nil {
		rl = o.RateLimit
	}
	return auth, rl
}

// Realms of the WWW-Authenticate challenges.
const (
	RealmAPI   = `Bearer realm="replymock"`
	RealmAdmin = `Bearer realm="replymock admin"`
)

// ErrUnauthorized answers an API request without a valid token.
var ErrUnauthorized = &wire.APIError{Status: http.StatusUnauthorized, Code: wire.CodeUnauthorized,
	Message: "this scenario requires Authorization: Bearer <token>"}

// ErrRateLimited answers a request over rl.
func ErrRateLimited(rl *RateLimit) *wire.APIError {
	return &wire.APIError{Status: http.StatusTooManyRequests, Code: wire.CodeRateLimited,
		Message: fmt.Sprintf("rate limit of %d requests per %s exceeded", rl.Requests, rl.Window)}
}

// SetChallenge asks a client for a bearer token, once.
func SetChallenge(h http.Header, realm string) {
	if h.Get("WWW-Authenticate") == "" {
		h.Set("WWW-Authenticate", realm)
	}
}

// AdminTokenOK reports whether r carries the admin token, in
// X-Mock-Admin-Token or as a bearer token.
func AdminTokenOK(r *http.Request, token string) bool {
	got := r.Header.Get("X-Mock-Admin-Token")
	if got == "" {
		got, _ = BearerToken(r.Header.Get("Authorization"))
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// BearerToken is the token of an Authorization header with the Bearer
// scheme, in any case (RFC 9110, section 11.1).
func BearerToken(header string) (string, bool) {
	scheme, token, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}
