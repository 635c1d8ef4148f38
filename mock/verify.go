package mock

import (
	"context"

	"github.com/replymock/replymock/mock/internal/journal"
)

// Patterns over the journal (package journal's matcher) in the Go API;
// their parameters in GET /__mock/requests and GET /__mock/verify are
// package admin's.

// MaxWait is the longest a request may wait on the journal (wait=).
const MaxWait = journal.MaxWait

// MaxWaiters bounds the requests waiting on the journal at once, of all
// sessions together; one more is answered 503 with Retry-After.
const MaxWaiters = journal.MaxWaiters

// MaxClientWaiters bounds the requests one client (a remote address, an
// IPv6 /64) waits with at once, whatever sessions they name; one more is
// answered 503 with Retry-After. WaitRequests, called in this process,
// is bound by MaxWaiters only.
const MaxClientWaiters = journal.MaxClientWaiters

// MaxVerifySeqs is how many sequence numbers of matching entries a
// verification lists: the newest.
const MaxVerifySeqs = journal.MaxVerifySeqs

// NearMisses is how many of the closest entries a failed verification
// shows.
const NearMisses = journal.NearMisses

// Times says how many journal entries must match a pattern: from Min to
// Max, a negative Max meaning no upper bound.
type Times = journal.Times

// Exactly wants n matching entries.
func Exactly(n int) Times { return journal.Exactly(n) }

// AtLeast wants n matching entries or more.
func AtLeast(n int) Times { return journal.AtLeast(n) }

// AtMost wants at most n matching entries.
func AtMost(n int) Times { return journal.AtMost(n) }

// Between wants from min to max matching entries.
func Between(min, max int) Times { return journal.Between(min, max) }

// Verification is the outcome of Verify and the data of GET
// /__mock/verify (in a 409's error.details when it does not hold).
type Verification = journal.Verification

// NearMiss is an entry that does not match a pattern, with the parts
// that differ.
type NearMiss = journal.NearMiss

// Difference is what a pattern wants of a part and what an entry has
// there; Got is nil when the entry has no such part (no such query
// parameter or header, no such path in its body, or a body that is not
// JSON).
type Difference = journal.Difference

// Verify counts the journal entries that match f (its Limit aside) and
// checks the count against want. When fewer match than want.Min, the
// answer lists the nearest misses. An invalid pattern is an *APIError
// naming the part.
func (s *Server) Verify(f JournalFilter, want Times) (Verification, error) {
	return s.admin.Verify(f, want)
}

// WaitRequests waits until at least one journal entry matches f, then
// returns the entries that match, oldest first (the newest f.Limit with
// a limit); when ctx ends first, it returns ctx's error. Set f.Since to
// wait for entries newer than those seen. An invalid pattern, or more
// than MaxWaiters waiting at once, is an *APIError.
func (s *Server) WaitRequests(ctx context.Context, f JournalFilter) ([]JournalEntry, error) {
	return s.admin.WaitRequests(ctx, f)
}
