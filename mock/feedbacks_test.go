package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"golang.org/x/text/cases"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// listData is data of a GET /feedbacks answer.
type listData struct {
	Feedbacks []mock.Feedback `json:"feedbacks"`
	Total     int             `json:"total"`
	Limit     int64           `json:"limit"`
	Offset    int64           `json:"offset"`
}

// countsData is data of a counts_only=1 answer.
type countsData struct {
	Total      int `json:"total"`
	Unanswered int `json:"unanswered"`
	Answered   int `json:"answered"`
}

func list(t testing.TB, h http.Handler, query string) listData {
	t.Helper()
	var d listData
	decodeOK(t, "GET /feedbacks?"+query, do(t, h, http.MethodGet, "/api/v1/feedbacks?"+query, ""), &d)
	return d
}

// fetchAll walks every page of a query.
func fetchAll(t testing.TB, h http.Handler, query string, limit int) []mock.Feedback {
	t.Helper()
	var all []mock.Feedback
	for offset := 0; ; offset += limit {
		d := list(t, h, fmt.Sprintf("%s&limit=%d&offset=%d", query, limit, offset))
		if len(d.Feedbacks) == 0 {
			if offset < d.Total {
				t.Fatalf("%s: empty page at offset %d of total %d", query, offset, d.Total)
			}
			return all
		}
		all = append(all, d.Feedbacks...)
	}
}

func TestFeedbacksParameters(t *testing.T) {
	h := newDefault(t)
	all := list(t, h, "limit=1").Total
	long := strings.Repeat("ё", mock.MaxSearchLength)
	valid := []struct {
		query              string
		wantLimit, wantOff int64
		wantTotal          int // -1: not checked here (the reference test covers it)
	}{
		{"", 20, 0, all},
		{"limit=1", 1, 0, all},
		{"limit=100", 100, 0, all},
		{"limit=007", 7, 0, all},
		{"offset=0", 20, 0, all},
		{"offset=5", 20, 5, all},
		{"offset=9223372036854775807", 20, math.MaxInt64, all},
		{"answered=0", 20, 0, -1},
		{"answered=1", 20, 0, -1},
		{"rating=1", 20, 0, -1},
		{"rating=5", 20, 0, -1},
		{"nm_id=555000111", 20, 0, -1},
		{"nm_id=9223372036854775807", 20, 0, 0},
		{"date_from=2026-01-01", 20, 0, -1},
		{"date_to=2026-01-01", 20, 0, -1},
		{"date_from=2026-06-01&date_to=2026-06-01", 20, 0, -1},
		{"date_from=2030-01-01", 20, 0, 0},
		{"search=%D0%BF%D0%BB%D0%B5%D0%B4", 20, 0, -1},
		{"search=" + url.QueryEscape(long), 20, 0, -1},
		{"search=" + url.QueryEscape("  "+long+"\t "), 20, 0, -1}, // the bound counts after trimming
		{"search=", 20, 0, all},
		{"search=%20%20%20", 20, 0, all},
		{"counts_only=0", 20, 0, all},
		{"unknown=1&foo=bar&foo=baz", 20, 0, all},
		{"foo=%zz&%zz=1&x=1;y=2&&=&limit=5", 5, 0, all},
		{"search=a%09b%0Ac", 20, 0, -1},
		{"limit=3&offset=2&answered=1&rating=5&date_from=2025-01-01&date_to=2026-12-31&search=a", 3, 2, -1},
	}
	for _, tc := range valid {
		t.Run("valid/"+tc.query, func(t *testing.T) {
			r := do(t, h, http.MethodGet, "/api/v1/feedbacks?"+tc.query, "")
			var d listData
			decodeOK(t, tc.query, r, &d)
			if d.Limit != tc.wantLimit || d.Offset != tc.wantOff {
				t.Errorf("limit, offset = %d, %d; want %d, %d", d.Limit, d.Offset, tc.wantLimit, tc.wantOff)
			}
			if tc.wantTotal >= 0 && d.Total != tc.wantTotal {
				t.Errorf("total = %d, want %d", d.Total, tc.wantTotal)
			}
			// A page holds what is left after the offset, up to the
			// limit: none past the end (a huge offset), whatever the total.
			if want := min(d.Limit, max(0, int64(d.Total)-d.Offset)); int64(len(d.Feedbacks)) != want {
				t.Errorf("%d records at offset %d of total %d, limit %d; want %d", len(d.Feedbacks), d.Offset, d.Total, d.Limit, want)
			}
			if !bytes.Contains(r.body, []byte(`"feedbacks":[`)) {
				t.Errorf("feedbacks is not an array: %s", truncate(r.body, 200))
			}
		})
	}

	invalid := []struct{ query, field string }{
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"limit=-1", "limit"},
		{"limit=+5", "limit"},
		{"limit=1.5", "limit"},
		{"limit=1e2", "limit"},
		{"limit=abc", "limit"},
		{"limit=", "limit"},
		{"limit=%205", "limit"},
		{"limit=99999999999999999999", "limit"},
		{"limit=5&limit=5", "limit"},
		{"offset=-1", "offset"},
		{"offset=9223372036854775808", "offset"},
		{"offset=", "offset"},
		{"offset=0x10", "offset"},
		{"offset=1&offset=2", "offset"},
		{"answered=2", "answered"},
		{"answered=true", "answered"},
		{"answered=", "answered"},
		{"answered=0&answered=1", "answered"},
		{"date_from=2026-02-30", "date_from"},
		{"date_from=2026-1-01", "date_from"},
		{"date_from=2026-01-01T00:00:00", "date_from"},
		{"date_from=01.02.2026", "date_from"},
		{"date_from=", "date_from"},
		{"date_from=2026-01-01&date_from=2026-01-02", "date_from"},
		{"date_to=2026-13-01", "date_to"},
		{"date_to=yesterday", "date_to"},
		{"date_to=2026-01-01&date_to=2026-01-01", "date_to"},
		{"date_from=2026-02-02&date_to=2026-02-01", "date_from"},
		{"rating=0", "rating"},
		{"rating=6", "rating"},
		{"rating=five", "rating"},
		{"rating=1&rating=2", "rating"},
		{"nm_id=0", "nm_id"},
		{"nm_id=-5", "nm_id"},
		{"nm_id=9223372036854775808", "nm_id"},
		{"nm_id=12a", "nm_id"},
		{"nm_id=1&nm_id=1", "nm_id"},
		{"search=" + url.QueryEscape(long+"ё"), "search"},
		{"search=%FF%FE", "search"},
		{"search=a%00b", "search"},
		{"search=a%zz", "search"},
		{"search=a&search=b", "search"},
		{"counts_only=2", "counts_only"},
		{"counts_only=yes", "counts_only"},
		{"counts_only=1&counts_only=1", "counts_only"},
		{"counts_only=1&limit=0", "limit"},
		{"counts_only=1&offset=-1", "offset"},
		{"limit=%zz", "limit"},
		{"limit=5;offset=1", "limit"},
		{"search=%E0%A4", "search"},
	}
	for _, tc := range invalid {
		t.Run("invalid/"+tc.query, func(t *testing.T) {
			r := do(t, h, http.MethodGet, "/api/v1/feedbacks?"+tc.query, "")
			checkError(t, "GET /feedbacks?"+tc.query, r, http.StatusBadRequest, mock.CodeInvalidParameter, tc.field)
		})
	}
}

// ref is the obviously correct model of the list: a linear scan over all
// records with the contract's rules written out one by one.
type ref struct {
	all    []mock.Feedback
	folded [][5]string // text, pros, cons, supplier_article, nm_id, case-folded
}

func fold(s string) string { return cases.Fold().String(s) }

func newRef(all []mock.Feedback) *ref {
	r := &ref{all: all, folded: make([][5]string, len(all))}
	for i, f := range all {
		r.folded[i] = [5]string{fold(f.Text), fold(f.Pros), fold(f.Cons), fold(f.SupplierArticle), strconv.FormatInt(f.NmID, 10)}
	}
	return r
}

type refQuery struct {
	answered, rating, nmID, limit, offset int // -1 absent (limit, offset too)
	from, to, search                      string
}

func (q refQuery) encode() string {
	v := url.Values{}
	for name, n := range map[string]int{"answered": q.answered, "rating": q.rating, "nm_id": q.nmID, "limit": q.limit, "offset": q.offset} {
		if n >= 0 {
			v.Set(name, strconv.Itoa(n))
		}
	}
	for name, s := range map[string]string{"date_from": q.from, "date_to": q.to, "search": q.search} {
		if s != "" {
			v.Set(name, s)
		}
	}
	return v.Encode()
}

// filter returns the matching records in list order, ignoring answered
// when withAnswered is false (as counts_only does).
func (r *ref) filter(q refQuery, withAnswered bool) []mock.Feedback {
	var out []mock.Feedback
	needle := fold(strings.TrimSpace(q.search))
	for i, f := range r.all {
		day := f.CreatedDate[:10]
		switch {
		case withAnswered && q.answered == 1 && f.AnswerText == "",
			withAnswered && q.answered == 0 && f.AnswerText != "",
			q.rating > 0 && f.ProductValuation != q.rating,
			q.nmID > 0 && f.NmID != int64(q.nmID),
			q.from != "" && day < q.from,
			q.to != "" && day > q.to:
			continue
		}
		if needle != "" && !slices.ContainsFunc(r.folded[i][:], func(s string) bool { return strings.Contains(s, needle) }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// randomQuery draws a query whose filters often match something.
func (r *ref) randomQuery(rng *rand.Rand) refQuery {
	q := refQuery{answered: -1, rating: -1, nmID: -1, limit: -1, offset: -1}
	pick := func() mock.Feedback { return r.all[rng.IntN(len(r.all))] }
	if rng.IntN(3) == 0 {
		q.answered = rng.IntN(2)
	}
	if rng.IntN(3) == 0 {
		q.rating = 1 + rng.IntN(5)
	}
	if rng.IntN(4) == 0 {
		q.nmID = int(pick().NmID)
	}
	if rng.IntN(3) == 0 {
		a, b := pick().CreatedDate[:10], pick().CreatedDate[:10]
		if a > b {
			a, b = b, a
		}
		switch rng.IntN(3) {
		case 0:
			q.from = a
		case 1:
			q.to = b
		default:
			q.from, q.to = a, b
		}
	}
	if rng.IntN(3) == 0 {
		f := pick()
		src := []string{f.Text, f.Pros, f.Cons, f.SupplierArticle, strconv.FormatInt(f.NmID, 10)}[rng.IntN(5)]
		rs := []rune(src)
		if len(rs) > 0 {
			i := rng.IntN(len(rs))
			n := 1 + rng.IntN(min(12, len(rs)-i))
			s := string(rs[i : i+n])
			switch rng.IntN(3) {
			case 0:
				s = strings.ToUpper(s)
			case 1:
				s = "  " + strings.ToLower(s) + " "
			}
			q.search = s
		}
	}
	if rng.IntN(2) == 0 {
		q.limit = 1 + rng.IntN(100)
	}
	switch rng.IntN(4) {
	case 0, 1:
		q.offset = rng.IntN(60)
	case 2:
		q.offset = rng.IntN(len(r.all)) // deep pages
	}
	return q
}

func TestFeedbacksMatchReference(t *testing.T) {
	queries := 400
	if testing.Short() {
		queries = 50
	}
	checkAgainstReference(t, newDefault(t), queries, 7)
}

// The indexed paths (posting lists, bitsets, search values) on a larger
// random shop with many products and repeated texts.
func TestFeedbacksMatchReferenceLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large data: run without -short")
	}
	def, _ := scenarios.FS.ReadFile("default.yaml")
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"large.yaml": {Data: []byte("extends: default\ndescription: large\nseed: 99\ndata:\n  fixtures: [reviews/edge-cases.yaml]\n" +
			"  generate: {count: 30000, products: 150, same_second: 0.2, answered: 0.5, rating_weights: [20, 20, 20, 20, 20]}\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files, Scenario: "large"})
	checkAgainstReference(t, h, 200, 11)
}

func checkAgainstReference(t *testing.T, h http.Handler, queries int, seed uint64) {
	t.Helper()
	all := fetchAll(t, h, "", 100)
	checkOrder(t, all)
	checkQueries(t, h, all, queries, seed)
}

// checkQueries checks random queries against the reference over all,
// the records in the list's order.
func checkQueries(t *testing.T, h http.Handler, all []mock.Feedback, queries int, seed uint64) {
	t.Helper()
	rf := newRef(all)
	rng := rand.New(rand.NewPCG(seed, 11))
	nonEmpty := 0
	for range queries {
		q := rf.randomQuery(rng)
		query := q.encode()
		want := rf.filter(q, true)
		got := list(t, h, query)
		limit, offset := 20, 0
		if q.limit >= 0 {
			limit = q.limit
		}
		if q.offset >= 0 {
			offset = q.offset
		}
		if got.Total != len(want) {
			t.Fatalf("GET /feedbacks?%s: total = %d, want %d", query, got.Total, len(want))
		}
		page := want[min(offset, len(want)):min(offset+limit, len(want))]
		if !sameIDs(got.Feedbacks, page) {
			t.Fatalf("GET /feedbacks?%s: ids %v, want %v", query, ids(got.Feedbacks), ids(page))
		}
		if len(page) > 0 {
			nonEmpty++
		}
		// counts_only splits the same filters, answered aside, by answered.
		var c countsData
		decodeOK(t, query, do(t, h, http.MethodGet, "/api/v1/feedbacks?counts_only=1&"+query, ""), &c)
		base := rf.filter(q, false)
		ans := 0
		for _, f := range base {
			if f.AnswerText != "" {
				ans++
			}
		}
		if c != (countsData{Total: len(base), Unanswered: len(base) - ans, Answered: ans}) {
			t.Fatalf("GET /feedbacks?counts_only=1&%s: %+v, want total %d answered %d", query, c, len(base), ans)
		}
	}
	// The comparison means little if most queries matched nothing.
	if nonEmpty < queries/3 {
		t.Errorf("only %d of %d random queries returned records", nonEmpty, queries)
	}
}

// checkOrder asserts created_date descending, then id descending, and unique ids.
func checkOrder(t *testing.T, all []mock.Feedback) {
	t.Helper()
	seen := make(map[int64]bool)
	for i, f := range all {
		if seen[f.ID] {
			t.Fatalf("id %d appears twice", f.ID)
		}
		seen[f.ID] = true
		if i == 0 {
			continue
		}
		p := all[i-1]
		if p.CreatedDate < f.CreatedDate || p.CreatedDate == f.CreatedDate && p.ID < f.ID {
			t.Fatalf("records %d (%s, id %d) and %d (%s, id %d) are out of order", i-1, p.CreatedDate, p.ID, i, f.CreatedDate, f.ID)
		}
	}
}

func ids(fs []mock.Feedback) []int64 {
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func sameIDs(a, b []mock.Feedback) bool { return slices.Equal(ids(a), ids(b)) }

func TestFeedbacksPaginationWalk(t *testing.T) {
	h := newDefault(t)
	rf := newRef(fetchAll(t, h, "", 100))
	for _, q := range []refQuery{
		{answered: -1, rating: -1, nmID: -1},
		{answered: 0, rating: -1, nmID: -1},
		{answered: 1, rating: 5, nmID: -1},
		{answered: -1, rating: 1, nmID: -1, from: "2026-03-01"},
		{answered: -1, rating: -1, nmID: 555000111},
		{answered: -1, rating: -1, nmID: -1, search: "качество"},
	} {
		q.limit, q.offset = -1, -1
		query := q.encode()
		t.Run(query, func(t *testing.T) {
			want := rf.filter(q, true)
			got := fetchAll(t, h, query, 7)
			if !sameIDs(got, want) {
				t.Fatalf("pages joined: %d records, want %d (ids differ or repeat)", len(got), len(want))
			}
			for _, limit := range []int{1, 20, 100} {
				if d := list(t, h, fmt.Sprintf("%s&limit=%d&offset=%d", query, limit, len(want))); len(d.Feedbacks) != 0 || d.Total != len(want) {
					t.Errorf("offset at the end: %d records, total %d; want 0 and %d", len(d.Feedbacks), d.Total, len(want))
				}
			}
		})
	}
}

func TestFeedbacksCountsOnlyShape(t *testing.T) {
	h := newDefault(t)
	r := do(t, h, http.MethodGet, "/api/v1/feedbacks?counts_only=1&answered=1", "")
	var c countsData
	decodeOK(t, "counts_only", r, &c)
	var all countsData
	decodeOK(t, "counts_only", do(t, h, http.MethodGet, "/api/v1/feedbacks?counts_only=1", ""), &all)
	if c != all {
		t.Errorf("answered changed counts_only: %+v, want %+v", c, all)
	}
	if c.Total != c.Answered+c.Unanswered || c.Answered == 0 || c.Unanswered == 0 {
		t.Errorf("counts %+v: want total = answered + unanswered, both above 0", c)
	}
	if bytes.Contains(r.body, []byte("feedbacks")) {
		t.Errorf("counts_only answer lists reviews: %s", r.body)
	}
	golden(t, "feedbacks-counts.json", r.body)
}

// The record's fields and their order are the spec's (2.3).
func TestFeedbackRecordFields(t *testing.T) {
	h := newDefault(t)
	r := do(t, h, http.MethodGet, "/api/v1/feedbacks?limit=1", "")
	var env struct {
		Data struct {
			Feedbacks []json.RawMessage `json:"feedbacks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || len(env.Data.Feedbacks) != 1 {
		t.Fatalf("body %s: %v", r.body, err)
	}
	dec := json.NewDecoder(bytes.NewReader(env.Data.Feedbacks[0]))
	var keys []string
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	want := []string{"id", "feedback_id", "nm_id", "imt_id", "text", "pros", "cons", "product_valuation", "valuation_tags",
		"created_date", "answer_text", "answer_state", "product_name", "supplier_article", "brand_name", "photos", "video",
		"user_name", "was_viewed", "state", "created_at"}
	if !slices.Equal(keys, want) {
		t.Errorf("record keys\n got %v\nwant %v", keys, want)
	}
}

// The first page of the default data, byte for byte; the public URL in
// its media URLs is pinned.
func TestFeedbacksGoldenFirstPage(t *testing.T) {
	r := do(t, newServer(t, mock.Options{PublicURL: "http://127.0.0.1:8080"}), http.MethodGet, "/api/v1/feedbacks", "")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, r.body, "", "  "); err != nil {
		t.Fatal(err)
	}
	golden(t, "feedbacks-default-first-page.json", pretty.Bytes())
}

func TestSearchCaseInsensitive(t *testing.T) {
	h := newDefault(t)
	for _, tc := range []struct{ search, wantID string }{
		{"отличный плед", "EdgeMixedCase0000003"},
		{"ЁЛКА", "EdgeMixedCase0000003"},
		{"ёжик", "EdgeMixedCase0000003"},
		{"STRASSE", "EdgeWhitespace000009"},
		{"<b>полиэстер</b>", "EdgeHtmlQuotes000004"},
		{`"лапки"`, "EdgeHtmlQuotes000004"},
		{"🐈‍⬛", "EdgeEmoji00000000002"},
		{"пЛд-СиЯнИе", "EdgeLongText00000001"},
		{"555000111", "EdgeLongText00000001"},
	} {
		d := list(t, h, "limit=100&search="+url.QueryEscape(tc.search))
		found := slices.ContainsFunc(d.Feedbacks, func(f mock.Feedback) bool { return f.FeedbackID == tc.wantID })
		if !found {
			t.Errorf("search %q: %s not among %d results", tc.search, tc.wantID, d.Total)
		}
	}
	// A query never matches across the end of one field and the start of the next.
	if d := list(t, h, "search="+url.QueryEscape("размер"+"Straße")); d.Total != 0 {
		t.Errorf("search across fields matched %d records", d.Total)
	}
}

// The default data looks like a real shop's: the numbers, checked
// as ranges so that the generator may change its draws.
func TestDefaultDataShape(t *testing.T) {
	h := newDefault(t)
	all := fetchAll(t, h, "", 100)
	var settings mock.Settings
	decodeOK(t, "settings", do(t, h, http.MethodGet, "/api/v1/settings/ai", ""), &settings)

	products := map[int64]mock.Feedback{}
	ratings := [6]int{}
	var answered, ratingOnly, withPhotos, withVideo, edge, cyrillic int
	seconds := map[string]int{}
	for _, f := range all {
		if p, ok := products[f.NmID]; ok {
			if p.ImtID != f.ImtID || p.SupplierArticle != f.SupplierArticle || p.BrandName != f.BrandName || p.ProductName != f.ProductName {
				t.Errorf("nm_id %d: reviews disagree on the product: %+v vs %+v", f.NmID, p, f)
			}
		}
		products[f.NmID] = f
		ratings[f.ProductValuation]++
		seconds[f.CreatedDate]++
		if strings.HasPrefix(f.FeedbackID, "Edge") {
			edge++
		}
		if f.AnswerText != "" {
			answered++
			if f.AnswerState != "sent" || f.State != "done" {
				t.Errorf("%s: answered with answer_state %q, state %q", f.FeedbackID, f.AnswerState, f.State)
			}
			if sig := settings.Feedback[f.ProductValuation-1].Signature; !strings.HasSuffix(f.AnswerText, sig) {
				t.Errorf("%s: answer %q does not end with the signature %q", f.FeedbackID, f.AnswerText, sig)
			}
		} else if (f.AnswerState != "" || f.State != "new") && (f.AnswerState != mock.AnswerStateDraft || f.State != mock.StateDraft) {
			t.Errorf("%s: unanswered with answer_state %q, state %q; want a new review or a draft", f.FeedbackID, f.AnswerState, f.State)
		}
		if f.Text == "" && f.Pros == "" && f.Cons == "" {
			ratingOnly++
		}
		if strings.IndexFunc(f.Text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0 {
			cyrillic++
		}
		// The media's shapes and URLs are checked in TestShippedMedia.
		if f.Photos != "[]" {
			withPhotos++
		}
		if string(f.Video) != "null" {
			withVideo++
		}
		if f.CreatedAt < f.CreatedDate {
			t.Errorf("%s: created_at %s before created_date %s", f.FeedbackID, f.CreatedAt, f.CreatedDate)
		}
		if f.CreatedDate < "2025-11-15 21:00:00" || f.CreatedDate > "2026-11-15 21:00:00" {
			t.Errorf("%s: created_date %s outside the scenario's year", f.FeedbackID, f.CreatedDate)
		}
	}
	n := len(all)
	sameSecond := 0
	for _, c := range seconds {
		if c > 1 {
			sameSecond++
		}
	}
	checks := []struct {
		what   string
		got    float64
		lo, hi float64
	}{
		{"generated reviews", float64(n - edge), 1000, 1000},
		{"hand-written edge cases", float64(edge), 9, 9},
		{"products", float64(len(products)), 35, 45},
		{"share of rating 5", float64(ratings[5]) / float64(n), 0.55, 0.85},
		{"share of rating 1", float64(ratings[1]) / float64(n), 0.03, 0.15},
		// The reply engine answers ratings 3-5 (auto) and people most
		// drafts of 1-2 (semi_auto) since reply_from_date: what is left
		// is new, drafts, or older than that date.
		{"share answered", float64(answered) / float64(n), 0.9, 0.995},
		{"share rating-only", float64(ratingOnly) / float64(n), 0.05, 0.3},
		{"share with photos", float64(withPhotos) / float64(n), 0.08, 0.35},
		{"reviews with a video", float64(withVideo), 3, 60},
		{"seconds with several reviews", float64(sameSecond), 5, 100},
		{"share with Cyrillic text", float64(cyrillic) / float64(n), 0.6, 1},
	}
	for _, c := range checks {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s = %v, want between %v and %v", c.what, c.got, c.lo, c.hi)
		}
	}
	for r := 1; r <= 4; r++ {
		if ratings[r] == 0 || ratings[r] >= ratings[5] {
			t.Errorf("rating %d: %d reviews; want some, fewer than rating 5 (%d)", r, ratings[r], ratings[5])
		}
	}
}

func TestSeedDeterminesData(t *testing.T) {
	body := func(seed int64) string {
		h := newServer(t, mock.Options{Seed: seed})
		var b strings.Builder
		for offset := 0; offset < 1100; offset += 100 {
			b.Write(do(t, h, http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?limit=100&offset=%d", offset), "").body)
		}
		return b.String()
	}
	a, b := body(0), body(0)
	if a != b {
		t.Error("two servers with the same seed serve different data")
	}
	c, d := body(424242), body(424242)
	if c != d {
		t.Error("two servers with seed 424242 serve different data")
	}
	if a == c {
		t.Error("another seed serves the same data")
	}
}

// BenchmarkServeCountsAllFilters measures the whole handler for a
// counts_only query that gives every parameter: parsing dominates.
func BenchmarkServeCountsAllFilters(b *testing.B) {
	s := newDefault(b)
	req := httptest.NewRequest("GET", "/api/v1/feedbacks?answered=1&rating=5&date_from=2026-01-01&date_to=2026-09-30&limit=100&offset=50&search=abc&counts_only=1", nil)
	b.ReportAllocs()
	for b.Loop() {
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
}
