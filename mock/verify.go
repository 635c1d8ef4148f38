package mock

import (
	"context"

	"github.com/replymock/replymock/mock/internal/journal"
)

// Bounds of waiting on the journal and of verifications.
const (
	// MaxWait is the longest a request may wait on the journal (wait=).
	MaxWait = journal.MaxWait
	// MaxWaiters bounds the requests waiting on the journal at once.
	MaxWaiters = journal.MaxWaiters
	// MaxClientWaiters bounds the requests one client waits with at once.
	MaxClientWaiters = journal.MaxClientWaiters
	// MaxVerifySeqs is how many sequence numbers a verification lists.
	MaxVerifySeqs = journal.MaxVerifySeqs
	// NearMisses is how many near misses a failed verification shows.
	NearMisses = journal.NearMisses
)

// Verifications of the journal.
type (
	// Times says how many journal entries must match a pattern.
	Times = journal.Times
	// Verification is the outcome of Verify and of GET /__mock/verify.
	Verification = journal.Verification
	// NearMiss is an entry that does not match a pattern, with the parts
	// that differ.
	NearMiss = journal.NearMiss
	// Difference is what a pattern wants of a part and what an entry has.
	Difference = journal.Difference
)

// Exactly wants n matching entries.
func Exactly(n int) Times { return journal.Exactly(n) }

// AtLeast wants n matching entries or more.
func AtLeast(n int) Times { return journal.AtLeast(n) }

// AtMost wants at most n matching entries.
func AtMost(n int) Times { return journal.AtMost(n) }

// Between wants from min to max matching entries.
func Between(min, max int) Times { return journal.Between(min, max) }

// Verify counts the journal entries that match f and checks the count
// against want. When too few match, the answer lists the near misses.
// An invalid pattern is an *APIError naming the part.
func (s *Server) Verify(f JournalFilter, want Times) (Verification, error) {
	return s.admin.Verify(f, want)
}

// WaitRequests waits until a journal entry matches f, then returns the
// entries that match, oldest first. Set f.Since to wait for entries
// newer than those seen. An invalid pattern, or more than MaxWaiters
// waiting, is an *APIError.
func (s *Server) WaitRequests(ctx context.Context, f JournalFilter) ([]JournalEntry, error) {
	return s.admin.WaitRequests(ctx, f)
}
