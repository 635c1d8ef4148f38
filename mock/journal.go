package mock

import (
	"github.com/replymock/replymock/mock/internal/journal"
)

// The journal of API requests (package journal).
type (
	// JournalEntry is one API request as the journal keeps it.
	JournalEntry = journal.Entry
	// JournalFilter selects journal entries; zero fields match everything.
	JournalFilter = journal.Filter
)

// Bounds of the journal.
const (
	// MaxJournalBody is how much of a body an entry keeps.
	MaxJournalBody = journal.MaxBody
	// MaxJournalHead is how much of a request's method, path, query and
	// headers an entry keeps; its Cut says what went.
	MaxJournalHead = journal.MaxHead
	// DefaultJournalSize is how many entries each session's journal keeps.
	DefaultJournalSize = journal.DefaultSize
	// MaxListingBytes bounds the entries that listings being written
	// keep alive together.
	MaxListingBytes = journal.MaxListingBytes
)

// CheckRedact checks names for Options.Redact: each must be a header or
// query parameter name.
func CheckRedact(names []string) error {
	_, err := journal.NewRedactor(names)
	return err
}

// Requests returns the journal entries that match f, oldest first. An
// invalid pattern matches nothing.
func (s *Server) Requests(f JournalFilter) []JournalEntry { return s.admin.Requests(f) }

// ClearRequests empties the journal of session sid, or of every session.
func (s *Server) ClearRequests(sid string) {
	s.st.Journals().Clear(sid)
}
