package shared

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Each per-session bound refuses one past it, with its status, code,
// field and message, and lets the bound itself through.
func TestSessionBounds(t *testing.T) {
	tokens := func(n int) access.Overrides { // n bytes as Size counts them
		return access.Overrides{Auth: &access.Auth{Type: "bearer", Tokens: []string{strings.Repeat("t", n-16)}}}
	}
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
		field  string
		msg    string
	}{
		{"seeds at the bound", CheckSeedCount(fixture.MaxSeedReviews, "reviews", "this would make"), 0, "", "", ""},
		{"seeds past it", CheckSeedCount(fixture.MaxSeedReviews+1, "reviews", "this would make"), http.StatusConflict, wire.CodeTooManyReviews, "reviews",
			"a session keeps at most 10000 seeded reviews, in all its scenarios; this would make 10001"},
		{"seeds of a snapshot", CheckSeedCount(12000, "scenarios", "the snapshot has"), http.StatusConflict, wire.CodeTooManyReviews, "scenarios",
			"a session keeps at most 10000 seeded reviews, in all its scenarios; the snapshot has 12000"},
		{"overrides at the bound", CheckOverrides(tokens(access.MaxSessionOverrideBytes), "auth.tokens"), 0, "", "", ""},
		{"overrides past it", CheckOverrides(tokens(access.MaxSessionOverrideBytes+1), "overrides.auth.tokens"), http.StatusBadRequest, wire.CodeInvalidBody, "overrides.auth.tokens",
			"a session's overrides keep at most 64 KiB of tokens, and these take 65537 bytes"},
	} {
		if tc.status == 0 {
			if tc.err != nil {
				t.Errorf("%s: %v", tc.name, tc.err)
			}
			continue
		}
		var ae *wire.APIError
		if !errors.As(tc.err, &ae) {
			t.Errorf("%s: %v, want an APIError", tc.name, tc.err)
			continue
		}
		if ae.Status != tc.status || ae.Code != tc.code || ae.Field != tc.field || ae.Message != tc.msg {
			t.Errorf("%s: %d %s %s %q\nwant %d %s %s %q", tc.name, ae.Status, ae.Code, ae.Field, ae.Message, tc.status, tc.code, tc.field, tc.msg)
		}
	}
}
