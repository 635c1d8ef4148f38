package mock

import (
	"slices"
	"strings"
	"time"
)

// JournalEntry is one API request as the journal keeps it.
type JournalEntry struct {
	Seq        int64             `json:"seq"`
	RequestID  string            `json:"request_id"`
	Time       time.Time         `json:"time"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Query      string            `json:"query"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	Status     int               `json:"status"` // 0 when the connection was dropped
	DurationMS float64           `json:"duration_ms"`
	Session    string            `json:"session"`
	Scenario   string            `json:"scenario"`
	Fault      string            `json:"fault,omitempty"` // what was injected, e.g. "error 503"
	Response   string            `json:"response"`
	Truncated  bool              `json:"truncated,omitempty"` // body or response cut to MaxJournalBody
}

// JournalFilter selects journal entries; zero fields match everything.
type JournalFilter struct {
	Session string // a session id; "" means every session
	Method  string
	Path    string // exact path, or a prefix ending in "*"
	Limit   int    // the newest Limit entries; 0 means all
}

// MaxJournalBody is how much of a request or response body an entry keeps.
const MaxJournalBody = 32 << 10

// DefaultJournalSize is how many entries each session's journal keeps.
const DefaultJournalSize = 1000

// journal is a bounded ring of entries, oldest first. Its owner's mutex
// guards it.
type journal struct {
	entries []JournalEntry
	next    int // where the next entry goes once the ring is full
	size    int
}

func (j *journal) add(e JournalEntry) {
	if j.size <= 0 {
		return
	}
	if len(j.entries) < j.size {
		j.entries = append(j.entries, e)
		return
	}
	j.entries[j.next] = e
	j.next = (j.next + 1) % j.size
}

// list returns the matching entries, oldest first.
func (j *journal) list(f JournalFilter) []JournalEntry {
	out := make([]JournalEntry, 0, len(j.entries))
	ordered := append(slices.Clone(j.entries[j.next:]), j.entries[:j.next]...)
	for _, e := range ordered {
		if f.matches(e) {
			out = append(out, e)
		}
	}
	return out
}

func (f JournalFilter) matches(e JournalEntry) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, e.Method) {
		return false
	}
	if p, ok := strings.CutSuffix(f.Path, "*"); ok {
		return strings.HasPrefix(e.Path, p)
	}
	return f.Path == "" || f.Path == e.Path
}
