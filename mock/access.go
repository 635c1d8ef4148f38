package mock

import (
	"github.com/replymock/replymock/mock/internal/access"
)

// Who may call the API, and how often.
type (
	// Auth is who may call the API: anyone, or a client with a bearer token.
	Auth = access.Auth
	// RateLimit allows Requests API requests per Window, per session.
	RateLimit = access.RateLimit
	// Overrides change auth, the rate limit and strict mode, whatever the
	// scenario says: the control panel's switches.
	Overrides = access.Overrides
	// AuthOverride is the auth part of Overrides.
	//
	// Deprecated: use Auth.
	AuthOverride = Auth
)

// MaxSessionOverrideBytes bounds the memory of one session's overrides.
const MaxSessionOverrideBytes = access.MaxSessionOverrideBytes

// SetOverrides replaces the overrides for every session; the zero value
// clears them.
func (s *Server) SetOverrides(o Overrides) error { return s.SetOverridesFor(AllSessions, o) }

// Overrides returns the overrides for every session.
func (s *Server) Overrides() Overrides { return s.OverridesFor(AllSessions) }

// SetOverridesFor replaces the overrides of session sid, or with
// AllSessions those for every session; the zero value clears them. A
// session's own fields win over those for every session, and go with
// the session.
func (s *Server) SetOverridesFor(sid string, o Overrides) error { return s.st.SetOverridesFor(sid, o) }

// OverridesFor returns the overrides session sid set itself, or with
// AllSessions those for every session.
func (s *Server) OverridesFor(sid string) Overrides { return s.st.OverridesFor(sid) }
