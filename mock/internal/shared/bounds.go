package shared

import (
	"fmt"
	"net/http"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The bounds of what one session keeps, each checked by one function,
// whether a session's part comes from a write or a snapshot.

// CheckSeedCount refuses n reviews seeded in one session, in all its
// scenarios, past fixture.MaxSeedReviews; made says what made n ("this
// would make").
func CheckSeedCount(n int, field, made string) error {
	if n <= fixture.MaxSeedReviews {
		return nil
	}
	return &wire.APIError{Status: http.StatusConflict, Code: wire.CodeTooManyReviews, Field: field,
		Message: fmt.Sprintf("a session keeps at most %d seeded reviews, in all its scenarios; %s %d", fixture.MaxSeedReviews, made, n)}
}

// CheckOverrides refuses a session's own overrides past
// access.MaxSessionOverrideBytes.
func CheckOverrides(o access.Overrides, field string) error {
	if n := o.Size(); n > access.MaxSessionOverrideBytes {
		return wire.InvalidBody(field, "a session's overrides keep at most %d KiB of tokens, and these take %d bytes", access.MaxSessionOverrideBytes>>10, n)
	}
	return nil
}
