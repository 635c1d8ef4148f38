package mock

import (
	"net/http"
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

// journalRecord is an entry as kept: the request's header map and the
// bodies by reference, turned into JournalEntry only when listed, so that
// recording costs a request no copies.
type journalRecord struct {
	JournalEntry
	header http.Header
	resp   [][]byte
}

// size is what the record keeps alive of the request and response bodies.
func (r *journalRecord) size() int64 {
	n := int64(len(r.Body))
	for _, c := range r.resp {
		n += int64(len(c))
	}
	return n
}

func (r *journalRecord) entry() JournalEntry {
	e := r.JournalEntry
	e.Headers = flatHeaders(r.header)
	var b strings.Builder
	for _, c := range r.resp {
		b.Write(c)
	}
	e.Response = b.String()
	return e
}

// journal is a bounded ring of entries, oldest first. Its owner's mutex
// guards it.
type journal struct {
	entries []journalRecord
	next    int // where the next entry goes once the ring is full
	size    int
}

// add appends e, dropping the oldest entry when the ring is full, and
// returns how many body bytes the ring now keeps more (or fewer).
func (j *journal) add(e journalRecord) int64 {
	if j.size <= 0 {
		return 0
	}
	if len(j.entries) < j.size {
		j.entries = append(j.entries, e)
		return e.size()
	}
	freed := j.entries[j.next].size()
	j.entries[j.next] = e
	j.next = (j.next + 1) % j.size
	return e.size() - freed
}

// bytes is the body bytes the ring keeps.
func (j *journal) bytes() int64 {
	var n int64
	for i := range j.entries {
		n += j.entries[i].size()
	}
	return n
}

// list returns the matching entries, oldest first.
func (j *journal) list(f JournalFilter) []JournalEntry {
	var out []JournalEntry
	for _, part := range [2][]journalRecord{j.entries[j.next:], j.entries[:j.next]} {
		for i := range part {
			if f.matches(part[i].JournalEntry) {
				out = append(out, part[i].entry())
			}
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
