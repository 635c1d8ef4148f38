package fault

import (
	"cmp"
	"encoding/json"
	"hash/fnv"
	"path"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Fault is a failure injected into the requests that match it. Faults
// come from a scenario file or from the admin API, in this one shape.
type Fault struct {
	ID   string `json:"id,omitempty" yaml:"-"` // a run-time fault's, given when it is added
	Name string `json:"name,omitempty" yaml:"name"`
	// Method matches the request method; "" or "*" matches any.
	Method string `json:"method,omitempty" yaml:"method"`
	// Path matches the request's path with path.Match globs, written
	// after /api/v1 or with it ("/feedbacks" or "/api/v1/feedbacks",
	// "/settings/*"); "", "*" or "/**" match every path.
	Path string `json:"path,omitempty" yaml:"path"`
	// Probability that a matching request is hit, from 0 to 1; nil means 1.
	Probability *float64 `json:"probability,omitempty" yaml:"probability"`
	// After lets the first After matching requests through untouched.
	After int `json:"after,omitempty" yaml:"after"`
	// Times limits how many requests the fault hits; 0 means no limit.
	Times int `json:"times,omitempty" yaml:"times"`

	// The fields below say what the fault does, one per kind (see each
	// kind's file). Keep their order: Prepare hashes the JSON.
	Latency       *Latency       `json:"latency,omitempty" yaml:"latency"`
	Error         *ErrorAnswer   `json:"error,omitempty" yaml:"error"`
	Drop          bool           `json:"drop,omitempty" yaml:"drop"`
	Truncate      bool           `json:"truncate,omitempty" yaml:"truncate"`
	PageDrift     *PageDrift     `json:"page_drift,omitempty" yaml:"page_drift"`
	StaleRead     *StaleRead     `json:"stale_read,omitempty" yaml:"stale_read"`
	CountsLag     *CountsLag     `json:"counts_lag,omitempty" yaml:"counts_lag"`
	ReplyRejected *ReplyRejected `json:"reply_rejected,omitempty" yaml:"reply_rejected"`
	// Seed varies the fault's random stream: two faults alike but for
	// their seed draw independently.
	Seed int64 `json:"seed,omitempty" yaml:"seed"`

	seq int    // order of run-time faults
	key uint64 // names the fault's random stream (Prepare)
}

func (f *Fault) Matches(method, apiPath string) bool {
	if f.Method != "" && f.Method != "*" && !strings.EqualFold(f.Method, method) {
		return false
	}
	return MatchPath(f.Path, apiPath)
}

// apiPath is a fault's path glob after /api/v1, whichever form it was
// written in, so that both match alike and draw alike.
func apiPath(glob string) string {
	if rest, ok := strings.CutPrefix(glob, APIPrefix); ok && (rest == "" || rest[0] == '/') {
		return cmp.Or(rest, "/**")
	}
	return glob
}

// APIPrefix is the API's path prefix, which a fault's path may leave out.
const APIPrefix = "/api/v1"

// MatchPath reports whether apiPath matches a fault's Path glob. "/x/**"
// matches /x and everything under it; other globs are path.Match's.
func MatchPath(glob, apiPath string) bool {
	switch {
	case glob == "" || glob == "*" || glob == "/**":
		return true
	case strings.HasSuffix(glob, "/**"):
		prefix := strings.TrimSuffix(glob, "/**")
		return apiPath == prefix || strings.HasPrefix(apiPath, prefix+"/")
	}
	ok, _ := path.Match(glob, apiPath)
	return ok
}

// Prepare names the fault's random stream by a hash of its fields. The
// id, the order and the probability are left out, so adding or
// reordering faults changes no other fault's draws, and raising a
// probability only adds hits. Call it once, before requests meet f.
func (f *Fault) Prepare() {
	f.Path = apiPath(f.Path)
	g := *f
	g.ID, g.Probability, g.seq, g.key = "", nil, 0, 0
	js, _ := json.Marshal(g) // of plain fields: it cannot fail
	h := fnv.New64a()
	h.Write(js)
	f.key = h.Sum64()
}

// Label says in the journal what the fault did ("flaky: latency error 503").
func (f *Fault) Label() string {
	var parts []string
	if f.Name != "" {
		parts = append(parts, f.Name+":")
	}
	for _, k := range kinds {
		if k.in(f) {
			parts = append(parts, k.label(f))
		}
	}
	return strings.Join(parts, " ")
}

// Size is about how much memory the fault keeps, for MaxRuntimeBytes.
func (f *Fault) Size() int64 {
	n := int64(256 + len(f.ID) + len(f.Name) + len(f.Method) + len(f.Path))
	for _, k := range kinds {
		if k.size != nil && k.in(f) {
			n += k.size(f)
		}
	}
	return n
}

func Decode(body []byte) (*Fault, error) {
	var f Fault
	if err := wire.DecodeStrict(body, &f); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Shape bounds a fault's JSON before it is decoded.
var Shape = &wire.Shape{What: "a fault", Items: 2 * MaxHeaders, Array: 100, Members: MaxHeaders}

// MaxHeaders bounds the headers of a fault's error answer (400 above it).
const MaxHeaders = 1000

func (f *Fault) check() error {
	if probs := f.Validate(); len(probs) > 0 {
		return wire.InvalidBody(probs[0].Field, "%s", probs[0].Msg)
	}
	return nil
}
