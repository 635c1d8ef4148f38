package admin

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/wire"
)

// maxTimes bounds count, min and max.
const maxTimes = 1_000_000_000

// handleVerify serves GET /__mock/verify: 200 with the Verification
// when it holds, else 409 verification_failed with it in error.details.
func (a *Admin) handleVerify(r *http.Request) (int, any, error) {
	q, err := a.parseJournalQuery(r, "count", "min", "max")
	if err != nil {
		return 0, nil, err
	}
	want, err := q.times()
	if err != nil {
		return 0, nil, err
	}
	if err := a.waitFor(r, q, want.Min); err != nil {
		return 0, nil, err
	}
	v, err := a.verify(q.p, q.f, want)
	if err != nil {
		return 0, nil, err // past journal.MaxScanBytes
	}
	if !v.OK {
		return 0, nil, &wire.APIError{Status: http.StatusConflict, Code: wire.CodeVerificationFailed, Message: verificationMessage(v), Details: v}
	}
	return http.StatusOK, v, nil
}

// times reads count, min and max: count alone, or min and max, either
// or both; none wants at least one.
func (q *journalQuery) times() (journal.Times, error) {
	want := fmt.Sprintf("an integer from 0 to %d", maxTimes)
	count, hasCount, errCount := q.query.Int("count", 0, maxTimes, want)
	lo, hasMin, errMin := q.query.Int("min", 0, maxTimes, want)
	hi, hasMax, errMax := q.query.Int("max", 0, maxTimes, want)
	switch {
	case errCount != nil || errMin != nil || errMax != nil:
		return journal.Times{}, cmp.Or(errCount, errMin, errMax)
	case hasCount && (hasMin || hasMax):
		return journal.Times{}, wire.InvalidParameter("count", "give count alone, or min and max (either or both)")
	case hasCount:
		return journal.Exactly(int(count)), nil
	case hasMin && hasMax && lo > hi:
		return journal.Times{}, wire.InvalidParameter("min", "must not be more than max, got min %d and max %d", lo, hi)
	case !hasMin && !hasMax:
		return journal.AtLeast(1), nil
	case !hasMax:
		hi = -1
	}
	return journal.Times{Min: int(lo), Max: int(hi)}, nil
}

// verificationMessage words a failed verification in one line.
func verificationMessage(v journal.Verification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "matched %d, want %s", v.Matched, v.Want)
	if v.Incomplete {
		b.WriteString(" (the journal lost older entries to its bounds)")
	}
	if len(v.NearMisses) > 0 {
		nm := v.NearMisses[0]
		fmt.Fprintf(&b, "; nearest: seq %d %s %s: %s", nm.Seq, nm.Method, nm.Path, nm.DiffersString())
	}
	if v.Evicted != "" {
		b.WriteString("; " + v.Evicted)
	}
	if v.Unreachable != "" {
		b.WriteString("; " + v.Unreachable)
	}
	return b.String()
}

// Verify counts the journal entries that match f (its Limit aside) and
// checks the count against want.
func (a *Admin) Verify(f journal.Filter, want journal.Times) (journal.Verification, error) {
	p, err := a.State.Journals().Compile(f)
	if err != nil {
		return journal.Verification{}, err
	}
	return a.verify(p, f, want)
}

// verify is Verify of p, compiled from f, saying when fewer match than
// wanted whether any operation of the API takes f's method and path.
func (a *Admin) verify(p *journal.Pattern, f journal.Filter, want journal.Times) (journal.Verification, error) {
	v, err := a.State.Journals().Verify(p, want)
	if err == nil && v.Matched < want.Min {
		v.Unreachable = unreachable(f.Method, f.Path)
	}
	return v, err
}

// unreachable says why no operation of the API takes a request of
// method ("" any) to path (a pattern's: exact, or a prefix ending in
// *), or "" when one does. The journal keeps such requests too,
// answered 404 or 405, so this is a note, not a refusal.
func unreachable(method, path string) string {
	prefix := strings.HasSuffix(path, "*") || path == ""
	apiPath := strings.TrimSuffix(path, "*")
	if rest, ok := strings.CutPrefix(apiPath, fault.APIPrefix); ok {
		apiPath = rest
	} else if strings.HasPrefix(apiPath, "/api/") || strings.HasPrefix(apiPath, Prefix) {
		return "the journal keeps the API's requests only, under " + fault.APIPrefix
	}
	if why := fault.NoOperation(method, apiPath, prefix); why != "" {
		return "no operation of the API takes this pattern's method and path: " + why
	}
	return ""
}

// WaitRequests waits until a journal entry matches f, then returns the
// entries that match.
func (a *Admin) WaitRequests(ctx context.Context, f journal.Filter) ([]journal.Entry, error) {
	p, err := a.State.Journals().Compile(f)
	if err != nil {
		return nil, err
	}
	if err := a.State.Journals().Await(ctx, "", p, 1); err != nil {
		return nil, err
	}
	return a.State.Journals().Entries(p, f.Limit), nil
}
