package mock

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Patterns over the journal (package journal's matcher) in the Go API,
// and their parameters in GET /__mock/requests and GET /__mock/verify.

// MaxWait is the longest a request may wait on the journal (wait=).
const MaxWait = journal.MaxWait

// MaxWaiters bounds the requests waiting on the journal at once, of all
// sessions together; one more is answered 503 with Retry-After.
const MaxWaiters = journal.MaxWaiters

// MaxVerifySeqs is how many sequence numbers of matching entries a
// verification lists: the newest.
const MaxVerifySeqs = journal.MaxVerifySeqs

// NearMisses is how many of the closest entries a failed verification
// shows.
const NearMisses = journal.NearMisses

// maxTimes bounds count, min and max.
const maxTimes = 1_000_000_000

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
	p, err := journal.Compile(f)
	if err != nil {
		return Verification{}, err
	}
	return s.st.Journals().Verify(p, want), nil
}

// WaitRequests waits until at least one journal entry matches f, then
// returns the entries that match, oldest first (the newest f.Limit with
// a limit); when ctx ends first, it returns ctx's error. Set f.Since to
// wait for entries newer than those seen. An invalid pattern, or more
// than MaxWaiters waiting at once, is an *APIError.
func (s *Server) WaitRequests(ctx context.Context, f JournalFilter) ([]JournalEntry, error) {
	p, err := journal.Compile(f)
	if err != nil {
		return nil, err
	}
	if err := s.st.Journals().Await(ctx, p, 1); err != nil {
		return nil, err
	}
	return s.st.Journals().Entries(p, f.Limit), nil
}

// verificationMessage words a failed verification in one line, with its
// nearest miss.
func verificationMessage(v Verification) string {
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

// journalQuery is what GET /__mock/requests and /__mock/verify were
// asked: the pattern, how long to wait, and the route's own parameters.
type journalQuery struct {
	filter JournalFilter
	p      *journal.Pattern
	wait   time.Duration
	params map[string]string // the route's own parameters (limit, count, ...)
}

// parseJournalQuery reads the parameters of GET /__mock/requests and
// /__mock/verify: session, method, path, query.NAME, header.NAME,
// body.PATH, since, wait, and the route's own (own). Each at most once;
// an unknown one, a bad escape or a bad value is a 400 naming it.
func parseJournalQuery(r *http.Request, own ...string) (*journalQuery, error) {
	params := &wire.Params{Names: append([]string{"session", "method", "path", "since", "wait"}, own...),
		Prefixes: []string{"query.", "header.", "body."},
		Shown:    append([]string{"session", "method", "path", "query.NAME", "header.NAME", "body.PATH", "since", "wait"}, own...)}
	v, err := wire.ReadQuery(r.URL.RawQuery, params)
	if err != nil {
		return nil, err
	}
	q := &journalQuery{params: map[string]string{}}
	f := &q.filter
	sid := r.Header.Get(HeaderSession)
	for _, key := range v.Names() {
		val, _, err := v.Get(key)
		if err != nil {
			return nil, err
		}
		if name, ok := strings.CutPrefix(key, "query."); ok {
			f.Query = setKey(f.Query, name, val)
		} else if name, ok := strings.CutPrefix(key, "header."); ok {
			f.Header = setKey(f.Header, name, val)
		} else if path, ok := strings.CutPrefix(key, "body."); ok {
			f.Body = setKey(f.Body, path, val)
		} else if err := q.set(key, val, f, &sid); err != nil {
			return nil, err
		}
	}
	switch {
	case sid == "":
		sid = AllSessions
	case sid != AllSessions && !validID(sid):
		return nil, wire.InvalidParameter("session", "must be * or "+msgBadSessionID)
	}
	if sid != AllSessions {
		f.Session = sid
	}
	if q.p, err = journal.Compile(*f); err != nil {
		return nil, err
	}
	return q, nil
}

// set reads one of the journal's own parameters, or one of the route's
// (own), into q.
func (q *journalQuery) set(key, val string, f *JournalFilter, sid *string) error {
	switch key {
	case "session":
		if val != "" {
			*sid = val
		}
	case "method":
		f.Method = val
	case "path":
		f.Path = val
	case "since":
		n, err := wire.ParseDigits(val)
		if err != nil {
			return wire.InvalidParameter("since", "must be a journal sequence number, got %q", wire.Clip(val))
		}
		f.Since = n
	case "wait":
		var err error
		if q.wait, err = parseWait(val); err != nil {
			return err
		}
	default:
		q.params[key] = val // one of own: ReadQuery knows no others
	}
	return nil
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
	if n, derr := wire.ParseDigits(v); derr == nil && n <= int64(MaxWait/time.Second) {
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
		n, err := wire.ParseDigits(v)
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

// waitFor runs Await for a request that asked to wait: bounded by the
// wait and by the client. It returns an error only for too many waiters:
// the end of the wait is an answer like any other.
func (s *Server) waitFor(r *http.Request, q *journalQuery, n int) error {
	if q.wait <= 0 || n <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), q.wait)
	defer cancel()
	if err := s.st.Journals().Await(ctx, q.p, n); err == journal.ErrTooManyWaiters {
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
	v := s.st.Journals().Verify(q.p, want)
	if !v.OK {
		return 0, nil, &APIError{Status: http.StatusConflict, Code: CodeVerificationFailed, Message: verificationMessage(v), Details: v}
	}
	return http.StatusOK, v, nil
}
