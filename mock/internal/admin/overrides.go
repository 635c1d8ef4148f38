package admin

import (
	"net/http"
	"slices"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleOverridesGet serves GET /__mock/overrides.
func (a *Admin) handleOverridesGet(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.State.OverridesFor(sid).Shown(), nil
}

// overridesBody is the shape of PUT /__mock/overrides.
var overridesBody = &wire.Shape{What: "overrides", Items: MaxOverrideTokens + 100, Array: 100, Members: 100,
	Arrays: []wire.Bound{{Path: "auth.tokens", Max: MaxOverrideTokens, Msg: "at most %d tokens, got %d"}}}

// MaxOverrideTokens bounds the tokens of a PUT /__mock/overrides body
// (400 above it): a session's own take at most
// access.MaxSessionOverrideBytes, some 3,800 tokens.
const MaxOverrideTokens = 16_384

// handleOverridesPut serves PUT /__mock/overrides.
func (a *Admin) handleOverridesPut(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	var o access.Overrides
	if err := decodeBody(r, overridesBody, &o); err != nil {
		return 0, nil, err
	}
	if o.Auth != nil && slices.Contains(o.Auth.Tokens, wire.Redacted) {
		return 0, nil, wire.InvalidBody("auth.tokens", "%s is how an answer shows the tokens: send the tokens themselves", wire.Redacted)
	}
	if err := a.State.SetOverridesFor(sid, o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o.Shown(), nil
}
