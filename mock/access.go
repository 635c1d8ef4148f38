package mock

import (
	"github.com/replymock/replymock/mock/internal/access"
)

// Auth is who may call the API: anyone (type none, the default), or a
// client that sends one of Tokens as a bearer token. Scenarios give it
// under auth:, the control panel's overrides in JSON.
type Auth = access.Auth

// RateLimit allows Requests API requests per Window, per session; the
// request over it gets 429 with Retry-After.
type RateLimit = access.RateLimit

// Overrides change auth, the rate limit and strict mode whatever the
// scenario says, until reset: the control page's switches. They are
// for every session, or for one (SetOverridesFor), whose own win field
// by field.
type Overrides = access.Overrides

// MaxSessionOverrideBytes bounds what one session's overrides keep (its
// tokens, 16 bytes more each): a thousand sessions must not each keep a
// megabyte of them.
const MaxSessionOverrideBytes = access.MaxSessionOverrideBytes

// AuthOverride is the auth part of Overrides.
//
// Deprecated: use Auth, the one type for auth in scenarios and overrides.
type AuthOverride = Auth

// SetOverrides replaces the overrides for every session; the zero value
// clears them.
func (s *Server) SetOverrides(o Overrides) error { return s.SetOverridesFor(AllSessions, o) }

// Overrides returns the overrides for every session.
func (s *Server) Overrides() Overrides { return s.OverridesFor(AllSessions) }

// SetOverridesFor replaces the overrides of session sid, or with
// AllSessions those for every session; the zero value clears them. A
// session's own, set in a field, win over those for every session; they
// go with the session (reset, expiry, eviction). They keep at most
// MaxSessionOverrideBytes.
func (s *Server) SetOverridesFor(sid string, o Overrides) error { return s.st.SetOverridesFor(sid, o) }

// OverridesFor returns the overrides session sid set itself (none for a
// session that does not exist), or with AllSessions those for every
// session.
func (s *Server) OverridesFor(sid string) Overrides { return s.st.OverridesFor(sid) }
