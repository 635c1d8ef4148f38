package mock

import (
	"github.com/replymock/replymock/mock/internal/journal"
)

// The journal itself (entries, per-session rings, the global bounds,
// patterns, verifications and waits) is package journal's, the capture
// of an API exchange for it package api's, its listings and
// verifications package admin's; here are its public names and the
// Server's methods over it.

// JournalEntry is one API request as the journal keeps it.
type JournalEntry = journal.Entry

// JournalFilter selects journal entries; zero fields match everything.
// It is the pattern of GET /__mock/requests and /__mock/verify too.
type JournalFilter = journal.Filter

// MaxJournalBody is how much of a request or response body an entry keeps.
const MaxJournalBody = journal.MaxBody

// MaxJournalHead is how much an entry keeps of each of a request's
// method, path and query, of its headers together (names and values,
// with a few bytes each for their bookkeeping), and of the labels of the
// faults it met. Beyond it the entry is kept trimmed, and its Cut says
// what went.
const MaxJournalHead = journal.MaxHead

// DefaultJournalSize is how many entries each session's journal keeps.
const DefaultJournalSize = journal.DefaultSize

// MaxListingBytes bounds the journal entries that listings being written
// keep alive together: an entry the journal drops meanwhile lives on
// until its listing is written, and a client may read slowly. A listing
// always fits alone (the journals keep at most Options.JournalBytes).
const MaxListingBytes = journal.MaxListingBytes

// CheckRedact checks names for Options.Redact: each must be a header or
// query parameter name (an HTTP token).
func CheckRedact(names []string) error {
	_, err := journal.NewRedactor(names)
	return err
}

// Requests returns the journal entries that match f, oldest first. An
// invalid pattern (see Verify) matches nothing.
func (s *Server) Requests(f JournalFilter) []JournalEntry { return s.admin.Requests(f) }

// ClearRequests empties the journal of session, or of every session.
func (s *Server) ClearRequests(sid string) {
	s.st.Journals().Clear(sid)
}
