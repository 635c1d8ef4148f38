package journal

import "time"

// Entry is one API request as the journal keeps it.
type Entry struct {
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
	Truncated  bool              `json:"truncated,omitempty"` // a body cut to MaxBody, or what Cut names
	// Cut says what the journal left out of an oversized request, one
	// part a line: "query: kept 16384 of 61440 bytes".
	Cut      []string `json:"cut,omitempty"`
	Warnings []string `json:"warnings,omitempty"` // as X-Mock-Warning gives them
	Proxied  bool     `json:"proxied,omitempty"`  // the request went to the real service
}

// Filter selects journal entries; zero fields match everything.
type Filter struct {
	Session string // a session id; "" or AllSessions means every session
	Method  string // in any case
	Path    string // exact path, or a prefix ending in "*"
	// Query wants query parameters by name, each with one of its
	// decoded values. A credential matches only as "[redacted]".
	Query map[string]string
	// Header wants headers by name, in any case, each with its values
	// joined by ", ", or one of them. A credential matches only by its
	// scheme ("Bearer") or as listed ("Bearer [redacted]").
	Header map[string]string
	// Body wants values in a JSON body by dotted path
	// ("feedback.0.tone"): a string as it is, anything else as its JSON
	// text (1, 1.5, true, null).
	Body  map[string]string
	Limit int   // the newest Limit entries; 0 means all
	Since int64 // only entries with a larger Seq (for polling)
}

// AllSessions, as a Filter's Session or a scope, means every session.
const AllSessions = "*"

// MaxBody is how much of a request or response body an entry keeps.
const MaxBody = 32 << 10

// MaxHead is how much an entry keeps of each of a request's method, path,
// query, headers together, and fault labels.
const MaxHead = 16 << 10

// DefaultSize is how many entries each session's journal keeps.
const DefaultSize = 1000
