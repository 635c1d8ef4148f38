package mock

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Patterns over the journal: one matcher for GET /__mock/requests,
// GET /__mock/verify, Requests, Verify and WaitRequests.

// MaxWait is the longest a request may wait on the journal (wait=).
const MaxWait = 30 * time.Second

// MaxWaiters bounds the requests waiting on the journal at once, of all
// sessions together; one more is answered 503 with Retry-After.
const MaxWaiters = 256

// MaxVerifySeqs is how many sequence numbers of matching entries a
// verification lists: the newest.
const MaxVerifySeqs = 100

// NearMisses is how many of the closest entries a failed verification
// shows.
const NearMisses = 3

// maxTimes bounds count, min and max.
const maxTimes = 1_000_000_000

// Times says how many journal entries must match a pattern: from Min to
// Max, a negative Max meaning no upper bound.
type Times struct {
	Min int
	Max int
}

// Exactly wants n matching entries.
func Exactly(n int) Times { return Times{n, n} }

// AtLeast wants n matching entries or more.
func AtLeast(n int) Times { return Times{n, -1} }

// AtMost wants at most n matching entries.
func AtMost(n int) Times { return Times{0, n} }

// Between wants from min to max matching entries.
func Between(min, max int) Times { return Times{min, max} }

func (t Times) holds(n int) bool { return n >= t.Min && (t.Max < 0 || n <= t.Max) }

// String says what t wants, as verifications word it: "at least 1".
func (t Times) String() string {
	switch {
	case t.Max < 0 && t.Min <= 0:
		return "any number"
	case t.Max < 0:
		return fmt.Sprintf("at least %d", t.Min)
	case t.Min == t.Max:
		return fmt.Sprintf("exactly %d", t.Min)
	case t.Min <= 0:
		return fmt.Sprintf("at most %d", t.Max)
	}
	return fmt.Sprintf("from %d to %d", t.Min, t.Max)
}

// Verification is the outcome of Verify and the data of GET
// /__mock/verify (in a 409's error.details when it does not hold).
type Verification struct {
	// OK reports whether the count is as wanted.
	OK bool `json:"-"`
	// Matched counts the entries that match.
	Matched int `json:"matched"`
	// Want is what was wanted: "at least 1", "exactly 2", "from 1 to 3".
	Want string `json:"want"`
	// Seqs are the sequence numbers of the matching entries, oldest
	// first: the newest MaxVerifySeqs of them.
	Seqs []int64 `json:"seqs"`
	// Incomplete is set when the journals searched lost entries newer
	// than the pattern's since to their bounds (the oldest go first), so
	// Matched may be short.
	Incomplete bool `json:"incomplete"`
	// NearMisses, when fewer entries matched than wanted, are the
	// entries closest to the pattern: fewest differing parts, then
	// newest; at most NearMisses of them.
	NearMisses []NearMiss `json:"near_misses,omitzero"`
}

// NearMiss is an entry that does not match a pattern, with the parts
// that differ.
type NearMiss struct {
	Seq     int64  `json:"seq"`
	Session string `json:"session"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	// Differs names each part of the pattern the entry does not have, as
	// the pattern names it: "method", "query.answered", "body.feedback.0.tone".
	Differs map[string]Difference `json:"differs"`
}

// Difference is what a pattern wants of a part and what an entry has
// there; Got is nil when the entry has no such part (no such query
// parameter or header, no such path in its body, or a body that is not
// JSON).
type Difference struct {
	Want string  `json:"want"`
	Got  *string `json:"got"`
}

// partKind is what part of an entry a pattern looks at.
type partKind uint8

const (
	partMethod partKind = iota
	partPath
	partQuery
	partHeader
	partBody
)

// part is one thing a pattern wants of an entry.
type part struct {
	kind   partKind
	field  string   // as patterns name it: "method", "query.answered", "header.X-Client", "body.a.0.b"
	name   string   // the query parameter, or the canonical header name
	segs   []string // the body path
	want   string
	secret bool // a credential header: compared as the journal shows it
}

// matcher is a JournalFilter made ready to match.
type matcher struct {
	since int64
	parts []part // method and path first: the cheap ones
	cheap int    // how many parts are method and path
}

// compile checks f's parts and makes a matcher of them. A problem is a
// 400 invalid_parameter naming the part as GET /__mock/requests would.
func (f JournalFilter) compile() (*matcher, error) {
	m := &matcher{since: f.Since}
	if f.Method != "" {
		if !isToken(f.Method) {
			return nil, wire.InvalidParameter("method", "must be an HTTP method such as GET, got %q", f.Method)
		}
		m.parts = append(m.parts, part{kind: partMethod, field: "method", want: f.Method})
	}
	if f.Path != "" {
		if !strings.HasPrefix(f.Path, "/") && f.Path != "*" {
			return nil, wire.InvalidParameter("path", "must be a path from the root such as /api/v1/feedbacks, or a prefix of one ending in *, got %q", f.Path)
		}
		m.parts = append(m.parts, part{kind: partPath, field: "path", want: f.Path})
	}
	m.cheap = len(m.parts)
	var more []part
	for _, name := range sortedKeys(f.Query) {
		field := "query." + name
		if name == "" {
			return nil, wire.InvalidParameter(field, "must name a query parameter: query.NAME=VALUE")
		}
		more = append(more, part{kind: partQuery, field: field, name: name, want: f.Query[name]})
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(f.Header) {
		field, want := "header."+name, f.Header[name]
		if !isToken(name) {
			return nil, wire.InvalidParameter(field, "must name a header: header.NAME=VALUE")
		}
		canon := http.CanonicalHeaderKey(name)
		if other, ok := seen[canon]; ok {
			return nil, wire.InvalidParameter(field, "names the same header as header.%s (names are case-insensitive)", other)
		}
		seen[canon] = name
		p := part{kind: partHeader, field: field, name: canon, want: want, secret: secretHeaders[canon]}
		if p.secret && !redactedForm(want) {
			return nil, wire.InvalidParameter(field, "%s is journaled redacted, so it cannot be matched by value: give its scheme alone (Bearer) or as journaled (Bearer %s)", canon, redacted)
		}
		more = append(more, p)
	}
	for _, path := range sortedKeys(f.Body) {
		field := "body." + path
		segs := strings.Split(path, ".")
		if slices.Contains(segs, "") {
			return nil, wire.InvalidParameter(field, "must be a dotted path into the JSON body, such as body.feedback.0.tone")
		}
		more = append(more, part{kind: partBody, field: field, segs: segs, want: f.Body[path]})
	}
	slices.SortFunc(more, func(a, b part) int { return cmp.Compare(a.field, b.field) })
	m.parts = append(m.parts, more...)
	return m, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// redactedForm reports whether want is something a credential header may
// be matched with: a scheme the journal keeps ("Bearer", see
// authSchemes), that scheme with the journal's stand-in ("Bearer
// [redacted]"), or the stand-in alone. Anything else, a bare token
// included, could only be a guess at the secret.
func redactedForm(want string) bool {
	scheme, rest, found := strings.Cut(want, " ")
	return want == redacted || authSchemes[strings.ToLower(scheme)] && (!found || rest == redacted)
}

// check reports whether r has the part, and what r has there (nil:
// nothing).
func (p *part) check(r *journalRecord) (bool, *string) {
	switch p.kind {
	case partMethod:
		return strings.EqualFold(p.want, r.Method), &r.Method
	case partPath:
		if prefix, ok := strings.CutSuffix(p.want, "*"); ok {
			return strings.HasPrefix(r.Path, prefix), &r.Path
		}
		return p.want == r.Path, &r.Path
	case partQuery:
		vals := queryValues(r.Query, p.name)
		if vals == nil {
			return false, nil
		}
		got := strings.Join(vals, ", ")
		return slices.Contains(vals, p.want), &got
	case partHeader:
		vals := headerValues(r.header, p.name)
		if vals == nil {
			return false, nil
		}
		if p.secret {
			vals = redactValues(vals)
		}
		got := strings.Join(vals, ", ")
		if p.secret {
			return slices.ContainsFunc(vals, func(v string) bool {
				scheme, _, _ := strings.Cut(v, " ")
				return strings.EqualFold(v, p.want) || strings.EqualFold(scheme, p.want)
			}), &got
		}
		return got == p.want || slices.Contains(vals, p.want), &got
	case partBody:
		got, ok := bodyValue(r.Body, p.segs)
		if !ok {
			return false, nil
		}
		return got == p.want, &got
	}
	return false, nil
}

// queryValues returns the values of the query parameter name in the raw
// query, decoded; nil if it is not there. Only & separates parameters, as
// the API reads them.
func queryValues(raw, name string) []string {
	var out []string
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if k != name {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out = append(out, v)
	}
	return out
}

// headerValues returns the values of header name (canonical), matched
// case-insensitively; nil if it is not there.
func headerValues(h http.Header, name string) []string {
	if vs, ok := h[name]; ok {
		return vs
	}
	for k, vs := range h { // a name net/http kept as sent
		if strings.EqualFold(k, name) {
			return vs
		}
	}
	return nil
}

// bodyValue returns the value at path in a JSON body: a string as it
// is, anything else as its JSON text (numbers as written; objects and
// arrays compacted). An array takes an index; false when the path is not
// there or the body is not JSON.
func bodyValue(body string, path []string) (string, bool) {
	raw := json.RawMessage(body)
	for _, seg := range path {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if len(raw) == 0 {
			return "", false
		}
		switch raw[0] {
		case '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return "", false
			}
			v, ok := obj[seg]
			if !ok {
				return "", false
			}
			raw = v
		case '[':
			i, err := parseDigits(seg)
			if err != nil {
				return "", false
			}
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) != nil || i >= int64(len(arr)) {
				return "", false
			}
			raw = arr[i]
		default:
			return "", false
		}
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "", false
	}
	return b.String(), true
}

// matches reports whether r is after since and has every part.
func (m *matcher) matches(r *journalRecord) bool {
	if r.Seq <= m.since {
		return false
	}
	for i := range m.parts {
		if ok, _ := m.parts[i].check(r); !ok {
			return false
		}
	}
	return true
}

// matchesCheap is matches on method and path alone.
func (m *matcher) matchesCheap(r *journalRecord) bool {
	for i := range m.parts[:m.cheap] {
		if ok, _ := m.parts[i].check(r); !ok {
			return false
		}
	}
	return true
}

// differs counts the parts r does not have.
func (m *matcher) differs(r *journalRecord) int {
	n := 0
	for i := range m.parts {
		if ok, _ := m.parts[i].check(r); !ok {
			n++
		}
	}
	return n
}

// nearMiss describes how r differs from the pattern.
func (m *matcher) nearMiss(r *journalRecord) NearMiss {
	nm := NearMiss{Seq: r.Seq, Session: r.Session, Method: r.Method, Path: r.Path, Differs: map[string]Difference{}}
	for i := range m.parts {
		p := &m.parts[i]
		if ok, got := p.check(r); !ok {
			if got != nil {
				g := *got // not a pointer into the record
				got = &g
			}
			nm.Differs[p.field] = Difference{Want: p.want, Got: got}
		}
	}
	return nm
}

// gather returns the records in scope (a session, or AllSessions) newer
// than since that match m's method and path, in no particular order.
// With limit, a session gives at most its newest limit records, which
// is right only when nothing else is filtered after. References only are
// copied under the sessions' locks: records never change once kept.
func (s *Server) gather(sid string, m *matcher, since int64, limit int) []*journalRecord {
	var out []*journalRecord
	for _, ss := range s.sessionsOf(sid) {
		ss.mu.Lock()
		j := &ss.journal
		start := len(out)
		for i := j.n - 1; i >= 0 && (limit <= 0 || len(out)-start < limit); i-- {
			r := j.entries[(j.head+i)%len(j.entries)]
			if r.Seq <= since {
				break // older ones are older still
			}
			if m.matchesCheap(r) {
				out = append(out, r)
			}
		}
		ss.mu.Unlock()
	}
	return out
}

// find returns the records in scope that match m, oldest first; with
// limit, only the newest limit of them.
func (s *Server) find(sid string, m *matcher, limit int) []*journalRecord {
	perSession := 0
	if m.cheap == len(m.parts) {
		perSession = limit // nothing is filtered after gather
	}
	out := s.gather(sid, m, m.since, perSession)
	if m.cheap < len(m.parts) {
		out = slices.DeleteFunc(out, func(r *journalRecord) bool { return !m.matches(r) })
	}
	slices.SortFunc(out, func(a, b *journalRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	if limit > 0 && len(out) > limit {
		out = slices.Clone(out[len(out)-limit:])
	}
	return out
}

// scope is the session a filter searches: AllSessions for "".
func (f JournalFilter) scope() string {
	if f.Session == "" {
		return AllSessions
	}
	return f.Session
}

// Verify counts the journal entries that match f (its Limit aside) and
// checks the count against want. When fewer match than want.Min, the
// answer lists the nearest misses. An invalid pattern is an *APIError
// naming the part.
func (s *Server) Verify(f JournalFilter, want Times) (Verification, error) {
	m, err := f.compile()
	if err != nil {
		return Verification{}, err
	}
	return s.verify(f.scope(), m, want), nil
}

func (s *Server) verify(sid string, m *matcher, want Times) Verification {
	all := s.gather(sid, &matcher{}, m.since, 0)
	slices.SortFunc(all, func(a, b *journalRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	v := Verification{Want: want.String(), Seqs: []int64{}, Incomplete: s.lost(sid, m.since)}
	type miss struct {
		r *journalRecord
		n int
	}
	var near []miss // the best so far: fewest differences, then newest
	for _, r := range all {
		n := m.differs(r)
		if n == 0 {
			v.Matched++
			v.Seqs = append(v.Seqs, r.Seq)
			continue
		}
		// Entries come oldest first: a newer one with as few differences
		// goes before the ones already kept.
		i, _ := slices.BinarySearchFunc(near, n, func(x miss, n int) int { return cmp.Compare(x.n, n) })
		if i < NearMisses {
			near = slices.Insert(near, i, miss{r, n})
			near = near[:min(len(near), NearMisses)]
		}
	}
	if len(v.Seqs) > MaxVerifySeqs {
		v.Seqs = slices.Clone(v.Seqs[len(v.Seqs)-MaxVerifySeqs:])
	}
	v.OK = want.holds(v.Matched)
	if v.Matched < want.Min {
		v.NearMisses = make([]NearMiss, 0, len(near))
		for _, x := range near {
			v.NearMisses = append(v.NearMisses, m.nearMiss(x.r))
		}
	}
	return v
}

// lost reports whether a journal in scope lost entries newer than since.
func (s *Server) lost(sid string, since int64) bool {
	for _, ss := range s.sessionsOf(sid) {
		ss.mu.Lock()
		lost := ss.journal.lost > since
		ss.mu.Unlock()
		if lost {
			return true
		}
	}
	return false
}

// message words a failed verification in one line, with its nearest
// miss.
func (v Verification) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "matched %d, want %s", v.Matched, v.Want)
	if v.Incomplete {
		b.WriteString(" (the journal lost older entries to its bounds)")
	}
	if len(v.NearMisses) > 0 {
		nm := v.NearMisses[0]
		fmt.Fprintf(&b, "; nearest: seq %d %s %s: %s", nm.Seq, nm.Method, nm.Path, nm.DiffersString())
	}
	return b.String()
}

// DiffersString words the differing parts in one line, in the order of
// their names: `query.answered: want "0", got "1"; header.X-Client: want "web", got nothing`.
func (nm NearMiss) DiffersString() string {
	var parts []string
	for _, field := range slices.Sorted(maps.Keys(nm.Differs)) {
		d := nm.Differs[field]
		got := "nothing"
		if d.Got != nil {
			got = strconv.Quote(*d.Got)
		}
		parts = append(parts, fmt.Sprintf("%s: want %q, got %s", field, d.Want, got))
	}
	return strings.Join(parts, "; ")
}

// errTooManyWaiters refuses a wait past MaxWaiters.
var errTooManyWaiters = &APIError{Status: http.StatusServiceUnavailable, Code: CodeServiceUnavailable, RetryAfter: time.Second,
	Message: fmt.Sprintf("%d requests are already waiting on the journal; try again, or ask without wait", MaxWaiters)}

// await returns once at least n entries in scope newer than m.since
// match m, or with ctx's error when it ends first. It wakes on each new
// entry, never by polling: record closes s.wake. Each wake looks only at
// the entries that came since the last look. Past MaxWaiters waiting at
// once, it answers errTooManyWaiters.
func (s *Server) await(ctx context.Context, sid string, m *matcher, n int) error {
	seen, cursor, waiting := 0, m.since, false
	defer func() {
		if waiting {
			s.journalMu.Lock()
			s.waiting--
			s.journalMu.Unlock()
		}
	}()
	for {
		// Take the channel before looking: an entry recorded after this
		// closes it, and one recorded before is in the journal already
		// (record holds journalMu until its entry is in).
		s.journalMu.Lock()
		if s.wake == nil {
			s.wake = make(chan struct{})
		}
		wake, upto := s.wake, s.seq
		s.journalMu.Unlock()
		for _, r := range s.gather(sid, m, cursor, 0) {
			if r.Seq <= upto && m.matches(r) {
				seen++
			}
		}
		if seen >= n {
			return nil
		}
		cursor = upto // later entries are counted on a later wake
		if !waiting {
			s.journalMu.Lock()
			if s.waiting >= MaxWaiters {
				s.journalMu.Unlock()
				return errTooManyWaiters
			}
			s.waiting++
			waiting = true
			s.journalMu.Unlock()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wakeWaiters tells the requests waiting on the journal that an entry
// came; the caller holds s.journalMu.
func (s *Server) wakeWaiters() {
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
}

// waiters is how many requests wait on the journal now.
func (s *Server) waiters() int {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	return s.waiting
}

// WaitRequests waits until at least one journal entry matches f, then
// returns the entries that match, oldest first (the newest f.Limit with
// a limit); when ctx ends first, it returns ctx's error. Set f.Since to
// wait for entries newer than those seen. An invalid pattern, or more
// than MaxWaiters waiting at once, is an *APIError.
func (s *Server) WaitRequests(ctx context.Context, f JournalFilter) ([]JournalEntry, error) {
	m, err := f.compile()
	if err != nil {
		return nil, err
	}
	if err := s.await(ctx, f.scope(), m, 1); err != nil {
		return nil, err
	}
	return entries(s.find(f.scope(), m, f.Limit)), nil
}

// journalQuery is what GET /__mock/requests and /__mock/verify were
// asked: the pattern, how long to wait, and the route's own parameters.
type journalQuery struct {
	filter JournalFilter
	m      *matcher
	scope  string
	wait   time.Duration
	params map[string]string // the route's own parameters (limit, count, ...)
}

// parseJournalQuery reads the parameters of GET /__mock/requests and
// /__mock/verify: session, method, path, query.NAME, header.NAME,
// body.PATH, since, wait, and the route's own (own). Each at most once;
// an unknown one, a bad escape or a bad value is a 400 naming it.
func parseJournalQuery(r *http.Request, own ...string) (*journalQuery, error) {
	q := &journalQuery{params: map[string]string{}}
	f := &q.filter
	given := map[string]bool{}
	sid := r.Header.Get(HeaderSession)
	for raw := r.URL.RawQuery; raw != ""; {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, wire.InvalidParameter(k, "has a bad %%-escape")
		}
		if key == "" {
			return nil, wire.InvalidParameter(pair, "a parameter without a name")
		}
		if given[key] {
			return nil, wire.InvalidParameter(key, "given more than once; give it at most once")
		}
		given[key] = true
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, wire.InvalidParameter(key, "has a bad %%-escape")
		}
		if name, ok := strings.CutPrefix(key, "query."); ok {
			f.Query = setKey(f.Query, name, val)
		} else if name, ok := strings.CutPrefix(key, "header."); ok {
			f.Header = setKey(f.Header, name, val)
		} else if path, ok := strings.CutPrefix(key, "body."); ok {
			f.Body = setKey(f.Body, path, val)
		} else {
			switch key {
			case "session":
				if val != "" {
					sid = val
				}
			case "method":
				f.Method = val
			case "path":
				f.Path = val
			case "since":
				n, err := parseDigits(val)
				if err != nil {
					return nil, wire.InvalidParameter("since", "must be a journal sequence number, got %q", val)
				}
				f.Since = n
			case "wait":
				if q.wait, err = parseWait(val); err != nil {
					return nil, err
				}
			default:
				if !slices.Contains(own, key) {
					known := append([]string{"session", "method", "path", "query.NAME", "header.NAME", "body.PATH", "since", "wait"}, own...)
					return nil, wire.InvalidParameter(key, "unknown parameter; this route takes %s and %s", strings.Join(known[:len(known)-1], ", "), known[len(known)-1])
				}
				q.params[key] = val
			}
		}
	}
	switch {
	case sid == "":
		sid = AllSessions
	case sid != AllSessions && !validID(sid):
		return nil, wire.InvalidParameter("session", "must be * or "+msgBadSessionID)
	}
	q.scope = sid
	if sid != AllSessions {
		f.Session = sid
	}
	var err error
	if q.m, err = f.compile(); err != nil {
		return nil, err
	}
	return q, nil
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// parseWait reads wait=: a duration ("5s", "500ms") or whole seconds,
// up to MaxWait.
func parseWait(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if n, derr := parseDigits(v); derr == nil && n <= int64(MaxWait/time.Second) {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < 0 || d > MaxWait {
		return 0, wire.InvalidParameter("wait", "must be a duration from 0s to %s, such as 5s or 500ms, got %q", MaxWait, v)
	}
	return d, nil
}

// times reads count, min and max: count alone, or min and max, either
// or both; none wants at least one.
func (q *journalQuery) times() (Times, error) {
	read := func(name string) (int, bool, error) {
		v, ok := q.params[name]
		if !ok {
			return 0, false, nil
		}
		n, err := parseDigits(v)
		if err != nil || n > maxTimes {
			return 0, true, wire.InvalidParameter(name, "must be an integer from 0 to %d, got %q", maxTimes, v)
		}
		return int(n), true, nil
	}
	count, hasCount, err := read("count")
	if err != nil {
		return Times{}, err
	}
	lo, hasMin, err := read("min")
	if err != nil {
		return Times{}, err
	}
	hi, hasMax, err := read("max")
	if err != nil {
		return Times{}, err
	}
	switch {
	case hasCount && (hasMin || hasMax):
		return Times{}, wire.InvalidParameter("count", "give count alone, or min and max (either or both)")
	case hasCount:
		return Exactly(count), nil
	case hasMin && hasMax && lo > hi:
		return Times{}, wire.InvalidParameter("min", "must not be more than max, got min %d and max %d", lo, hi)
	case hasMin && hasMax:
		return Between(lo, hi), nil
	case hasMax:
		return AtMost(hi), nil
	case hasMin:
		return AtLeast(lo), nil
	}
	return AtLeast(1), nil
}

// waitFor runs await for a request that asked to wait: bounded by the
// wait and by the client. It returns an error only for too many waiters:
// the end of the wait is an answer like any other.
func (s *Server) waitFor(r *http.Request, q *journalQuery, n int) error {
	if q.wait <= 0 || n <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), q.wait)
	defer cancel()
	if err := s.await(ctx, q.scope, q.m, n); err == errTooManyWaiters {
		return err
	}
	return nil
}

// handleVerify serves GET /__mock/verify: whether the journal holds
// count (or min to max, or at least one) entries that match the pattern;
// with wait, it first waits for min of them. 200 with the Verification
// when it holds, else 409 verification_failed with it in error.details.
func (s *Server) handleVerify(r *http.Request) (int, any, error) {
	q, err := parseJournalQuery(r, "count", "min", "max")
	if err != nil {
		return 0, nil, err
	}
	want, err := q.times()
	if err != nil {
		return 0, nil, err
	}
	if err := s.waitFor(r, q, want.Min); err != nil {
		return 0, nil, err
	}
	v := s.verify(q.scope, q.m, want)
	if !v.OK {
		return 0, nil, &APIError{Status: http.StatusConflict, Code: CodeVerificationFailed, Message: v.message(), Details: v}
	}
	return http.StatusOK, v, nil
}
