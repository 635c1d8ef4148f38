package mock

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
	"golang.org/x/net/http/httpguts"
)

// Fault is a failure injected into requests that match it: latency, an
// error answer, a dropped connection or a truncated body. Faults come from
// a scenario file or are added at run time through the admin API; both use
// this shape (YAML or JSON).
type Fault struct {
	// ID names a run-time fault (assigned when it is added).
	ID string `json:"id,omitempty" yaml:"-"`
	// Name is an optional label shown in the journal.
	Name string `json:"name,omitempty" yaml:"name"`
	// Method matches the request method; "" or "*" matches any.
	Method string `json:"method,omitempty" yaml:"method"`
	// Path matches the path after /api/v1 with path.Match globs
	// ("/feedbacks", "/settings/*"); "", "*" or "/**" match every path.
	Path string `json:"path,omitempty" yaml:"path"`
	// Probability that a matching request is hit, from 0 to 1; nil means 1.
	Probability *float64 `json:"probability,omitempty" yaml:"probability"`
	// After lets the first After matching requests through untouched.
	After int `json:"after,omitempty" yaml:"after"`
	// Times limits how many requests the fault hits; 0 means no limit.
	Times int `json:"times,omitempty" yaml:"times"`

	// Latency delays the answer.
	Latency *Latency `json:"latency,omitempty" yaml:"latency"`
	// Error answers with a status instead of the real answer.
	Error *FaultError `json:"error,omitempty" yaml:"error"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty" yaml:"drop"`
	// Truncate sends the real answer's headers and half its body, then
	// closes the connection.
	Truncate bool `json:"truncate,omitempty" yaml:"truncate"`
	// Seed varies the fault's random stream (see decide): two faults
	// alike but for their seed draw independently. 0, the default, is a
	// seed like any other.
	Seed int64 `json:"seed,omitempty" yaml:"seed"`

	seq int    // order of run-time faults
	key uint64 // names the fault's random stream; set by prepare
}

// Latency is a delay: Fixed; a uniform range Min..Max; or log-normal,
// given its Median and 99th percentile P99. Exactly one form is used.
type Latency struct {
	Fixed  Duration `json:"fixed,omitempty" yaml:"fixed"`
	Min    Duration `json:"min,omitempty" yaml:"min"`
	Max    Duration `json:"max,omitempty" yaml:"max"`
	Median Duration `json:"median,omitempty" yaml:"median"`
	P99    Duration `json:"p99,omitempty" yaml:"p99"`
}

// FaultError is an injected error answer. Without Body, the body is the
// contract's error envelope for Status.
type FaultError struct {
	Status  int               `json:"status" yaml:"status"`
	Body    *string           `json:"body,omitempty" yaml:"body"`
	Headers map[string]string `json:"headers,omitempty" yaml:"headers"`
}

// MaxLatency bounds every injected delay, so that the server's write
// timeout always outlasts it.
const MaxLatency = 60 * time.Second

// validate lists the fault's problems as (field path relative to the
// fault, message) pairs.
func (f *Fault) validate() []wire.FieldProblem {
	var probs []wire.FieldProblem
	bad := func(field, format string, args ...any) {
		probs = append(probs, wire.FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if f.Method != "" && f.Method != "*" && !isToken(f.Method) {
		bad("method", "must be an HTTP method such as GET, or * for any; got %q", f.Method)
	}
	if f.Path != "" {
		if !strings.HasPrefix(f.Path, "/") && f.Path != "*" {
			bad("path", "must start with / (it is relative to /api/v1), got %q", f.Path)
		} else if rest, ok := strings.CutPrefix(f.Path, "/api/v1"); ok && (rest == "" || rest[0] == '/') {
			// It would match only /api/v1/api/v1/...: a mistake, not a wish.
			bad("path", "is relative to /api/v1: did you mean %q? got %q", cmp.Or(rest, "/**"), f.Path)
		} else if _, err := path.Match(f.Path, "/"); err != nil {
			bad("path", "bad glob %q: %v", f.Path, err)
		}
	}
	if p := f.Probability; p != nil && !(*p >= 0 && *p <= 1) {
		bad("probability", "must be from 0 to 1, got %v", *p)
	}
	if f.After < 0 {
		bad("after", "must be >= 0, got %d", f.After)
	}
	if f.Times < 0 {
		bad("times", "must be >= 0 (0 means no limit), got %d", f.Times)
	}
	if f.Seed < 0 {
		bad("seed", "must be from 0 to %d, got %d", int64(math.MaxInt64), f.Seed)
	}
	if l := f.Latency; l != nil {
		forms := 0
		if l.Fixed > 0 {
			forms++
		}
		if l.Min > 0 || l.Max > 0 {
			forms++
			if l.Max < l.Min || l.Max == 0 {
				bad("latency.max", "must be >= min and above 0")
			}
		}
		if l.Median > 0 || l.P99 > 0 {
			forms++
			if l.Median == 0 {
				bad("latency.median", "required with p99")
			}
			if l.P99 < l.Median {
				bad("latency.p99", "must be >= median")
			}
		}
		switch {
		case forms == 0:
			bad("latency", "give fixed, min and max, or median and p99")
		case forms > 1:
			bad("latency", "give only one of fixed, min/max, median/p99")
		}
		for _, d := range []struct {
			name string
			v    Duration
		}{{"fixed", l.Fixed}, {"max", l.Max}, {"p99", l.P99}} {
			if d.v.D() > MaxLatency {
				bad("latency."+d.name, "must be at most %s, got %s", MaxLatency, d.v)
			}
		}
	}
	actions := 0
	if e := f.Error; e != nil {
		actions++
		if e.Status < 400 || e.Status > 599 {
			bad("error.status", "must be an error status from 400 to 599, got %d", e.Status)
		}
		for k, v := range e.Headers {
			switch {
			case !httpguts.ValidHeaderFieldName(k):
				bad("error.headers", "bad header name %q", k)
			case !httpguts.ValidHeaderFieldValue(v):
				bad("error.headers."+k, "bad header value %q: no control characters such as CR or LF", v)
			}
		}
	}
	if f.Drop {
		actions++
	}
	if f.Truncate {
		actions++
	}
	if actions > 1 {
		bad("", "give at most one of error, drop and truncate")
	}
	if actions == 0 && f.Latency == nil {
		bad("", "does nothing: give latency, error, drop or truncate")
	}
	return probs
}

// isToken reports whether s is an HTTP token (a method or header name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 127 || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// matches reports whether the fault applies to a request; apiPath is the
// path after /api/v1.
func (f *Fault) matches(method, apiPath string) bool {
	if f.Method != "" && f.Method != "*" && !strings.EqualFold(f.Method, method) {
		return false
	}
	switch {
	case f.Path == "" || f.Path == "*" || f.Path == "/**":
		return true
	case strings.HasSuffix(f.Path, "/**"):
		prefix := strings.TrimSuffix(f.Path, "/**")
		return apiPath == prefix || strings.HasPrefix(apiPath, prefix+"/")
	}
	ok, _ := path.Match(f.Path, apiPath)
	return ok
}

// sample draws one delay.
func (l *Latency) sample(rng *rand.Rand) time.Duration {
	var d time.Duration
	switch {
	case l.Fixed > 0:
		d = l.Fixed.D()
	case l.Max > 0:
		d = l.Min.D() + time.Duration(rng.Int64N(int64(l.Max-l.Min)+1))
	default:
		// Log-normal: the median is e^mu, and p99 = e^(mu + z99*sigma).
		const z99 = 2.3263478740408408
		mu := math.Log(float64(l.Median))
		sigma := 0.0
		if l.P99 > l.Median {
			sigma = (math.Log(float64(l.P99)) - mu) / z99
		}
		d = time.Duration(math.Exp(mu + sigma*rng.NormFloat64()))
	}
	return min(d, MaxLatency)
}

// faultCounter is the state of one fault within one session.
type faultCounter struct {
	matched int // matching requests seen
	hit     int // requests the fault applied to
}

// prepare names the fault's random stream by what the fault is: every
// field but its probability (so that raising it keeps the requests hit
// and adds more), its id and its place among other faults (so that
// adding, removing or reordering faults, or a server numbering run-time
// faults differently, changes no other fault's draws). Faults are
// prepared once, before any request meets them.
func (f *Fault) prepare() {
	g := *f
	g.ID, g.Probability, g.seq, g.key = "", nil, 0, 0
	js, _ := json.Marshal(g) // of plain fields: it cannot fail
	h := fnv.New64a()
	h.Write(js)
	f.key = h.Sum64()
}

// decide advances the counter for a matching request and reports whether
// the fault applies to it, with the random source of its latency. The
// draws of the fault's n-th matching request in a session come from
// seed, the fault's stream (see prepare) and n alone: not from the
// session's id, nor from other faults, so every session of a scenario
// sees the same sequence for the same requests.
func (f *Fault) decide(c *faultCounter, seed int64) (bool, *rand.Rand) {
	c.matched++
	if c.matched <= f.After || f.Times > 0 && c.hit >= f.Times {
		return false, nil
	}
	if p := f.Probability; p != nil && *p < 1 && f.uniform(seed, c.matched) >= *p {
		return false, nil
	}
	c.hit++
	var rng *rand.Rand
	if f.Latency != nil && f.Latency.Fixed == 0 {
		d := f.draw(seed, c.matched, laneLatency)
		rng = rand.New(rand.NewPCG(d, mix64(d^laneLatency)))
	}
	return true, rng
}

// The draws of one request, each from a lane of its own.
const (
	laneProbability = 1
	laneLatency     = 2
)

// uniform is the probability draw of the fault's n-th matching request:
// a number in [0, 1).
func (f *Fault) uniform(seed int64, n int) float64 {
	return float64(f.draw(seed, n, laneProbability)>>11) / (1 << 53)
}

// draw hashes seed, the fault's stream, n and a lane into 64 random bits.
func (f *Fault) draw(seed int64, n int, lane uint64) uint64 {
	h := mix64(uint64(seed) ^ 0x6a09e667f3bcc908)
	h = mix64(h ^ f.key)
	h = mix64(h ^ uint64(n))
	return mix64(h ^ lane)
}

// mix64 is splitmix64's finalizer: a bijection on 64 bits whose every
// output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// label says in the journal what a fault did.
func (f *Fault) label() string {
	var parts []string
	if f.Name != "" {
		parts = append(parts, f.Name+":")
	}
	if f.Latency != nil {
		parts = append(parts, "latency")
	}
	switch {
	case f.Error != nil:
		parts = append(parts, fmt.Sprintf("error %d", f.Error.Status))
	case f.Drop:
		parts = append(parts, "drop")
	case f.Truncate:
		parts = append(parts, "truncate")
	}
	return strings.Join(parts, " ")
}

// writeFaultError answers with an injected error: its body, or the
// contract's envelope for its status.
func writeFaultError(w http.ResponseWriter, e *FaultError) {
	h := w.Header()
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	if e.Status == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	if e.Status == http.StatusUnauthorized && h.Get("WWW-Authenticate") == "" {
		h.Set("WWW-Authenticate", `Bearer realm="replymock"`)
	}
	if e.Body == nil {
		wire.WriteJSON(w, e.Status, wire.ErrorEnvelope{Error: StatusError(e.Status)})
		return
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", wire.ContentTypeJSON)
	}
	h.Set("Content-Length", strconv.Itoa(len(*e.Body)))
	w.WriteHeader(e.Status)
	io.WriteString(w, *e.Body)
}

// decodeFault reads a run-time fault from a JSON body.
func decodeFault(body []byte) (*Fault, error) {
	var f Fault
	if err := wire.DecodeStrict(body, &f); err != nil {
		return nil, err
	}
	if probs := f.validate(); len(probs) > 0 {
		return nil, wire.InvalidBody(probs[0].Field, "%s", probs[0].Msg)
	}
	return &f, nil
}

// meetFaults decides which faults hit a request of the session in st's
// scenario: the scenario's own first, then the run-time faults for every
// session (global), then the session's, each in the order added. Every
// fault keeps one counter per session. Random draws come from seed (the
// request's X-Mock-Seed, else the scenario's). The caller holds ss.mu.
func (ss *session) meetFaults(st *scenarioState, global []*Fault, method, apiPath string, seed int64) plan {
	var p plan
	consider := func(f *Fault) {
		terminal := f.Error != nil || f.Drop || f.Truncate
		if terminal && (p.answer != nil || p.truncate) {
			return // an earlier fault decided the answer: this one is not reached, nor counted
		}
		if !f.matches(method, apiPath) {
			return
		}
		hit, rng := f.decide(ss.counter(f), seed)
		if !hit {
			return
		}
		if f.Latency != nil {
			p.delay += f.Latency.sample(rng)
		}
		switch {
		case f.Truncate:
			p.truncate = true
		case terminal:
			p.answer = f
		}
		p.labels = append(p.labels, f.label())
	}
	for i := range st.sc.faults {
		consider(&st.sc.faults[i])
	}
	for _, f := range global {
		consider(f)
	}
	for _, f := range ss.faults {
		consider(f)
	}
	p.delay = min(p.delay, MaxLatency)
	return p
}

// runtime is what applies to every session at run time, read in one
// lock: the run-time faults for every session and the overrides.
func (s *Server) runtime() ([]*Fault, Overrides) {
	s.faultsMu.Lock()
	defer s.faultsMu.Unlock()
	return s.faults, s.overrides
}

// MaxRuntimeFaults bounds the run-time faults kept at once: for every
// session and of each session, all together (a scenario's own are bounded
// by MaxFaults). Past it, AddFault and POST /__mock/faults answer 409
// too_many_faults and change nothing.
const MaxRuntimeFaults = 1000

// MaxRuntimeFaultBytes bounds what the run-time faults keep together
// (their names, paths, error bodies and headers), as MaxRuntimeFaults
// bounds how many they are: a thousand error bodies of a megabyte each
// would otherwise fit.
const MaxRuntimeFaultBytes = 16 << 20

// size is about what the fault keeps in memory.
func (f *Fault) size() int64 {
	n := int64(256 + len(f.ID) + len(f.Name) + len(f.Method) + len(f.Path))
	if e := f.Error; e != nil {
		if e.Body != nil {
			n += int64(len(*e.Body))
		}
		for k, v := range e.Headers {
			n += int64(64 + len(k) + len(v))
		}
	}
	return n
}

// faultRoomLocked refuses n new run-time faults of size bytes together
// when they would take the faults past MaxRuntimeFaults or
// MaxRuntimeFaultBytes, counting all there are but those going (which
// the new ones replace). The caller holds s.sessionsMu.
func (s *Server) faultRoomLocked(n int, size int64, going func(f *Fault, owner string) bool) error {
	global, _ := s.runtime()
	have, used := 0, int64(0)
	count := func(f *Fault, owner string) {
		if !going(f, owner) {
			have++
			used += f.size()
		}
	}
	for _, f := range global {
		count(f, AllSessions)
	}
	for _, ss := range s.sessions {
		ss.mu.Lock()
		for _, f := range ss.faults {
			count(f, ss.id)
		}
		ss.mu.Unlock()
	}
	these := "this one"
	if n != 1 {
		these = fmt.Sprintf("these %d", n)
	}
	switch {
	case have+n > MaxRuntimeFaults:
		return &APIError{Status: http.StatusConflict, Code: CodeTooManyFaults,
			Message: fmt.Sprintf("at most %d run-time faults at once, and %s would pass it; remove some first (DELETE /__mock/faults)", MaxRuntimeFaults, these)}
	case used+size > MaxRuntimeFaultBytes:
		return &APIError{Status: http.StatusConflict, Code: CodeTooManyFaults,
			Message: fmt.Sprintf("run-time faults keep at most %d MiB together, and %s (%d bytes) would pass it; remove some first (DELETE /__mock/faults)", MaxRuntimeFaultBytes>>20, these, size)}
	}
	return nil
}

// AddFault adds a run-time fault for session, or for every session with
// AllSessions, and returns it with its id. Faults added later are checked
// after the scenario's own and the earlier ones. Past MaxRuntimeFaults
// or MaxRuntimeFaultBytes, it returns a 409 *APIError (CodeTooManyFaults)
// and adds nothing.
func (s *Server) AddFault(sid string, f Fault) (Fault, error) {
	f, _, err := s.putFault(sid, f, false)
	return f, err
}

// ReplaceFault puts f, named, in place of the run-time faults of the same
// name for session (AllSessions: those for every session), in one step:
// no request sees both, or neither. With none of that name, it adds f.
// It returns f with its new id and how many faults it replaced; past the
// bounds, the 409 of AddFault, and nothing changes.
func (s *Server) ReplaceFault(sid string, f Fault) (Fault, int, error) {
	if f.Name == "" {
		return Fault{}, 0, wire.InvalidBody("name", "required: the name of the fault to replace")
	}
	return s.putFault(sid, f, true)
}

// putFault adds f for sid, first taking out the faults of sid with f's
// name when replace is set.
func (s *Server) putFault(sid string, f Fault, replace bool) (Fault, int, error) {
	if probs := f.validate(); len(probs) > 0 {
		return Fault{}, 0, wire.InvalidBody(probs[0].Field, "%s", probs[0].Msg)
	}
	f.prepare()
	going := func(g *Fault, owner string) bool { return replace && owner == sid && g.Name == f.Name }
	// Additions take turns on sessionsMu, so the faults counted are all
	// there are until this one is in (removals only make more room), and
	// ids grow in the order faults go in. faultsMu, which is never held
	// while another lock is taken, may be taken under it.
	s.sessionsMu.Lock()
	defer s.sessionsMu.Unlock()
	if err := s.faultRoomLocked(1, f.size(), going); err != nil {
		return Fault{}, 0, err
	}
	var removed []*Fault
	keep := func(owner string) func(*Fault) bool {
		return func(g *Fault) bool {
			if going(g, owner) {
				removed = append(removed, g)
				return true
			}
			return false
		}
	}
	s.faultsMu.Lock()
	s.faultSeq++
	f.ID, f.seq = fmt.Sprintf("f%d", s.faultSeq), s.faultSeq
	fp := &f
	if sid == AllSessions {
		// A new slice: requests in flight keep reading the old one.
		s.faults = append(slices.DeleteFunc(slices.Clone(s.faults), keep(AllSessions)), fp)
		s.faultsMu.Unlock()
	} else {
		s.faultsMu.Unlock()
		ss := s.sessionLocked(sid)
		ss.mu.Lock()
		ss.faults = append(slices.DeleteFunc(ss.faults, keep(sid)), fp)
		ss.mu.Unlock()
	}
	if len(removed) > 0 {
		for _, ss := range s.sessions {
			ss.mu.Lock()
			for _, g := range removed {
				delete(ss.counters, g)
			}
			ss.mu.Unlock()
		}
	}
	return f, len(removed), nil
}

// Faults lists the run-time faults that apply to session: every session's
// first, then its own. With AllSessions, it lists every run-time fault.
func (s *Server) Faults(sid string) []Fault {
	var out []Fault
	global, _ := s.runtime()
	for _, f := range global {
		out = append(out, *f)
	}
	for _, ss := range s.sessionsOf(sid) {
		ss.mu.Lock()
		for _, f := range ss.faults {
			out = append(out, *f)
		}
		ss.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Fault) int { return a.seq - b.seq })
	return out
}

// RemoveFaults removes the run-time fault with id, or with id "" every
// run-time fault of session (AllSessions: of every session and global).
// It reports how many were removed.
func (s *Server) RemoveFaults(sid, id string) int {
	var removed []*Fault
	drop := func(f *Fault, owner string) bool {
		d := id != "" && f.ID == id || id == "" && (sid == AllSessions || owner == sid)
		if d {
			removed = append(removed, f)
		}
		return d
	}
	s.faultsMu.Lock()
	// A new slice: requests in flight read the old one without the lock.
	s.faults = slices.DeleteFunc(slices.Clone(s.faults), func(f *Fault) bool { return drop(f, AllSessions) })
	s.faultsMu.Unlock()
	sessions := s.sessionsOf(AllSessions)
	for _, ss := range sessions {
		ss.mu.Lock()
		ss.faults = slices.DeleteFunc(ss.faults, func(f *Fault) bool { return drop(f, ss.id) })
		ss.mu.Unlock()
	}
	for _, ss := range sessions {
		ss.mu.Lock()
		for _, f := range removed {
			delete(ss.counters, f)
		}
		ss.mu.Unlock()
	}
	return len(removed)
}
