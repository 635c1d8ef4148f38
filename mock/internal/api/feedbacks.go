package api

import (
	"math"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Bounds of the list's query parameters.
const (
	DefaultLimit    = 20
	MaxLimit        = 100
	MaxSearchLength = 200
)

// listParam is one query parameter of GET /feedbacks: its name, what it
// takes (held to the OpenAPI document by a test) and how its value goes
// into the query, passed by value: a pointer would move it to the heap.
type listParam struct {
	name   string
	kind   string // "integer" (from lo to hi), "date" or "text" (at most hi characters)
	lo, hi int64
	set    func(q reviews.Query, v wire.Query) (reviews.Query, error)
}

// listParams is the one table of GET /feedbacks' query parameters, in
// the spec's order, so the first bad one is reported.
var listParams = []listParam{
	intParam("limit", 1, MaxLimit, "an integer from 1 to 100", func(q reviews.Query, n int64) reviews.Query { q.Limit = n; return q }),
	intParam("offset", 0, math.MaxInt64, "an integer >= 0", func(q reviews.Query, n int64) reviews.Query { q.Offset = n; return q }),
	intParam("answered", 0, 1, "0 (without reply) or 1 (with reply)", func(q reviews.Query, n int64) reviews.Query { q.Answered = int8(n); return q }),
	dateParam("date_from", func(q reviews.Query, d int32) reviews.Query { q.DayFrom = d; return q }),
	dateParam("date_to", func(q reviews.Query, d int32) reviews.Query { q.DayTo = d; return q }),
	intParam("rating", 1, 5, "an integer from 1 to 5", func(q reviews.Query, n int64) reviews.Query { q.Rating = int8(n); return q }),
	intParam("nm_id", 1, math.MaxInt64, "a positive integer", func(q reviews.Query, n int64) reviews.Query { q.NmID = n; return q }),
	{name: "search", kind: "text", hi: MaxSearchLength, set: setSearch},
	intParam("counts_only", 0, 1, "0 or 1", func(q reviews.Query, n int64) reviews.Query { q.CountsOnly = n == 1; return q }),
}

// ListParamBounds is the range of GET /feedbacks' integer query
// parameter name, from the one table; ok is false for the others.
func ListParamBounds(name string) (lo, hi int64, ok bool) {
	for _, lp := range listParams {
		if lp.name == name && lp.kind == "integer" {
			return lp.lo, lp.hi, true
		}
	}
	return 0, 0, false
}

// feedbackParams are the query parameters GET /feedbacks knows; others
// are ignored.
var feedbackParams = func() *wire.Params {
	p := &wire.Params{IgnoreUnknown: true}
	for _, lp := range listParams {
		p.Names = append(p.Names, lp.name)
	}
	return p
}()

// ListQuery reads the raw query of GET /feedbacks: the query, or the
// first bad parameter's error.
func ListQuery(rawQuery string) (reviews.Query, error) {
	q := reviews.All()
	q.Limit = DefaultLimit
	v, err := wire.ReadQuery(rawQuery, feedbackParams)
	if err != nil {
		return q, err
	}
	for _, lp := range listParams {
		if q, err = lp.set(q, v); err != nil {
			return q, err
		}
		if lp.name == "date_to" && q.DayFrom > q.DayTo {
			from, _, _ := v.Get("date_from")
			to, _, _ := v.Get("date_to")
			return q, wire.InvalidParameter("date_from", "must not be after date_to (%s > %s)", from, to)
		}
	}
	return q, nil
}

// intParam is a parameter of plain decimal digits within [lo, hi].
func intParam(name string, lo, hi int64, want string, set func(reviews.Query, int64) reviews.Query) listParam {
	return listParam{name: name, kind: "integer", lo: lo, hi: hi, set: func(q reviews.Query, v wire.Query) (reviews.Query, error) {
		n, ok, err := v.Int(name, lo, hi, want)
		if ok {
			q = set(q, n)
		}
		return q, err
	}}
}

// dateParam is a parameter holding a real date YYYY-MM-DD.
func dateParam(name string, set func(reviews.Query, int32) reviews.Query) listParam {
	return listParam{name: name, kind: "date", set: func(q reviews.Query, v wire.Query) (reviews.Query, error) {
		s, ok, err := v.Get(name)
		if err != nil || !ok {
			return q, err
		}
		t, ok := reviews.ParseDate(s)
		if !ok {
			return q, wire.InvalidParameter(name, "must be a real date YYYY-MM-DD, got %q", s)
		}
		return set(q, reviews.DayNumber(t)), nil
	}}
}

// setSearch reads search, trimmed.
func setSearch(q reviews.Query, v wire.Query) (reviews.Query, error) {
	s, ok, err := v.Get("search")
	if err != nil || !ok {
		return q, err
	}
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s):
		return q, wire.InvalidParameter("search", "must be valid UTF-8")
	case strings.ContainsRune(s, 0):
		return q, wire.InvalidParameter("search", "must not contain NUL characters")
	case utf8.RuneCountInString(s) > MaxSearchLength:
		return q, wire.InvalidParameter("search", "must be at most %d characters, got %d", MaxSearchLength, utf8.RuneCountInString(s))
	}
	q.Search = s
	return q, nil
}

// handleFeedbacksList serves GET /api/v1/feedbacks.
func (a *API) handleFeedbacksList(w http.ResponseWriter, r *http.Request, c call) {
	q, err := ListQuery(r.URL.RawQuery)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	now := a.Now()
	st, err := c.ss.Reviews(c.sc, now)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var res reviews.Result
	if c.o.Plays() { // only then: a liveRead goes to the heap
		live := &liveRead{ss: c.ss, sc: c.sc, now: now, list: st, q: q}
		c.play(live)
		st = live.list
		res = live.counts(st.Find(q))
	} else {
		res = st.Find(q)
	}
	bp := pageBuffers.Get().(*[]byte)
	b := (*bp)[:0]
	if cap(b) == 0 { // a new buffer: the page's size at once
		b = make([]byte, 0, st.PageSize(res)+160)
	}
	b = append(b, `{"success":true,"data":`...)
	if q.CountsOnly {
		b = reviews.AppendCounts(b, res)
	} else {
		b = st.AppendPage(b, res, q)
	}
	*bp = append(b, '}')
	writePooled(w, http.StatusOK, bp)
}

// pageBuffers holds the buffers pages are written in. A page is up to
// ~100 KB: a new zeroed buffer for each request, kept by the journal, was
// half of the handler's time and most of the server's garbage.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer pageBuffers keeps.
const maxPooledPage = 256 << 10

// writePooled writes the body in *bp, a buffer of pageBuffers, and puts
// the buffer back once nothing refers to it: at once if w copied it
// (net/http), or once a holding recorder has sent the answer.
func writePooled(w http.ResponseWriter, status int, bp *[]byte) {
	rec, _ := w.(*recorder)
	if rec != nil && rec.hold {
		rec.lent = bp // a buffer lent before may still be held: left to the collector
	}
	wire.WriteBody(w, status, *bp)
	if rec == nil { // a recorder that does not hold keeps it: left to the collector
		putPageBuffer(bp)
	}
}

func putPageBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledPage {
		*bp = (*bp)[:0]
		pageBuffers.Put(bp)
	}
}
