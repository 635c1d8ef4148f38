package mock

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Feedback is one review record, field for field as in the spec (2.3),
// in the spec's order.
type Feedback = reviews.Feedback

// Bounds of the list's query parameters.
const (
	DefaultLimit    = 20
	MaxLimit        = 100
	MaxSearchLength = 200
)

// feedbackParams are the query parameters GET /feedbacks knows; others are ignored.
var feedbackParams = []string{"limit", "offset", "answered", "date_from", "date_to", "rating", "nm_id", "search", "counts_only"}

// parseFeedbackQuery validates the raw query string of GET /feedbacks.
func parseFeedbackQuery(rawQuery string) (reviews.Query, error) {
	q := reviews.All()
	q.Limit = DefaultLimit
	values, err := knownParams(rawQuery, feedbackParams)
	if err != nil {
		return q, err
	}
	get := func(name string) (string, bool, error) {
		vs, ok := values[name]
		if !ok {
			return "", false, nil
		}
		if len(vs) > 1 {
			return "", false, wire.InvalidParameter(name, "given %d times; give it at most once", len(vs))
		}
		return vs[0], true, nil
	}
	// intParam parses a parameter of plain decimal digits within [min, max].
	intParam := func(name string, min, max int64, want string) (int64, bool, error) {
		v, ok, err := get(name)
		if err != nil || !ok {
			return 0, false, err
		}
		n, perr := parseDigits(v)
		if perr != nil || n < min || n > max {
			return 0, false, wire.InvalidParameter(name, "must be %s, got %q", want, v)
		}
		return n, true, nil
	}
	dateParam := func(name string) (int32, bool, error) {
		v, ok, err := get(name)
		if err != nil || !ok {
			return 0, false, err
		}
		t, ok := reviews.ParseDate(v)
		if !ok {
			return 0, false, wire.InvalidParameter(name, "must be a real date YYYY-MM-DD, got %q", v)
		}
		return reviews.DayNumber(t), true, nil
	}

	// Parameters are checked in the spec's order, so the first bad one is reported.
	if n, ok, err := intParam("limit", 1, MaxLimit, "an integer from 1 to 100"); err != nil {
		return q, err
	} else if ok {
		q.Limit = n
	}
	if n, ok, err := intParam("offset", 0, math.MaxInt64, "an integer >= 0"); err != nil {
		return q, err
	} else if ok {
		q.Offset = n
	}
	if n, ok, err := intParam("answered", 0, 1, "0 (without reply) or 1 (with reply)"); err != nil {
		return q, err
	} else if ok {
		q.Answered = int8(n)
	}
	if d, ok, err := dateParam("date_from"); err != nil {
		return q, err
	} else if ok {
		q.DayFrom = d
	}
	if d, ok, err := dateParam("date_to"); err != nil {
		return q, err
	} else if ok {
		q.DayTo = d
	}
	if q.DayFrom > q.DayTo {
		return q, wire.InvalidParameter("date_from", "must not be after date_to (%s > %s)", values["date_from"][0], values["date_to"][0])
	}
	if n, ok, err := intParam("rating", 1, 5, "an integer from 1 to 5"); err != nil {
		return q, err
	} else if ok {
		q.Rating = int8(n)
	}
	if n, ok, err := intParam("nm_id", 1, math.MaxInt64, "a positive integer"); err != nil {
		return q, err
	} else if ok {
		q.NmID = n
	}
	if v, ok, err := get("search"); err != nil {
		return q, err
	} else if ok {
		v = strings.TrimSpace(v)
		switch {
		case !utf8.ValidString(v):
			return q, wire.InvalidParameter("search", "must be valid UTF-8")
		case strings.ContainsRune(v, 0):
			return q, wire.InvalidParameter("search", "must not contain NUL characters")
		case utf8.RuneCountInString(v) > MaxSearchLength:
			return q, wire.InvalidParameter("search", "must be at most %d characters, got %d", MaxSearchLength, utf8.RuneCountInString(v))
		}
		q.Search = v
	}
	if n, ok, err := intParam("counts_only", 0, 1, "0 or 1"); err != nil {
		return q, err
	} else if ok {
		q.CountsOnly = n == 1
	}
	return q, nil
}

// knownParams decodes the query parameters in names, keeping repeats;
// others are ignored without being decoded, so a malformed unknown
// parameter is ignored too. "&" alone separates parameters.
func knownParams(rawQuery string, names []string) (map[string][]string, error) {
	values := make(map[string][]string)
	for part := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil || !slices.Contains(names, key) {
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, wire.InvalidParameter(key, "malformed percent-encoding in %q", v)
		}
		values[key] = append(values[key], val)
	}
	return values, nil
}

// parseDigits parses a non-empty string of ASCII digits that fits in int64.
// strconv alone would also take a sign.
func parseDigits(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 10, 64)
}

// handleFeedbacksList serves GET /api/v1/feedbacks.
func (s *Server) handleFeedbacksList(w http.ResponseWriter, r *http.Request, ac apiContext) {
	q, err := parseFeedbackQuery(r.URL.RawQuery)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := ac.ss.reviews(ac.sc, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res := st.Find(q)
	// One allocation of the right size: a page is up to ~100 KB.
	b := make([]byte, 0, st.PageSize(res)+160)
	b = append(b, `{"success":true,"data":`...)
	if q.CountsOnly {
		b = reviews.AppendCounts(b, res)
	} else {
		b = st.AppendPage(b, res, q)
	}
	b = append(b, '}')
	wire.WriteBody(w, http.StatusOK, b)
}
