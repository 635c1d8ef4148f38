package shared

import (
	"fmt"
	"net/http"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The bounds of what one session keeps, each checked by one function,
// wherever a session's part comes from: a write the state takes (PUT
// /__mock/data, PUT /__mock/overrides) or a snapshot restored (package
// snapshot). What all sessions keep together is the budgets' (State.Budgets).

// CheckSeedCount refuses n reviews seeded in one session, in all its
// scenarios, past fixture.MaxSeedReviews: a 409 too_many_reviews naming
// field, whose message ends with what made n (this would make 12000).
func CheckSeedCount(n int, field, made string) error {
	if n <= fixture.MaxSeedReviews {
		return nil
	}
	return &wire.APIError{Status: http.StatusConflict, Code: wire.CodeTooManyReviews, Field: field,
		Message: fmt.Sprintf("a session keeps at most %d seeded reviews, in all its scenarios; %s %d", fixture.MaxSeedReviews, made, n)}
}

// CheckOverrides refuses a session's own overrides past
// access.MaxSessionOverrideBytes: a 400 invalid_body naming field.
func CheckOverrides(o access.Overrides, field string) error {
	if n := o.Size(); n > access.MaxSessionOverrideBytes {
		return wire.InvalidBody(field, "a session's overrides keep at most %d KiB of tokens, and these take %d bytes", access.MaxSessionOverrideBytes>>10, n)
	}
	return nil
}
