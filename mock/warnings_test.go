package mock_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// warningTexts reads an answer's X-Mock-Warning values back into the
// texts the journal keeps, checking each is 299 replymock "TEXT" in
// printable ASCII.
func warningTexts(t testing.TB, what string, h http.Header) []string {
	t.Helper()
	var out []string
	for _, v := range h.Values(mock.HeaderWarning) {
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				t.Errorf("%s: X-Mock-Warning %q has byte 0x%02x", what, v, v[i])
			}
		}
		q, ok := strings.CutPrefix(v, `299 replymock "`)
		if !ok || !strings.HasSuffix(q, `"`) || len(q) < 1 {
			t.Errorf("%s: X-Mock-Warning %q is not 299 replymock \"TEXT\"", what, v)
			continue
		}
		q = q[:len(q)-1]
		var b strings.Builder
		for i := 0; i < len(q); i++ {
			switch {
			case q[i] == '\\' && i+1 < len(q):
				i++
				b.WriteByte(q[i])
			case q[i] == '"' || q[i] == '\\':
				t.Errorf("%s: X-Mock-Warning %q has an unescaped %c", what, v, q[i])
			default:
				b.WriteByte(q[i])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// lastEntry is the newest journal entry of session sid.
func lastEntry(t testing.TB, s *mock.Server, sid string) mock.JournalEntry {
	t.Helper()
	es := s.Requests(mock.JournalFilter{Session: sid, Limit: 1})
	if len(es) != 1 {
		t.Fatalf("journal of %s: %d entries, want the last one", sid, len(es))
	}
	return es[0]
}

// checkWarnings asserts that the answer and its journal entry carry the
// same warnings, one containing each of want, in order.
func checkWarnings(t testing.TB, what string, s *mock.Server, r response, sid string, want ...string) {
	t.Helper()
	got := warningTexts(t, what, r.header)
	entry := lastEntry(t, s, sid)
	if !slices.Equal(entry.Warnings, got) {
		t.Errorf("%s: journal warnings %q, header %q", what, entry.Warnings, got)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d warnings %q, want %d like %q", what, len(got), got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("%s: warning %d = %q, want it to contain %q", what, i, got[i], want[i])
		}
	}
}

// Every upstream name gets its suggestion on the list, and on the
// settings a word that they take no such parameter.
func TestWarningsUpstreamNames(t *testing.T) {
	s := newServer(t, mock.Options{})
	tests := []struct{ param, onList, onSettings string }{
		{"isAnswered=false", "isAnswered is the upstream's name: did you mean `answered`? It is ignored (`answered` takes 0 or 1, not true or false)",
			"isAnswered is the upstream's name for `answered`, which GET /api/v1/settings/ai does not take; it is ignored"},
		{"take=100", "take is the upstream's name: did you mean `limit`? It is ignored (`limit` takes 1 to 100)",
			"take is the upstream's name for `limit`, which GET /api/v1/settings/ai does not take"},
		{"skip=0", "skip is the upstream's name: did you mean `offset`? It is ignored",
			"skip is the upstream's name for `offset`, which GET /api/v1/settings/ai does not take"},
		{"nmId=555000111", "nmId is the upstream's name: did you mean `nm_id`? It is ignored",
			"nmId is the upstream's name for `nm_id`, which GET /api/v1/settings/ai does not take"},
		{"dateFrom=1767225600", "dateFrom is the upstream's name: did you mean `date_from`? It is ignored (`date_from` takes a date YYYY-MM-DD, not a Unix time)",
			"dateFrom is the upstream's name for `date_from`, which GET /api/v1/settings/ai does not take"},
		{"dateTo=1767225600", "dateTo is the upstream's name: did you mean `date_to`? It is ignored (`date_to` takes a date YYYY-MM-DD, not a Unix time)",
			"dateTo is the upstream's name for `date_to`, which GET /api/v1/settings/ai does not take"},
		{"order=dateDesc", "order is the upstream's name and has no equivalent here (the list is always newest first, as with the upstream's dateDesc); it is ignored",
			"order is the upstream's name and has no equivalent here"},
		// In another case or spelling, still the upstream's.
		{"IsAnswered=1", "IsAnswered looks like the upstream's isAnswered: did you mean `answered`?", "IsAnswered looks like the upstream's isAnswered for `answered`"},
		{"ORDER=dateAsc", "ORDER looks like the upstream's order and has no equivalent here", "ORDER looks like the upstream's order and has no equivalent here"},
	}
	for _, tc := range tests {
		r := get(t, s, "/api/v1/feedbacks?"+tc.param)
		if r.status != 200 {
			t.Errorf("GET /feedbacks?%s: status %d, want 200 (a warning, not an error)", tc.param, r.status)
		}
		checkWarnings(t, "GET /feedbacks?"+tc.param, s, r, mock.DefaultSession, tc.onList)
		r = get(t, s, "/api/v1/settings/ai?"+tc.param)
		checkWarnings(t, "GET /settings/ai?"+tc.param, s, r, mock.DefaultSession, tc.onSettings)
	}
	// The upstream's client, all at once: nothing is filtered.
	var d listData
	all := list(t, s, "").Total
	r := get(t, s, "/api/v1/feedbacks?isAnswered=false&take=5000&skip=0&nmId=555000111&order=dateAsc&dateFrom=1&dateTo=2")
	checkWarnings(t, "upstream client", s, r, mock.DefaultSession, "isAnswered", "take", "skip", "nmId", "order", "dateFrom", "dateTo")
	decodeOK(t, "upstream client", r, &d)
	if d.Limit != mock.DefaultLimit || d.Total != all {
		t.Errorf("the upstream's names filtered something: limit %d, total %d of %d", d.Limit, d.Total, all)
	}
}

func TestWarningsCases(t *testing.T) {
	s := newServer(t, mock.Options{})
	const known = "it takes limit, offset, answered, date_from, date_to, rating, nm_id, search, counts_only"
	tests := []struct {
		name, method, target, body string
		header                     []string
		want                       []string
	}{
		{"unknown", "GET", "/api/v1/feedbacks?foo=1", "", nil,
			[]string{"foo is not a parameter of GET /api/v1/feedbacks and is ignored; " + known}},
		{"unknown, repeated: one warning", "GET", "/api/v1/feedbacks?foo=1&foo=2&limit=5", "", nil,
			[]string{"foo is not a parameter of GET /api/v1/feedbacks"}},
		{"unknown without a value", "GET", "/api/v1/feedbacks?verbose", "", nil,
			[]string{"verbose is not a parameter"}},
		{"an empty name", "GET", "/api/v1/feedbacks?=5", "", nil,
			[]string{`"" is not a parameter of GET /api/v1/feedbacks`}},
		{"a malformed name", "GET", "/api/v1/feedbacks?%zz=1", "", nil,
			[]string{`"%zz" is not a parameter (its percent-encoding is malformed) and is ignored`}},
		{"unknown on the settings", "GET", "/api/v1/settings/ai?foo=bar", "", nil,
			[]string{"foo is not a parameter of GET /api/v1/settings/ai, which takes none, and is ignored"}},
		{"unknown on HEAD", "HEAD", "/api/v1/feedbacks?foo=1", "", nil,
			[]string{"foo is not a parameter of HEAD /api/v1/feedbacks"}},
		{"case", "GET", "/api/v1/feedbacks?Limit=5", "", nil,
			[]string{"Limit is not a parameter of GET /api/v1/feedbacks: did you mean `limit`? It is ignored"}},
		{"upper case", "GET", "/api/v1/feedbacks?RATING=5", "", nil, []string{"did you mean `rating`?"}},
		{"a dash", "GET", "/api/v1/feedbacks?date-from=2026-01-01", "", nil, []string{"date-from is not a parameter of GET /api/v1/feedbacks: did you mean `date_from`?"}},
		{"no underscore", "GET", "/api/v1/feedbacks?nmid=555000111", "", nil, []string{"nmid is not a parameter of GET /api/v1/feedbacks: did you mean `nm_id`?"}},
		{"camel case", "GET", "/api/v1/feedbacks?countsOnly=1", "", nil, []string{"did you mean `counts_only`?"}},
		{"a trailing space", "GET", "/api/v1/feedbacks?limit%20=5", "", nil, []string{`"limit " is not a parameter of GET /api/v1/feedbacks: did you mean ` + "`limit`?"}},
		{"a letter missing", "GET", "/api/v1/feedbacks?limt=5", "", nil, []string{"did you mean `limit`?"}},
		{"letters swapped", "GET", "/api/v1/feedbacks?serach=a", "", nil, []string{"did you mean `search`?"}},
		{"a plural", "GET", "/api/v1/feedbacks?ratings=5", "", nil, []string{"did you mean `rating`?"}},
		{"a singular", "GET", "/api/v1/feedbacks?count_only=1", "", nil, []string{"did you mean `counts_only`?"}},
		{"two letters off", "GET", "/api/v1/feedbacks?answer=1", "", nil, []string{"did you mean `answered`?"}},
		{"too far to guess", "GET", "/api/v1/feedbacks?page=2", "", nil, []string{"page is not a parameter of GET /api/v1/feedbacks and is ignored"}},
		{"empty search", "GET", "/api/v1/feedbacks?search=", "", nil, []string{"search is empty, so it filters nothing; leave it out"}},
		{"blank search", "GET", "/api/v1/feedbacks?search=%20+%09", "", nil, []string{"search is empty"}},
		{"search without =", "GET", "/api/v1/feedbacks?search", "", nil, []string{"search is empty"}},
		{"another operation's parameter", "GET", "/api/v1/settings/ai?limit=5", "", nil,
			[]string{"limit is not a parameter of GET /api/v1/settings/ai and is ignored; GET /api/v1/feedbacks takes it"}},
		{"another operation's parameter on PATCH", "PATCH", "/api/v1/settings/ai?rating=5", `{}`, []string{"Content-Type", "application/json"},
			[]string{"rating is not a parameter of PATCH /api/v1/settings/ai and is ignored; GET /api/v1/feedbacks takes it"}},
		{"body on GET", "GET", "/api/v1/feedbacks", `{"limit":5}`, nil, []string{"GET request has a body (11 bytes), which is ignored"}},
		{"body on GET settings", "GET", "/api/v1/settings/ai", `x`, nil, []string{"GET request has a body (1 bytes), which is ignored"}},
		{"body on HEAD", "HEAD", "/api/v1/feedbacks", `{}`, nil, []string{"HEAD request has a body (2 bytes), which is ignored"}},
		{"a charset not UTF-8", "PATCH", "/api/v1/settings/ai", `{}`, []string{"Content-Type", "application/json; charset=windows-1251"},
			[]string{"Content-Type names charset windows-1251, but the body is read as UTF-8"}},
		{"everything, in order", "GET", "/api/v1/feedbacks?isAnswered=0&foo=1&Limit=2&search=&rating=5", `{}`, nil,
			[]string{"isAnswered", "foo", "Limit", "search is empty", "GET request has a body"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, tc.method, tc.target, tc.body, tc.header...)
			if r.status != 200 {
				t.Errorf("%s %s: status %d, want 200; body %s", tc.method, tc.target, r.status, r.body)
			}
			checkWarnings(t, tc.method+" "+tc.target, s, r, mock.DefaultSession, tc.want...)
		})
	}
	// A body on GET is kept in the journal, though nothing reads it.
	do(t, s, "GET", "/api/v1/feedbacks", `{"limit":5}`)
	if e := lastEntry(t, s, mock.DefaultSession); e.Body != `{"limit":5}` {
		t.Errorf("the journal of a GET with a body has body %q", e.Body)
	}
	// A body sent chunked has no length to tell.
	req := httptest.NewRequest("GET", "/api/v1/feedbacks?limit=1", strings.NewReader("chunked"))
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if got := warningTexts(t, "chunked GET", rec.Header()); len(got) != 1 || got[0] != "GET request has a body, which is ignored" {
		t.Errorf("chunked GET: warnings %q", got)
	}
}

// A request the API would reject gets its 400, not a warning, and one
// it does not serve (404, 405) gets neither.
func TestWarningsNotForErrors(t *testing.T) {
	s := newServer(t, mock.Options{})
	for _, target := range []string{"/api/v1/feedbacks?rating=", "/api/v1/feedbacks?limit=", "/api/v1/feedbacks?limit=0", "/api/v1/feedbacks?answered=true",
		"/api/v1/feedbacks?limit=1&limit=2", "/api/v1/feedbacks?search=a%zz"} {
		r := get(t, s, target)
		if r.status != 400 || r.header.Get(mock.HeaderWarning) != "" {
			t.Errorf("GET %s: status %d, warnings %q; want a 400 and no warning", target, r.status, r.header.Values(mock.HeaderWarning))
		}
	}
	for _, tc := range []struct{ method, target string }{{"GET", "/api/v1/reviews?isAnswered=0"}, {"DELETE", "/api/v1/feedbacks?isAnswered=0"}, {"GET", "/api/v1/feedbacks/?foo=1"}} {
		if r := do(t, s, tc.method, tc.target, ""); r.header.Get(mock.HeaderWarning) != "" {
			t.Errorf("%s %s: status %d with warnings %q", tc.method, tc.target, r.status, r.header.Values(mock.HeaderWarning))
		}
	}
	// A PATCH without a JSON Content-Type is a 415, not a warning.
	r := do(t, s, "PATCH", "/api/v1/settings/ai", `{}`)
	checkError(t, "PATCH without Content-Type", r, 415, mock.CodeUnsupportedMediaType, "-")
	if r.header.Get(mock.HeaderWarning) != "" {
		t.Errorf("PATCH without Content-Type: warnings %q", r.header.Values(mock.HeaderWarning))
	}
}

// Every valid form of every known parameter, alone and together, warns
// of nothing.
func TestWarningsNoneForCleanRequests(t *testing.T) {
	s := newServer(t, mock.Options{})
	long := url.QueryEscape(strings.Repeat("ё", mock.MaxSearchLength))
	queries := []string{"", "limit=1", "limit=100", "limit=007", "offset=0", "offset=9223372036854775807",
		"answered=0", "answered=1", "rating=1", "rating=5", "nm_id=555000111", "nm_id=9223372036854775807",
		"date_from=2026-01-01", "date_to=2026-01-01", "date_from=2026-06-01&date_to=2026-06-30",
		"search=%D0%BF%D0%BB%D0%B5%D0%B4", "search=" + long, "search=a%09b%0Ac", "search=+plaid+", "search=%E2%80%8B",
		"counts_only=0", "counts_only=1", "%6Cimit=5", "limit=5&", "&limit=5", "limit=5&&offset=1",
		"limit=3&offset=2&answered=1&rating=5&date_from=2025-01-01&date_to=2026-12-31&nm_id=555000111&search=a&counts_only=0"}
	for _, q := range queries {
		for _, method := range []string{"GET", "HEAD"} {
			r := do(t, s, method, "/api/v1/feedbacks?"+q, "")
			if r.status != 200 {
				t.Errorf("%s ?%s: status %d", method, q, r.status)
			}
			if w := r.header.Values(mock.HeaderWarning); len(w) > 0 {
				t.Errorf("%s ?%s: warnings %q", method, q, w)
			}
			if e := lastEntry(t, s, mock.DefaultSession); len(e.Warnings) > 0 {
				t.Errorf("%s ?%s: journal warnings %q", method, q, e.Warnings)
			}
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8", "application/json;charset=\"utf8\""} {
		r := do(t, s, "PATCH", "/api/v1/settings/ai", `{"question":{"tone":"formal"}}`, "Content-Type", ct)
		if r.status != 200 || len(r.header.Values(mock.HeaderWarning)) > 0 {
			t.Errorf("PATCH with Content-Type %q: status %d, warnings %q", ct, r.status, r.header.Values(mock.HeaderWarning))
		}
	}
	for _, method := range []string{"GET", "HEAD"} {
		if r := do(t, s, method, "/api/v1/settings/ai", ""); len(r.header.Values(mock.HeaderWarning)) > 0 {
			t.Errorf("%s /settings/ai: warnings %q", method, r.header.Values(mock.HeaderWarning))
		}
	}
}

// The list's own tests, replayed, warn only where they send a name the
// list does not know or an empty search.
func TestWarningsNoneFromListTests(t *testing.T) {
	s := newDefault(t)
	mark := s.Requests(mock.JournalFilter{Limit: 1})
	var since int64
	if len(mark) == 1 {
		since = mark[0].Seq
	}
	TestFeedbacksParameters(t)
	TestFeedbacksPaginationWalk(t)
	TestFeedbacksCountsOnlyShape(t)
	TestSearchCaseInsensitive(t)
	entries := s.Requests(mock.JournalFilter{Since: since, Path: "/api/v1/feedbacks"})
	known := []string{"limit", "offset", "answered", "date_from", "date_to", "rating", "nm_id", "search", "counts_only"}
	warned := 0
	for _, e := range entries {
		odd := false
		for part := range strings.SplitSeq(e.Query, "&") {
			if part == "" {
				continue
			}
			k, v, _ := strings.Cut(part, "=")
			name, err := url.QueryUnescape(k)
			val, _ := url.QueryUnescape(v)
			odd = odd || err != nil || !slices.Contains(known, name) || name == "search" && strings.TrimSpace(val) == ""
		}
		if e.Status != 200 {
			continue // a 400 may or may not come with warnings
		}
		if odd != (len(e.Warnings) > 0) {
			t.Errorf("GET ?%s: warnings %q", e.Query, e.Warnings)
		}
		if odd {
			warned++
		}
	}
	if len(entries) < 100 || warned == 0 {
		t.Errorf("replayed %d list requests, %d of them warned: want many, and the few with unknown names", len(entries), warned)
	}
}

// At most MaxWarnings a request, then one saying how many more; each
// cut to MaxWarningLength; hostile names are safe in a header and reach
// a real client as sent.
func TestWarningsBounded(t *testing.T) {
	s := newServer(t, mock.Options{})
	var q []string
	for i := range 15 {
		q = append(q, fmt.Sprintf("unknown%d=1", i))
	}
	r := get(t, s, "/api/v1/feedbacks?"+strings.Join(q, "&"))
	got := warningTexts(t, "15 unknown", r.header)
	if len(got) != mock.MaxWarnings+1 || got[mock.MaxWarnings] != "and 5 more warnings" || !strings.HasPrefix(got[9], "unknown9 ") {
		t.Errorf("15 unknown parameters: %d warnings %q, want %d and \"and 5 more warnings\"", len(got), got, mock.MaxWarnings+1)
	}
	if e := lastEntry(t, s, mock.DefaultSession); !slices.Equal(e.Warnings, got) {
		t.Errorf("journal %q, header %q", e.Warnings, got)
	}
	metrics := string(get(t, s, "/__mock/metrics").body)
	if !strings.Contains(metrics, `replymock_client_warnings_total{kind="unknown_parameter"} 15`) {
		t.Errorf("the metric does not count all 15 warnings:\n%s", grepLines(metrics, "client_warnings"))
	}

	ts := httptest.NewServer(s)
	defer ts.Close()
	hostile := []struct{ name, raw string }{
		{"CR LF", "a%0D%0AX-Injected:%20yes"},
		{"NUL", "a%00b"},
		{"quotes and backslashes", `%22%5C%22%5C`},
		{"Cyrillic", "%D0%BB%D0%B8%D0%BC%D0%B8%D1%82"},
		{"not UTF-8", "%FF%FE"},
		{"8 KB", strings.Repeat("n", 8<<10)},
		{"8 KB of CR LF", strings.Repeat("%0D%0A", 8<<10/3)},
		{"8 KB of Cyrillic", strings.Repeat("%D0%B6", 8<<10/6)},
		{"a quote in a charset", ""},
	}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", ts.URL+"/api/v1/feedbacks?"+tc.raw+"=1&limit=1", nil)
			if tc.raw == "" {
				req, err = http.NewRequest("PATCH", ts.URL+"/api/v1/settings/ai", strings.NewReader(`{}`))
				req.Header.Set("Content-Type", `application/json; charset="\"ф\\"`)
			}
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.Header.Get("X-Injected") != "" {
				t.Fatal("a parameter name set a header")
			}
			got := warningTexts(t, tc.name, resp.Header)
			if len(got) != 1 {
				t.Fatalf("%d warnings %q, want 1", len(got), got)
			}
			for _, v := range resp.Header.Values(mock.HeaderWarning) {
				if len(v) > len(`299 replymock ""`)+2*mock.MaxWarningLength {
					t.Errorf("a header value of %d bytes", len(v))
				}
			}
			for _, w := range got {
				if len(w) > mock.MaxWarningLength {
					t.Errorf("a warning of %d bytes: %q", len(w), w)
				}
			}
			if e := lastEntry(t, s, mock.DefaultSession); !slices.Equal(e.Warnings, got) {
				t.Errorf("journal %q, header %q", e.Warnings, got)
			}
		})
	}
}

func grepLines(s, sub string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The metric counts warnings by kind, never by the name sent.
func TestWarningsMetrics(t *testing.T) {
	s := newServer(t, mock.Options{})
	get(t, s, "/api/v1/feedbacks?isAnswered=0&take=100")
	get(t, s, "/api/v1/feedbacks?secret-name-1=1&Limit=1&search=")
	get(t, s, "/api/v1/settings/ai?limit=1")
	do(t, s, "GET", "/api/v1/feedbacks?limit=1", "{}")
	do(t, s, "PATCH", "/api/v1/settings/ai", "{}", "Content-Type", "application/json; charset=koi8-r")
	get(t, s, "/api/v1/feedbacks?limit=1")
	metrics := grepLines(string(get(t, s, "/__mock/metrics").body), "replymock_client_warnings_total")
	for _, want := range []string{
		`replymock_client_warnings_total{kind="upstream_name"} 2`,
		`replymock_client_warnings_total{kind="unknown_parameter"} 1`,
		`replymock_client_warnings_total{kind="near_miss"} 1`,
		`replymock_client_warnings_total{kind="empty_parameter"} 1`,
		`replymock_client_warnings_total{kind="wrong_operation"} 1`,
		`replymock_client_warnings_total{kind="body_on_get"} 1`,
		`replymock_client_warnings_total{kind="content_type"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
	if strings.Contains(metrics, "secret-name") || strings.Count(metrics, "{kind=") != 7 {
		t.Errorf("the metric has other labels than the kinds:\n%s", metrics)
	}
}

// strictScenarios serve the default data with strict: true, false, or
// inherited through extends.
func strictScenarios(t *testing.T) fstest.MapFS {
	def := mustRead(t, scenarios.FS, "default.yaml")
	return fstest.MapFS{
		"default.yaml":        {Data: def},
		"strict.yaml":         {Data: []byte("extends: default\ndescription: strict\nstrict: true\n")},
		"lenient.yaml":        {Data: []byte("extends: default\ndescription: lenient\nstrict: false\n")},
		"strict-child.yaml":   {Data: []byte("extends: strict\ndescription: inherits strict\n")},
		"lenient-child.yaml":  {Data: []byte("extends: strict\ndescription: says false\nstrict: false\n")},
		"strict-faulty.yaml":  {Data: []byte("extends: strict\ndescription: a fault first\nfaults: [{error: {status: 503}}]\n")},
		"strict-tokened.yaml": {Data: []byte("extends: strict\ndescription: auth first\nauth: {type: bearer, tokens: [t]}\n")},
	}
}

// Strict mode answers a request with warnings 400 invalid_parameter,
// naming the first parameter, and records it; clean requests pass.
func TestStrictAnswers(t *testing.T) {
	s := newServer(t, mock.Options{Strict: true})
	r := get(t, s, "/api/v1/feedbacks?isAnswered=0&take=100")
	checkError(t, "strict GET ?isAnswered=0&take=100", r, 400, mock.CodeInvalidParameter, "isAnswered")
	var eb errorBody
	decodeError(t, r, &eb)
	if want := "strict mode: isAnswered is the upstream's name: did you mean `answered`?"; !strings.HasPrefix(eb.Error.Message, want) {
		t.Errorf("strict message %q, want it to start with %q", eb.Error.Message, want)
	}
	e := lastEntry(t, s, mock.DefaultSession)
	if e.Status != 400 || len(e.Warnings) != 2 || !slices.Equal(e.Warnings, warningTexts(t, "strict", r.header)) {
		t.Errorf("journal of a strict 400: status %d, warnings %q", e.Status, e.Warnings)
	}
	for _, tc := range []struct{ method, target, body, ctype, field string }{
		{"GET", "/api/v1/feedbacks?Limit=5", "", "", "Limit"},
		{"GET", "/api/v1/feedbacks?search=", "", "", "search"},
		{"GET", "/api/v1/settings/ai?limit=5", "", "", "limit"},
		{"GET", "/api/v1/feedbacks", "{}", "", "body"},
		{"GET", "/api/v1/feedbacks?a%0D%0Ab=1", "", "", "a\r\nb"},
		{"PATCH", "/api/v1/settings/ai?foo=1", `{"question":{"tone":"strict"}}`, "application/json", "foo"},
		{"PATCH", "/api/v1/settings/ai", `{"question":{"tone":"strict"}}`, "application/json; charset=latin1", "Content-Type"},
	} {
		var hdr []string
		if tc.ctype != "" {
			hdr = []string{"Content-Type", tc.ctype}
		}
		r := do(t, s, tc.method, tc.target, tc.body, hdr...)
		checkError(t, "strict "+tc.method+" "+tc.target, r, 400, mock.CodeInvalidParameter, tc.field)
		if e := lastEntry(t, s, mock.DefaultSession); e.Body != tc.body {
			t.Errorf("strict %s %s: the journal keeps body %q", tc.method, tc.target, e.Body)
		}
	}
	// A refused PATCH changes nothing.
	var st mock.Settings
	decodeOK(t, "settings", get(t, s, "/api/v1/settings/ai"), &st)
	if st.Question.Tone == "strict" {
		t.Error("a PATCH refused in strict mode changed the settings")
	}
	if r := do(t, s, "HEAD", "/api/v1/feedbacks?foo=1", ""); r.status != 400 || r.header.Get(mock.HeaderWarning) == "" {
		t.Errorf("strict HEAD: %d, warnings %q", r.status, r.header.Values(mock.HeaderWarning))
	}
	if r := get(t, s, "/api/v1/feedbacks?limit=5&search=a"); r.status != 200 {
		t.Errorf("strict mode refused a clean request: %d %s", r.status, r.body)
	}
	// Faults, auth and the rate limit answer first, as for any 400.
	s2 := newServer(t, mock.Options{Scenarios: strictScenarios(t)})
	if r := get(t, s2, "/api/v1/feedbacks?foo=1", "X-Mock-Scenario", "strict-faulty"); r.status != 503 {
		t.Errorf("strict with a fault: %d, want the fault's 503", r.status)
	}
	if r := get(t, s2, "/api/v1/feedbacks?foo=1", "X-Mock-Scenario", "strict-tokened"); r.status != 401 {
		t.Errorf("strict without a token: %d, want 401", r.status)
	}
	if r := get(t, s2, "/api/v1/feedbacks?foo=1", "X-Mock-Scenario", "strict-tokened", "Authorization", "Bearer t"); r.status != 400 {
		t.Errorf("strict with a token: %d, want 400", r.status)
	}
}

func decodeError(t testing.TB, r response, eb *errorBody) {
	t.Helper()
	if err := json.Unmarshal(r.body, eb); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
}

// Strict mode by each switch; the most specific one set wins: the
// session's override, the override for every session, the scenario's
// key, then Options.Strict (--strict).
func TestStrictPrecedence(t *testing.T) {
	tr, fa := "true", "false"
	tests := []struct {
		name             string
		flag             bool
		scenario         string
		all, own         string // strict in the overrides for every session and of session "s1"; "" for none
		want, wantOthers int
	}{
		{"nothing", false, "default", "", "", 200, 200},
		{"flag", true, "default", "", "", 400, 400},
		{"scenario", false, "strict", "", "", 400, 400},
		{"scenario through extends", false, "strict-child", "", "", 400, 400},
		{"a child says false", false, "lenient-child", "", "", 200, 200},
		{"scenario false wins over the flag", true, "lenient", "", "", 200, 200},
		{"override for all", false, "default", tr, "", 400, 400},
		{"override for all wins over the scenario", false, "strict", fa, "", 200, 200},
		{"override for all wins over the flag", true, "default", fa, "", 200, 200},
		{"a session's override", false, "default", "", tr, 400, 200},
		{"a session's override wins over the one for all", false, "default", fa, tr, 400, 200},
		{"a session's false wins over everything", true, "strict", tr, fa, 200, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, mock.Options{Strict: tc.flag, Scenarios: strictScenarios(t), Scenario: tc.scenario})
			if tc.all != "" {
				decodeOK(t, "PUT overrides", admin(t, s, "PUT", "/__mock/overrides", `{"strict":`+tc.all+`}`), new(mock.Overrides))
			}
			if tc.own != "" {
				decodeOK(t, "PUT overrides?session=s1", admin(t, s, "PUT", "/__mock/overrides?session=s1", `{"strict":`+tc.own+`}`), new(mock.Overrides))
			}
			if r := get(t, s, "/api/v1/feedbacks?isAnswered=0", "X-Mock-Session", "s1"); r.status != tc.want {
				t.Errorf("session s1: status %d, want %d", r.status, tc.want)
			}
			if r := get(t, s, "/api/v1/feedbacks?isAnswered=0", "X-Mock-Session", "s2"); r.status != tc.wantOthers {
				t.Errorf("session s2: status %d, want %d", r.status, tc.wantOthers)
			}
		})
	}
}

// Overrides for one session: read back, kept apart, gone with the
// session's reset, bounded.
func TestSessionOverrides(t *testing.T) {
	s := newServer(t, mock.Options{})
	decodeOK(t, "PUT", admin(t, s, "PUT", "/__mock/overrides?session=a", `{"strict":true,"auth":{"type":"bearer","tokens":["tok"]}}`), new(mock.Overrides))
	var own, all mock.Overrides
	decodeOK(t, "GET a", admin(t, s, "GET", "/__mock/overrides?session=a", ""), &own)
	decodeOK(t, "GET all", admin(t, s, "GET", "/__mock/overrides", ""), &all)
	if own.Strict == nil || !*own.Strict || own.Auth == nil || all.Strict != nil || all.Auth != nil {
		t.Errorf("session a's overrides %+v, for every session %+v", own, all)
	}
	var none mock.Overrides
	decodeOK(t, "GET b", admin(t, s, "GET", "/__mock/overrides", "", "X-Mock-Session", "b"), &none)
	if none != (mock.Overrides{}) {
		t.Errorf("session b has overrides %+v", none)
	}
	if r := get(t, s, "/api/v1/feedbacks", "X-Mock-Session", "a"); r.status != 401 {
		t.Errorf("session a's auth override: %d, want 401", r.status)
	}
	if r := get(t, s, "/api/v1/feedbacks", "X-Mock-Session", "b"); r.status != 200 {
		t.Errorf("session b meets a's auth: %d", r.status)
	}
	// The session's own win field by field: the rate limit for all still holds.
	decodeOK(t, "PUT all", admin(t, s, "PUT", "/__mock/overrides", `{"rate_limit":{"requests":1,"window":"1h"}}`), new(mock.Overrides))
	get(t, s, "/api/v1/feedbacks", "X-Mock-Session", "a", "Authorization", "Bearer tok")
	if r := get(t, s, "/api/v1/feedbacks", "X-Mock-Session", "a", "Authorization", "Bearer tok"); r.status != 429 {
		t.Errorf("the rate limit for every session does not hold for a session with its own auth: %d", r.status)
	}
	admin(t, s, "POST", "/__mock/reset?session=a", "")
	decodeOK(t, "GET a after reset", admin(t, s, "GET", "/__mock/overrides?session=a", ""), &own)
	if own != (mock.Overrides{}) {
		t.Errorf("session a's overrides survive its reset: %+v", own)
	}
	for _, tc := range []struct{ target, body, field string }{
		{"/__mock/overrides?session=a", `{"strict":"yes"}`, "strict"},
		{"/__mock/overrides", `{"strict":1}`, "strict"},
		{"/__mock/overrides?session=a", `{"auth":{"type":"bearer","tokens":"tok"}}`, "auth.tokens"},
		{"/__mock/overrides?session=a%20b", `{"strict":true}`, "session"},
		{"/__mock/overrides?session=a", `{"auth":{"type":"bearer","tokens":["` + strings.Repeat("t", mock.MaxSessionOverrideBytes) + `"]}}`, "auth.tokens"},
	} {
		r := admin(t, s, "PUT", tc.target, tc.body)
		what := "PUT " + tc.target + " " + tc.body[:min(len(tc.body), 60)]
		if tc.field == "session" {
			checkError(t, what, r, 400, mock.CodeInvalidParameter, tc.field)
		} else {
			checkError(t, what, r, 400, mock.CodeInvalidBody, tc.field)
		}
	}
	decodeOK(t, "GET a", admin(t, s, "GET", "/__mock/overrides?session=a", ""), &own)
	if own != (mock.Overrides{}) {
		t.Errorf("a refused PUT changed session a's overrides: %+v", own)
	}
	// Just under the bound is kept.
	tok := strings.Repeat("t", mock.MaxSessionOverrideBytes-16)
	decodeOK(t, "PUT at the bound", admin(t, s, "PUT", "/__mock/overrides?session=a", `{"auth":{"type":"bearer","tokens":["`+tok+`"]}}`), new(mock.Overrides))
}

// A session's overrides expire with it: strict no more, and not shown.
func TestSessionOverridesExpire(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	s := newServer(t, mock.Options{SessionTTL: time.Minute, Now: clock.now})
	decodeOK(t, "PUT", admin(t, s, "PUT", "/__mock/overrides?session=x", `{"strict":true}`), new(mock.Overrides))
	if r := get(t, s, "/api/v1/feedbacks?foo=1", "X-Mock-Session", "x"); r.status != 400 {
		t.Fatalf("strict session: %d", r.status)
	}
	clock.add(2 * time.Minute)
	var o mock.Overrides
	decodeOK(t, "GET expired", admin(t, s, "GET", "/__mock/overrides?session=x", ""), &o)
	if o != (mock.Overrides{}) {
		t.Errorf("an expired session shows its overrides: %+v", o)
	}
	if r := get(t, s, "/api/v1/feedbacks?foo=1", "X-Mock-Session", "x"); r.status != 200 {
		t.Errorf("an expired session is still strict: %d", r.status)
	}
}
