package mock_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
)

// inSession sends every request as session sid.
func inSession(h http.Handler, sid string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(mock.HeaderSession, sid)
		h.ServeHTTP(w, r)
	})
}

// putData sends PUT /__mock/data?session=sid with a body of type ct.
func putData(t testing.TB, h http.Handler, sid, ct, body string, header ...string) response {
	t.Helper()
	return do(t, h, http.MethodPut, "/__mock/data?session="+sid, body, append([]string{"Content-Type", ct}, header...)...)
}

// seedBody is a PUT /__mock/data body of mode and recs.
func seedBody(t testing.TB, mode string, recs []mock.SeedReview) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mode": mode, "reviews": recs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newestFirst sorts records in the list's order.
func newestFirst(all []mock.Feedback) {
	slices.SortFunc(all, func(a, b mock.Feedback) int {
		if c := strings.Compare(b.CreatedDate, a.CreatedDate); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// sameRecords fails unless got and want are the same records, field for
// field, in the same order.
func sameRecords(t testing.TB, what string, got, want []mock.Feedback) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Fatalf("%s: record %d:\n got %s\nwant %s", what, i, g, w)
		}
	}
}

var seedPhrases = []string{"Отличный плед, ЁЛКА на упаковке", "Брак: дырка посередине", "Пришёл быстро", "Straße-Qualität", "цвет не тот 👎", "<b>html</b> & \"quotes\""}

// randomSeeds draws n reviews: all with dates, some in the same second as
// one of like's, some of like's products, some without product fields.
func randomSeeds(rng *rand.Rand, n int, like []mock.Feedback, tag string) []mock.SeedReview {
	recs := make([]mock.SeedReview, n)
	start := time.Date(2025, 11, 15, 0, 0, 0, 0, time.UTC)
	for i := range recs {
		r := mock.SeedReview{ProductValuation: 1 + rng.IntN(5), FeedbackID: ptr(fmt.Sprintf("%s-%d", tag, i))}
		created := start.Add(time.Duration(rng.IntN(366*24*3600)) * time.Second)
		if len(like) > 0 && rng.IntN(10) == 0 {
			created, _ = time.Parse(time.DateTime, like[rng.IntN(len(like))].CreatedDate)
		}
		r.CreatedDate = ptr(created.Format(time.DateTime))
		switch rng.IntN(3) {
		case 0:
			if len(like) > 0 {
				r.NmID = ptr(like[rng.IntN(len(like))].NmID)
			}
		case 1:
			r.NmID, r.ProductName, r.SupplierArticle = ptr(int64(700000+rng.IntN(5))), ptr("Товар"), ptr(fmt.Sprintf("ART-%d", rng.IntN(5)))
		}
		if rng.IntN(4) > 0 {
			r.Text = seedPhrases[rng.IntN(len(seedPhrases))]
		}
		if rng.IntN(2) == 0 {
			r.Pros = seedPhrases[rng.IntN(len(seedPhrases))]
		}
		if rng.IntN(2) == 0 {
			r.AnswerText = "Спасибо за отзыв!"
		}
		recs[i] = r
	}
	return recs
}

// Seeded reviews, appended among the scenario's or replacing them, are
// what the list shows: every record as a brute-force reference over the
// scenario's and the seeded records orders them, and random filters,
// pages and counts as the reference answers them; DELETE brings the
// scenario's data back.
func TestSeedListMatchesReference(t *testing.T) {
	h := newServer(t, mock.Options{})
	twin := newServer(t, mock.Options{}) // seeded through the Go API: the records to expect
	scenario := fetchAll(t, h, "", 100)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []string{mock.SeedAppend, mock.SeedReplace} {
		sid := "ref-" + mode
		var want []mock.Feedback
		if mode == mock.SeedAppend {
			want = slices.Clone(scenario)
		}
		for round := range 3 {
			recs := randomSeeds(rng, 150+rng.IntN(200), scenario, fmt.Sprintf("%s%d", mode, round))
			m := mode
			if round > 0 {
				m = mock.SeedAppend // more on top of either
			}
			var got mock.SeedResult
			decodeOK(t, "PUT /__mock/data", putData(t, h, sid, "application/json", seedBody(t, m, recs)), &got)
			res, err := twin.SeedReviews(sid, "", m, recs)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, res.Reviews...)
			newestFirst(want)
			res.Reviews = nil
			if !reflect.DeepEqual(got, res) || got.Added != len(recs) || got.Total != len(want) || got.LastID-got.FirstID+1 != int64(len(recs)) {
				t.Fatalf("%s round %d: answered %+v; the Go API %+v; want %d added, %d in all", mode, round, got, res, len(recs), len(want))
			}
			all := fetchAll(t, inSession(h, sid), "", 100)
			sameRecords(t, fmt.Sprintf("%s round %d", mode, round), all, want)
			checkOrder(t, all)
			checkQueries(t, inSession(h, sid), want, 120, uint64(round))
		}
	}
	sameRecords(t, "the default session", fetchAll(t, h, "", 100), scenario)
	var del map[string]any
	decodeOK(t, "DELETE", do(t, h, http.MethodDelete, "/__mock/data?session=ref-append", ""), &del)
	sameRecords(t, "after DELETE", fetchAll(t, inSession(h, "ref-append"), "", 100), scenario)
	if c := counts(t, h, mock.HeaderSession, "ref-replace"); c.Total > 1000 {
		t.Errorf("DELETE of one session cleared another: %+v", c)
	}
}

// seedCase is a request to PUT /__mock/data and the error it must get.
type seedCase struct {
	name, ct, body string
	status         int
	code, field    string
}

// one is a body with reviews: the given ones after a good one.
func one(fields ...string) string {
	return `{"mode":"replace","reviews":[{"product_valuation":5},{` + strings.Join(fields, ",") + `}]}`
}

func long(n int) string { return strings.Repeat("я", n) }

// Every bad body, field and parameter gets its error, naming the path, in
// JSON and YAML; none changes anything.
func TestSeedErrors(t *testing.T) {
	h := newServer(t, mock.Options{})
	const js, ym = "application/json", "application/yaml"
	r := `"product_valuation":4`
	photo := `{"fullSize":"https://cdn.example/f.jpg","miniSize":"https://cdn.example/m.jpg"}`
	cases := []seedCase{
		{"empty body", js, "", 400, mock.CodeInvalidBody, ""},
		{"not JSON", js, "{", 400, mock.CodeInvalidBody, ""},
		{"an array", js, "[]", 400, mock.CodeInvalidBody, ""},
		{"trailing data", js, `{"reviews":[]} {}`, 400, mock.CodeInvalidBody, ""},
		{"unknown field", js, `{"reviews":[],"mood":"x"}`, 400, mock.CodeInvalidBody, "mood"},
		{"bad mode", js, `{"mode":"merge","reviews":[]}`, 400, mock.CodeInvalidBody, "mode"},
		{"mode a number", js, `{"mode":1,"reviews":[]}`, 400, mock.CodeInvalidBody, "mode"},
		{"mode twice", js, `{"mode":"replace","mode":"append","reviews":[]}`, 400, mock.CodeInvalidBody, "mode"},
		{"bad kind", js, `{"kind":"settings","reviews":[]}`, 400, mock.CodeInvalidBody, "kind"},
		{"no reviews", js, `{"mode":"replace"}`, 400, mock.CodeInvalidBody, "reviews"},
		{"reviews an object", js, `{"reviews":{}}`, 400, mock.CodeInvalidBody, "reviews"},
		{"reviews null", js, `{"reviews":null}`, 400, mock.CodeInvalidBody, "reviews"},
		{"a review not an object", js, `{"reviews":[5]}`, 400, mock.CodeInvalidBody, "reviews[0]"},
		{"unknown review field", js, one(r, `"rating":4`), 400, mock.CodeInvalidBody, "reviews[1].rating"},
		{"id given", js, one(r, `"id":4`), 400, mock.CodeInvalidBody, "reviews[1].id"},
		{"a field twice", js, one(r, `"text":"a","text":"b"`), 400, mock.CodeInvalidBody, "reviews[1].text"},
		{"no rating", js, one(`"text":"a"`), 400, mock.CodeInvalidBody, "reviews[1].product_valuation"},
		{"rating 0", js, one(`"product_valuation":0`), 400, mock.CodeInvalidBody, "reviews[1].product_valuation"},
		{"rating 6", js, one(`"product_valuation":6`), 400, mock.CodeInvalidBody, "reviews[1].product_valuation"},
		{"rating a string", js, one(`"product_valuation":"5"`), 400, mock.CodeInvalidBody, "reviews[1].product_valuation"},
		{"rating a fraction", js, one(`"product_valuation":4.5`), 400, mock.CodeInvalidBody, "reviews[1].product_valuation"},
		{"feedback_id a number", js, one(r, `"feedback_id":5`), 400, mock.CodeInvalidBody, "reviews[1].feedback_id"},
		{"feedback_id empty", js, one(r, `"feedback_id":""`), 400, mock.CodeInvalidBody, "reviews[1].feedback_id"},
		{"feedback_id too long", js, one(r, `"feedback_id":"`+strings.Repeat("x", 65)+`"`), 400, mock.CodeInvalidBody, "reviews[1].feedback_id"},
		{"feedback_id control", js, one(r, `"feedback_id":"a\u0001"`), 400, mock.CodeInvalidBody, "reviews[1].feedback_id"},
		{"feedback_id twice", js, `{"reviews":[{` + r + `,"feedback_id":"x"},{` + r + `,"feedback_id":"x"}]}`, 400, mock.CodeInvalidBody, "reviews[1].feedback_id"},
		{"nm_id a string", js, one(r, `"nm_id":"12"`), 400, mock.CodeInvalidBody, "reviews[1].nm_id"},
		{"nm_id negative", js, one(r, `"nm_id":-5`), 400, mock.CodeInvalidBody, "reviews[1].nm_id"},
		{"nm_id zero", js, one(r, `"nm_id":0`), 400, mock.CodeInvalidBody, "reviews[1].nm_id"},
		{"nm_id too big", js, one(r, `"nm_id":99999999999999999999`), 400, mock.CodeInvalidBody, "reviews[1].nm_id"},
		{"imt_id negative", js, one(r, `"imt_id":-1`), 400, mock.CodeInvalidBody, "reviews[1].imt_id"},
		{"imt_id null", js, one(r, `"imt_id":null`), 400, mock.CodeInvalidBody, "reviews[1].imt_id"},
		{"text too long", js, one(r, `"text":"`+long(10001)+`"`), 400, mock.CodeInvalidBody, "reviews[1].text"},
		{"text NUL", js, one(r, `"text":"a\u0000b"`), 400, mock.CodeInvalidBody, "reviews[1].text"},
		{"text lone surrogate", js, one(r, `"text":"\ud800"`), 400, mock.CodeInvalidBody, "reviews[1].text"},
		{"text a list", js, one(r, `"text":["a"]`), 400, mock.CodeInvalidBody, "reviews[1].text"},
		{"pros too long", js, one(r, `"pros":"`+long(10001)+`"`), 400, mock.CodeInvalidBody, "reviews[1].pros"},
		{"cons escape", js, one(r, `"cons":"\u001b[31m"`), 400, mock.CodeInvalidBody, "reviews[1].cons"},
		{"answer_text too long", js, one(r, `"answer_text":"`+long(10001)+`"`), 400, mock.CodeInvalidBody, "reviews[1].answer_text"},
		{"answer_state a number", js, one(r, `"answer_state":1`), 400, mock.CodeInvalidBody, "reviews[1].answer_state"},
		{"answer_state too long", js, one(r, `"answer_state":"`+long(33)+`"`), 400, mock.CodeInvalidBody, "reviews[1].answer_state"},
		{"state too long", js, one(r, `"state":"`+long(33)+`"`), 400, mock.CodeInvalidBody, "reviews[1].state"},
		{"product_name empty", js, one(r, `"product_name":""`), 400, mock.CodeInvalidBody, "reviews[1].product_name"},
		{"product_name too long", js, one(r, `"product_name":"`+long(501)+`"`), 400, mock.CodeInvalidBody, "reviews[1].product_name"},
		{"supplier_article too long", js, one(r, `"supplier_article":"`+long(501)+`"`), 400, mock.CodeInvalidBody, "reviews[1].supplier_article"},
		{"brand_name C1", js, one(r, `"brand_name":"a\u0085"`), 400, mock.CodeInvalidBody, "reviews[1].brand_name"},
		{"user_name too long", js, one(r, `"user_name":"`+long(501)+`"`), 400, mock.CodeInvalidBody, "reviews[1].user_name"},
		{"created_date not a date", js, one(r, `"created_date":"2026-02-30 10:00:00"`), 400, mock.CodeInvalidBody, "reviews[1].created_date"},
		{"created_date a date only", js, one(r, `"created_date":"2026-02-03"`), 400, mock.CodeInvalidBody, "reviews[1].created_date"},
		{"created_date a number", js, one(r, `"created_date":20260203`), 400, mock.CodeInvalidBody, "reviews[1].created_date"},
		{"created_at before", js, one(r, `"created_date":"2026-02-03 10:00:00","created_at":"2026-02-03 09:59:59"`), 400, mock.CodeInvalidBody, "reviews[1].created_at"},
		{"created_at bad", js, one(r, `"created_at":"soon"`), 400, mock.CodeInvalidBody, "reviews[1].created_at"},
		{"was_viewed 2", js, one(r, `"was_viewed":2`), 400, mock.CodeInvalidBody, "reviews[1].was_viewed"},
		{"was_viewed true", js, one(r, `"was_viewed":true`), 400, mock.CodeInvalidBody, "reviews[1].was_viewed"},
		{"valuation_tags a string", js, one(r, `"valuation_tags":"[]"`), 400, mock.CodeInvalidBody, "reviews[1].valuation_tags"},
		{"valuation_tags a number in it", js, one(r, `"valuation_tags":["a",1]`), 400, mock.CodeInvalidBody, "reviews[1].valuation_tags[1]"},
		{"valuation_tags too many", js, one(r, `"valuation_tags":["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11","t12","t13","t14","t15","t16","t17","t18","t19","t20"]`), 400, mock.CodeInvalidBody, "reviews[1].valuation_tags"},
		{"valuation_tags entry too long", js, one(r, `"valuation_tags":["`+long(2001)+`"]`), 400, mock.CodeInvalidBody, "reviews[1].valuation_tags[0]"},
		{"photos null", js, one(r, `"photos":null`), 400, mock.CodeInvalidBody, "reviews[1].photos"},
		{"photos entry control", js, one(r, `"photos":[`+photo+`,{"fullSize":"a\u0007","miniSize":"https://cdn.example/m.jpg"}]`), 400, mock.CodeInvalidBody, "reviews[1].photos[1].fullSize"},
		{"photo a plain URL", js, one(r, `"photos":["https://cdn.example/f.jpg"]`), 400, mock.CodeInvalidBody, "reviews[1].photos[0]"},
		{"photo without miniSize", js, one(r, `"photos":[{"fullSize":"https://cdn.example/f.jpg"}]`), 400, mock.CodeInvalidBody, "reviews[1].photos[0].miniSize"},
		{"photo with an unknown field", js, one(r, `"photos":[{"fullSize":"https://cdn.example/f.jpg","miniSize":"https://cdn.example/m.jpg","url":"x"}]`), 400, mock.CodeInvalidBody, "reviews[1].photos[0].url"},
		{"video in the old shape", js, one(r, `"video":{"id":"v1","duration_sec":12}`), 400, mock.CodeInvalidBody, "reviews[1].video.id"},
		{"video without a duration", js, one(r, `"video":{"previewImage":"https://cdn.example/p.jpg","link":"https://cdn.example/v.m3u8"}`), 400, mock.CodeInvalidBody, "reviews[1].video.durationSec"},
		{"video a string", js, one(r, `"video":"v"`), 400, mock.CodeInvalidBody, "reviews[1].video"},
		{"video a list", js, one(r, `"video":[]`), 400, mock.CodeInvalidBody, "reviews[1].video"},
		{"video link too long", js, one(r, `"video":{"previewImage":"https://cdn.example/p.jpg","link":"https://cdn.example/`+strings.Repeat("v", 2100)+`.m3u8","durationSec":5}`), 400, mock.CodeInvalidBody, "reviews[1].video.link"},
		{"feedback_id of the scenario", js, `{"mode":"append","reviews":[{` + r + `,"feedback_id":"EdgeEmoji00000000002"}]}`, 400, mock.CodeInvalidBody, "reviews[0].feedback_id"},
		{"too many reviews", js, `{"reviews":[` + strings.Repeat(`{"product_valuation":5},`, mock.MaxSeedReviews) + `{"product_valuation":5}]}`, 400, mock.CodeInvalidBody, "reviews"},
		{"text/plain", "text/plain", `{"reviews":[]}`, 415, mock.CodeUnsupportedMediaType, ""},
		{"no Content-Type", "", `{"reviews":[]}`, 415, mock.CodeUnsupportedMediaType, ""},

		{"YAML syntax", ym, "reviews: [", 400, mock.CodeInvalidBody, ""},
		{"YAML a list", ym, "- 1", 400, mock.CodeInvalidBody, ""},
		{"YAML unknown field", ym, "reviews: []\nmood: x", 400, mock.CodeInvalidBody, "mood"},
		{"YAML duplicate key", ym, "mode: replace\nmode: append\nreviews: []", 400, mock.CodeInvalidBody, "mode"},
		{"YAML alias", ym, "reviews:\n  - &r {product_valuation: 5}\n  - *r", 400, mock.CodeInvalidBody, "reviews[1]"},
		{"YAML merge key", ym, "reviews:\n  - {<<: {product_valuation: 5}}", 400, mock.CodeInvalidBody, "reviews[0]"},
		{"YAML rating a string", ym, "reviews:\n  - product_valuation: \"5\"", 400, mock.CodeInvalidBody, "reviews[0].product_valuation"},
		{"YAML rating a fraction", ym, "reviews:\n  - product_valuation: 4.5", 400, mock.CodeInvalidBody, "reviews[0].product_valuation"},
		{"YAML nm_id too big", ym, "reviews:\n  - {product_valuation: 5, nm_id: 99999999999999999999}", 400, mock.CodeInvalidBody, "reviews[0].nm_id"},
		{"YAML was_viewed a bool", ym, "reviews:\n  - {product_valuation: 5, was_viewed: true}", 400, mock.CodeInvalidBody, "reviews[0].was_viewed"},
		{"YAML created_date bad", ym, "reviews:\n  - {product_valuation: 5, created_date: 2026-02-30 10:00:00}", 400, mock.CodeInvalidBody, "reviews[0].created_date"},
		{"YAML text too long", ym, "reviews:\n  - {product_valuation: 5, text: " + long(10001) + "}", 400, mock.CodeInvalidBody, "reviews[0].text"},
		{"YAML unknown review field", ym, "kind: reviews\nreviews:\n  - {product_valuation: 5, rating: 5}", 400, mock.CodeInvalidBody, "reviews[0].rating"},
		{"YAML photos a mapping", ym, "reviews:\n  - {product_valuation: 5, photos: {a: b}}", 400, mock.CodeInvalidBody, "reviews[0].photos"},
	}
	before := fetchAll(t, inSession(h, "e"), "", 100)
	for _, tc := range cases {
		var hdr []string
		if tc.ct != "" {
			hdr = []string{"Content-Type", tc.ct}
		}
		checkError(t, tc.name, do(t, h, http.MethodPut, "/__mock/data?session=e", tc.body, hdr...), tc.status, tc.code, tc.field)
	}
	// Parameters: the session and the scenario.
	for _, tc := range []struct{ name, target, scenario, field string }{
		{"every session", "/__mock/data?session=*", "", "session"},
		{"bad session", "/__mock/data?session=a%20b", "", "session"},
		{"unknown scenario", "/__mock/data?session=e", "nope", mock.HeaderScenario},
		{"unknown scenario parameter", "/__mock/data?session=e&scenario=nope", "", "scenario"},
	} {
		hdr := []string{"Content-Type", js}
		if tc.scenario != "" {
			hdr = append(hdr, mock.HeaderScenario, tc.scenario)
		}
		checkError(t, tc.name, do(t, h, http.MethodPut, tc.target, `{"reviews":[]}`, hdr...), 400, mock.CodeInvalidParameter, tc.field)
	}
	checkError(t, "GET every session", get(t, h, "/__mock/data?session=*"), 400, mock.CodeInvalidParameter, "session")
	// Nothing changed: the list, and no seeds anywhere.
	sameRecords(t, "after the errors", fetchAll(t, inSession(h, "e"), "", 100), before)
	var d mock.DataSummary
	decodeOK(t, "GET data", get(t, h, "/__mock/data?session=e"), &d)
	if d.Seeded != nil {
		t.Errorf("after the errors: seeded %+v", d.Seeded)
	}
	if n := h.ClearSeeded(mock.AllSessions); n != 0 {
		t.Errorf("after the errors, %d seeded reviews", n)
	}
}

// An appended feedback_id already seeded is refused, and the refusal
// changes nothing; replace may reuse the scenario's ids, which it hides.
func TestSeedDuplicates(t *testing.T) {
	h := newServer(t, mock.Options{})
	decodeOK(t, "append a", putData(t, h, "d", "application/json", `{"mode":"append","reviews":[{"product_valuation":5,"feedback_id":"a"}]}`), new(mock.SeedResult))
	before := fetchAll(t, inSession(h, "d"), "", 100)
	checkError(t, "append a again", putData(t, h, "d", "application/json",
		`{"mode":"append","reviews":[{"product_valuation":1,"feedback_id":"b"},{"product_valuation":5,"feedback_id":"a"}]}`), 400, mock.CodeInvalidBody, "reviews[1].feedback_id")
	sameRecords(t, "after the refusal", fetchAll(t, inSession(h, "d"), "", 100), before)
	var res mock.SeedResult
	decodeOK(t, "replace with a scenario's id", putData(t, h, "d", "application/json",
		`{"reviews":[{"product_valuation":5,"feedback_id":"EdgeEmoji00000000002"},{"product_valuation":5,"feedback_id":"a"}]}`), &res)
	if res.Total != 2 || res.FirstID != 1 {
		t.Errorf("replace: %+v", res)
	}
	checkError(t, "then append it again", putData(t, h, "d", "application/json",
		`{"mode":"append","reviews":[{"product_valuation":5,"feedback_id":"EdgeEmoji00000000002"}]}`), 400, mock.CodeInvalidBody, "reviews[0].feedback_id")
}

// Missing fields are filled the same for the same session, position and
// scenario, differently for another session; dates put the reviews in
// the order given, newest first; products come from the scenario.
func TestSeedFill(t *testing.T) {
	body := `{"reviews":[{"product_valuation":1,"text":"первый"},{"product_valuation":2},{"product_valuation":3,"nm_id":555000111},{"product_valuation":4,"user_name":"Ира"}]}`
	a, b := newServer(t, mock.Options{}), newServer(t, mock.Options{})
	seeded := func(h *mock.Server, sid string) []mock.Feedback {
		decodeOK(t, "PUT", putData(t, h, sid, "application/json", body), new(mock.SeedResult))
		return fetchAll(t, inSession(h, sid), "", 100)
	}
	first := seeded(a, "s1")
	sameRecords(t, "another server, the same session", seeded(b, "s1"), first)
	sameRecords(t, "the same body again", seeded(a, "s1"), first)
	other := seeded(a, "s2")
	for i := range first {
		if first[i].FeedbackID == other[i].FeedbackID || len(first[i].FeedbackID) != 20 {
			t.Errorf("review %d: feedback_id %q in s1, %q in s2", i, first[i].FeedbackID, other[i].FeedbackID)
		}
	}
	for i, f := range first {
		if f.ProductValuation != i+1 {
			t.Errorf("list position %d: rating %d; the order given is the list's", i, f.ProductValuation)
		}
		if want := time.Date(2026, 11, 15, 21, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Minute).Format(time.DateTime); f.CreatedDate != want || f.CreatedAt != want {
			t.Errorf("review %d: created %s/%s, want %s", i, f.CreatedDate, f.CreatedAt, want)
		}
		if f.ID != int64(len(first)-i) {
			t.Errorf("review %d: id %d; ids go from 1, oldest first", i, f.ID)
		}
		if f.Text == "" && f.AnswerText == "" && f.State != "new" || f.WasViewed != 1 || f.Photos != "[]" || string(f.Video) != "null" {
			t.Errorf("review %d: defaults %+v", i, f)
		}
	}
	if first[3].UserName != "Ира" || first[0].UserName != "" {
		t.Errorf("user names %q, %q: a given name stays, a missing one is empty (anonymous)", first[3].UserName, first[0].UserName)
	}
	// A product the scenario has keeps its fields; a filled one is one of its products.
	scenario := fetchAll(t, a, "", 100)
	byNm := make(map[int64]mock.Feedback)
	for _, f := range scenario {
		byNm[f.NmID] = f
	}
	for i, f := range first {
		p, ok := byNm[f.NmID]
		if !ok || p.ImtID != f.ImtID || p.ProductName != f.ProductName || p.SupplierArticle != f.SupplierArticle || p.BrandName != f.BrandName {
			t.Errorf("review %d: product %d %q %q %q is not the scenario's (%+v)", i, f.NmID, f.ProductName, f.SupplierArticle, f.BrandName, p)
		}
	}
	// Appended reviews without dates come a minute after the newest, the
	// first newest, numbered after the scenario's.
	var res mock.SeedResult
	decodeOK(t, "append", putData(t, a, "s3", "application/json", `{"mode":"append","reviews":[{"product_valuation":1},{"product_valuation":2}]}`), &res)
	top := list(t, inSession(a, "s3"), "limit=3").Feedbacks
	newest, _ := time.Parse(time.DateTime, scenario[0].CreatedDate)
	if top[0].ProductValuation != 1 || top[1].ProductValuation != 2 || top[2].ID != scenario[0].ID ||
		top[1].CreatedDate != newest.Add(time.Minute).Format(time.DateTime) || top[0].CreatedDate != newest.Add(2*time.Minute).Format(time.DateTime) {
		t.Errorf("appended: %v %v, then %v", top[0].CreatedDate, top[1].CreatedDate, top[2].ID)
	}
	if res.FirstID != int64(len(scenario)+1) || res.LastID != int64(len(scenario)+2) || top[0].ID != res.LastID {
		t.Errorf("appended ids %d..%d, newest %d; want after %d", res.FirstID, res.LastID, top[0].ID, len(scenario))
	}
}

// YAML and JSON bodies are one document: a reviews fixture can be sent as
// it is, and gives what the same JSON gives.
func TestSeedYAML(t *testing.T) {
	h := newServer(t, mock.Options{})
	yml := `kind: reviews
mode: replace
reviews:
  - feedback_id: Y1
    product_valuation: 2
    created_date: 2026-05-01 10:00:00   # unquoted: a YAML timestamp
    nm_id: 0x10                          # 16
    text: |
      Две строки
      текста
    valuation_tags: [качество]
    video: {previewImage: "https://cdn.example/v1.jpg", link: "https://cdn.example/v1.m3u8", durationSec: 12}
    was_viewed: 0
  - {feedback_id: Y2, product_valuation: 5, answer_text: "Спасибо", user_name: Ира}
`
	jsonBody := `{"kind":"reviews","mode":"replace","reviews":[
  {"feedback_id":"Y1","product_valuation":2,"created_date":"2026-05-01 10:00:00","nm_id":16,"text":"Две строки\nтекста\n",
   "valuation_tags":["качество"],"video":{"link":"https://cdn.example/v1.m3u8","previewImage":"https://cdn.example/v1.jpg","durationSec":12},"was_viewed":0},
  {"feedback_id":"Y2","product_valuation":5,"answer_text":"Спасибо","user_name":"Ира"}]}`
	for _, ct := range []string{"application/yaml", "application/x-yaml", "text/yaml; charset=utf-8"} {
		decodeOK(t, ct, putData(t, h, "y", ct, yml), new(mock.SeedResult))
		fromYAML := fetchAll(t, inSession(h, "y"), "", 100)
		decodeOK(t, "JSON", putData(t, h, "y", "application/json", jsonBody), new(mock.SeedResult))
		sameRecords(t, ct+" vs JSON", fromYAML, fetchAll(t, inSession(h, "y"), "", 100))
		f := fromYAML[1]
		if f.NmID != 16 || f.Text != "Две строки\nтекста\n" || f.ValuationTags != `["качество"]` || string(f.Video) != `{"previewImage":"https://cdn.example/v1.jpg","link":"https://cdn.example/v1.m3u8","durationSec":12}` || f.WasViewed != 0 {
			t.Errorf("%s: %+v", ct, f)
		}
	}
	// A shipped fixture file is a body as it is.
	fx, err := fixtures.FS.ReadFile("reviews/edge-cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var res mock.SeedResult
	decodeOK(t, "edge-cases.yaml", putData(t, h, "fx", "application/yaml", string(fx)), &res)
	if res.Mode != mock.SeedReplace || res.Added != 9 || res.Total != 9 {
		t.Errorf("the edge cases fixture: %+v", res)
	}
	edge := fetchAll(t, h, "nm_id=555000111", 100) // the default session: the same fixture from the scenario
	seeded := fetchAll(t, inSession(h, "fx"), "", 100)
	for i := range edge {
		edge[i].ID, seeded[i].ID = 0, 0
	}
	sameRecords(t, "the fixture seeded vs in the scenario", seeded, edge)
}

// Limits: the body's size, reviews a request, a session (in all its
// scenarios) and all sessions' memory; each is refused past it with
// nothing changed, and room comes back with DELETE.
func TestSeedLimits(t *testing.T) {
	h := newServer(t, mock.Options{})
	const js = "application/json"
	big := `{"reviews":[{"product_valuation":5,"text":"` + strings.Repeat("x", mock.MaxSeedBodyBytes) + `"}]}`
	checkError(t, "body over 8 MiB", putData(t, h, "l", js, big), 413, mock.CodePayloadTooLarge, "")
	// Without a Content-Length, the reading stops at the limit.
	req := httptest.NewRequest(http.MethodPut, "/__mock/data?session=l", strings.NewReader(big))
	req.Header.Set("Content-Type", js)
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Errorf("a chunked body over the limit: %d", rec.Code)
	}

	many := func(n int, text string) string {
		return `{"mode":"append","reviews":[` + strings.TrimSuffix(strings.Repeat(`{"product_valuation":5,"text":"`+text+`"},`, n), ",") + `]}`
	}
	var res mock.SeedResult
	decodeOK(t, "9,999 in one request", putData(t, h, "l", js, many(mock.MaxSeedReviews-1, "")), &res)
	decodeOK(t, "one more", putData(t, h, "l", js, many(1, "")), &res)
	if res.Seeded != mock.MaxSeedReviews {
		t.Fatalf("seeded %d", res.Seeded)
	}
	before := counts(t, h, mock.HeaderSession, "l")
	checkError(t, "one past the session's", putData(t, h, "l", js, many(1, "")), 409, mock.CodeTooManyReviews, "reviews")
	checkError(t, "in another scenario of the session", do(t, h, http.MethodPut, "/__mock/data?session=l&scenario=en-shop", many(1, ""), "Content-Type", js), 409, mock.CodeTooManyReviews, "reviews")
	if c := counts(t, h, mock.HeaderSession, "l"); c != before {
		t.Errorf("a refused request changed the counts: %+v, then %+v", before, c)
	}
	// Replacing them all is within the limit again.
	decodeOK(t, "replace", putData(t, h, "l", js, `{"reviews":[{"product_valuation":1}]}`), &res)
	if res.Seeded != 1 {
		t.Errorf("after replace: %+v", res)
	}

	// All sessions' memory: 4 MiB here, some 5 sessions of 200 reviews
	// of 2,000 characters.
	hm := newServer(t, mock.Options{MaxSeedBytes: 4 << 20})
	text := strings.Repeat("ж", 2000)
	full := -1
	for i := range 20 {
		r := putData(t, hm, fmt.Sprintf("m%d", i), js, many(200, text))
		if r.status == http.StatusConflict {
			checkError(t, "over the memory", r, 409, mock.CodeTooManyReviews, "reviews")
			full = i
			break
		}
		decodeOK(t, "seed", r, &res)
	}
	if full < 1 {
		t.Fatalf("the memory bound refused at session %d", full)
	}
	if c := counts(t, hm, mock.HeaderSession, fmt.Sprintf("m%d", full)); c.Total != 1009 {
		t.Errorf("the refused session has %d reviews, not the scenario's", c.Total)
	}
	var del struct {
		Session string `json:"session"`
		Removed int    `json:"removed"`
	}
	decodeOK(t, "DELETE m0", do(t, hm, http.MethodDelete, "/__mock/data?session=m0", ""), &del)
	if del.Removed != 200 {
		t.Errorf("DELETE removed %d", del.Removed)
	}
	decodeOK(t, "room again", putData(t, hm, fmt.Sprintf("m%d", full), js, many(200, text)), &res)
	if v := seedBytes(t, hm); v == "0" {
		t.Error("replymock_seed_bytes is 0 with reviews seeded")
	}
	decodeOK(t, "DELETE all", do(t, hm, http.MethodDelete, "/__mock/data?session=*", ""), &del)
	if v := seedBytes(t, hm); v != "0" {
		t.Errorf("replymock_seed_bytes is %s with nothing seeded", v)
	}
}

// Seeded data belongs to the session and scenario: another scenario (by
// a switch or a header) shows its own; a reset keeps the seeds and
// restores settings; DELETE of one session leaves the others'; an evicted
// session frees its seeds.
func TestSeedSessionsAndScenarios(t *testing.T) {
	h := newServer(t, mock.Options{MaxSessions: 3})
	const js = "application/json"
	var res mock.SeedResult
	decodeOK(t, "seed a", putData(t, h, "a", js, `{"reviews":[{"product_valuation":1},{"product_valuation":1}]}`), &res)
	if res.Scenario != "default" || res.Session != "a" {
		t.Errorf("answer %+v", res)
	}
	total := func(sid string, header ...string) int {
		return counts(t, h, append([]string{mock.HeaderSession, sid}, header...)...).Total
	}
	if total("a") != 2 || total("b") != 1009 || total("a", mock.HeaderScenario, "all-unanswered") != 500 {
		t.Fatalf("a %d, b %d, a in all-unanswered %d", total("a"), total("b"), total("a", mock.HeaderScenario, "all-unanswered"))
	}
	admin(t, h, "PUT", "/__mock/scenario?session=a", `{"name":"empty-shop"}`)
	if n := total("a"); n != 0 {
		t.Errorf("a in empty-shop: %d", n)
	}
	decodeOK(t, "seed a in empty-shop", putData(t, h, "a", js, `{"mode":"append","reviews":[{"product_valuation":4}]}`), &res)
	if res.Scenario != "empty-shop" || res.Total != 1 || res.FirstID != 1 {
		t.Errorf("append to an empty shop: %+v", res)
	}
	admin(t, h, "PUT", "/__mock/scenario?session=a", `{"name":"default"}`)
	if n := total("a"); n != 2 {
		t.Errorf("a back in default: %d", n)
	}
	var d mock.DataSummary
	decodeOK(t, "GET data", get(t, h, "/__mock/data?session=a"), &d)
	if d.Seeded == nil || *d.Seeded != (mock.SeedInfo{Mode: "replace", Count: 2}) || d.Total != 2 || d.ByRating[0].Unanswered != 2 {
		t.Errorf("GET /__mock/data: %+v", d)
	}
	decodeOK(t, "GET data of a scenario", get(t, h, "/__mock/data?session=a&scenario=empty-shop"), &d)
	if d.Seeded == nil || *d.Seeded != (mock.SeedInfo{Mode: "append", Count: 1}) {
		t.Errorf("GET /__mock/data?scenario=empty-shop: %+v", d.Seeded)
	}
	// A reset keeps the seeds, settings go back.
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"calm"}]}`, "Content-Type", js, mock.HeaderSession, "a")
	admin(t, h, "POST", "/__mock/reset?session=a", "")
	var st mock.Settings
	decodeOK(t, "settings", get(t, h, "/api/v1/settings/ai", mock.HeaderSession, "a"), &st)
	if total("a") != 2 || st.Feedback[0].Tone == "calm" {
		t.Errorf("after a reset: %d reviews, tone %q", total("a"), st.Feedback[0].Tone)
	}
	admin(t, h, "POST", "/__mock/reset", "")
	if total("a") != 2 {
		t.Errorf("after a reset of all: %d reviews", total("a"))
	}
	// DELETE: every scenario of the session, no other session.
	decodeOK(t, "seed b", putData(t, h, "b", js, `{"reviews":[]}`), &res)
	var del struct {
		Session string `json:"session"`
		Removed int    `json:"removed"`
	}
	decodeOK(t, "DELETE a", do(t, h, http.MethodDelete, "/__mock/data?session=a", ""), &del)
	if del.Removed != 3 || del.Session != "a" || total("a") != 1009 || total("a", mock.HeaderScenario, "empty-shop") != 0 || total("b") != 0 {
		t.Errorf("DELETE a: %+v; a %d, b %d", del, total("a"), total("b"))
	}
	decodeOK(t, "DELETE nobody", do(t, h, http.MethodDelete, "/__mock/data?session=nobody", ""), &del)
	if del.Removed != 0 {
		t.Errorf("DELETE of a session without seeds: %+v", del)
	}
	// The default session too, without ?session=.
	decodeOK(t, "seed default", putData(t, h, "default", js, `{"reviews":[{"product_valuation":3}]}`), &res)
	if c := counts(t, h); c.Total != 1 {
		t.Errorf("the default session: %+v", c)
	}
	decodeOK(t, "DELETE default", do(t, h, http.MethodDelete, "/__mock/data", ""), &del)
	if c := counts(t, h); c.Total != 1009 || del.Session != "default" {
		t.Errorf("after DELETE of the default session: %+v", c)
	}
	// Evicted sessions free what they seeded.
	h.ClearSeeded(mock.AllSessions)
	decodeOK(t, "seed e1", putData(t, h, "e1", js, `{"reviews":[{"product_valuation":3,"text":"`+strings.Repeat("x", 5000)+`"}]}`), &res)
	for i := range 4 { // sessions that write: those that only read would go first
		do(t, h, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"warm"}]}`,
			"Content-Type", "application/json", mock.HeaderSession, fmt.Sprintf("other%d", i))
	}
	if got := seedBytes(t, h); got != "0" {
		t.Errorf("after e1 was evicted, %v bytes seeded", got)
	}
}

// seedBytes reads replymock_seed_bytes.
func seedBytes(t *testing.T, h http.Handler) string {
	t.Helper()
	for _, line := range strings.Split(string(get(t, h, "/__mock/metrics").body), "\n") {
		if v, ok := strings.CutPrefix(line, "replymock_seed_bytes "); ok {
			return v
		}
	}
	t.Fatal("no replymock_seed_bytes")
	return ""
}

// Writes to /__mock/data follow the admin API's rules: read-only, the
// admin token, browsers' origins; a refused one changes nothing.
func TestSeedAdminRules(t *testing.T) {
	body := `{"reviews":[{"product_valuation":1}]}`
	ro := newServer(t, mock.Options{ReadOnly: true})
	checkError(t, "read-only PUT", putData(t, ro, "a", "application/json", body), 403, mock.CodeForbidden, "")
	checkError(t, "read-only DELETE", do(t, ro, http.MethodDelete, "/__mock/data?session=a", ""), 403, mock.CodeForbidden, "")
	tok := newServer(t, mock.Options{AdminToken: "s3cret"})
	checkError(t, "no token", putData(t, tok, "a", "application/json", body), 401, mock.CodeUnauthorized, "")
	decodeOK(t, "token", putData(t, tok, "a", "application/json", body, "X-Mock-Admin-Token", "s3cret"), new(mock.SeedResult))
	h := newServer(t, mock.Options{})
	checkError(t, "another site's page", putData(t, h, "a", "application/json", body, "Origin", "https://evil.example"), 403, mock.CodeForbidden, "Origin")
	checkError(t, "another site's DELETE", do(t, h, http.MethodDelete, "/__mock/data?session=a", "", "Origin", "https://evil.example"), 403, mock.CodeForbidden, "Origin")
	if c := counts(t, h, mock.HeaderSession, "a"); c.Total != 1009 {
		t.Errorf("a refused PUT seeded: %+v", c)
	}
	decodeOK(t, "a page on this machine", putData(t, h, "a", "application/json", body, "Origin", "http://localhost:5173"), new(mock.SeedResult))
	pre := do(t, h, http.MethodOptions, "/__mock/data", "", "Origin", "http://localhost:5173", "Access-Control-Request-Method", "PUT")
	if allow := pre.header.Get("Access-Control-Allow-Methods"); !strings.Contains(allow, "PUT") || !strings.Contains(allow, "DELETE") {
		t.Errorf("preflight allows %q", allow)
	}
}

// A living shop keeps living on seeded data, replaced or added to:
// reviews arrive on top of it and the engine answers the seeded ones by
// the settings; seeding again starts the shop again on the new data.
func TestSeedLivingShop(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "demo-frozen"})
	const js = "application/json"
	recs := `[{"product_valuation":5,"text":"zqx5","created_date":"2026-11-15 20:00:00"},{"product_valuation":1,"text":"zqx1","created_date":"2026-11-15 19:00:00"}]`
	for _, mode := range []string{mock.SeedReplace, mock.SeedAppend} {
		sid := "shop-" + mode
		var res mock.SeedResult
		decodeOK(t, "seed", putData(t, h, sid, js, `{"mode":"`+mode+`","reviews":`+recs+`}`), &res)
		start := counts(t, h, mock.HeaderSession, sid)
		do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"reply_mode":"auto"}]}`, "Content-Type", js, mock.HeaderSession, sid)
		var clock mock.Clock
		decodeOK(t, "advance", admin(t, h, "POST", "/__mock/clock?session="+sid, `{"advance":"1h"}`), &clock)
		after := counts(t, h, mock.HeaderSession, sid)
		if after.Total != start.Total+30 {
			t.Errorf("%s: %d reviews, then %d after an hour; want 30 arrivals", mode, start.Total, after.Total)
		}
		seeded := fetchAll(t, inSession(h, sid), "search=zqx5", 100)
		if len(seeded) != 1 || seeded[0].AnswerText == "" || seeded[0].State != "done" {
			t.Errorf("%s: the seeded 5-star review was not answered: %+v", mode, seeded)
		}
		if bad := fetchAll(t, inSession(h, sid), "rating=1&search=zqx1", 100); len(bad) != 1 || bad[0].AnswerText != "" {
			t.Errorf("%s: the 1-star review: %+v", mode, bad)
		}
		newest := list(t, inSession(h, sid), "limit=1").Feedbacks[0]
		if newest.ID <= res.LastID {
			t.Errorf("%s: the newest review has id %d, not after the seeded ones (%d)", mode, newest.ID, res.LastID)
		}
		if mode == mock.SeedReplace && after.Total != 32 {
			t.Errorf("replace: %d reviews, want the 2 seeded and 30 arrivals", after.Total)
		}
		// Seeding again starts the shop again: no arrivals, its clock back.
		decodeOK(t, "seed again", putData(t, h, sid, js, `{"mode":"`+mode+`","reviews":[]}`), &res)
		if c := counts(t, h, mock.HeaderSession, sid); mode == mock.SeedReplace && c.Total != 0 {
			t.Errorf("replace with none: %+v", c)
		}
	}
}

// Sessions seeding and listing in parallel each see their own data
// (run with -race).
func TestSeedConcurrent(t *testing.T) {
	h := newServer(t, mock.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			sid := fmt.Sprintf("c%d", g)
			srv := inSession(h, sid)
			for round := range 6 {
				n := 1 + (g+round)%5
				mode := []string{"replace", "append"}[round%2]
				recs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf(`{"product_valuation":%d},`, 1+g%5), n), ",")
				req := httptest.NewRequest(http.MethodPut, "/__mock/data?session="+sid, strings.NewReader(`{"mode":"`+mode+`","reviews":[`+recs+`]}`))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				var res mock.SeedResult
				if err := decodeQuiet(rec.Body.Bytes(), &res); err != nil {
					errs <- err
					return
				}
				rec = httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?counts_only=1&rating=%d", 1+g%5), nil))
				var c countsData
				if err := decodeQuiet(rec.Body.Bytes(), &c); err != nil {
					errs <- err
					return
				}
				if c.Total != res.Seeded {
					errs <- fmt.Errorf("%s round %d: %d of its rating listed, %d seeded", sid, round, c.Total, res.Seeded)
				}
			}
			if g%2 == 0 {
				h.ClearSeeded(sid)
			}
		})
	}
	// Meanwhile: resets, deletes of other sessions and switches.
	for i := range 20 {
		h.Reset(fmt.Sprintf("c%d", i%8)) // keeps the seeds
		h.ClearSeeded(fmt.Sprintf("x%d", i))
		counts(t, h)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Any body, JSON or YAML: no panic, the envelope, and a refused one
// changes nothing; an accepted one is what the list shows.
func FuzzSeedBody(f *testing.F) {
	for _, seed := range []struct {
		yaml bool
		body string
	}{
		{false, `{"mode":"append","reviews":[{"product_valuation":5,"text":"Плед","nm_id":555000111}]}`},
		{false, `{"reviews":[{"product_valuation":1,"created_date":"2026-01-01 10:00:00","video":{"id":"v"},"photos":["a"]},{"product_valuation":2,"feedback_id":"x"}]}`},
		{false, `{"mode":"replace","reviews":[{"product_valuation":3,"created_at":"2026-01-01 09:00:00","created_date":"2026-01-01 10:00:00"}]}`},
		{false, `{"reviews":[{"product_valuation":4,"text":"\ud83d\ude00 \u0000"}]}`},
		{true, "kind: reviews\nreviews:\n  - {product_valuation: 5, nm_id: 0x10, created_date: 2026-05-01 10:00:00}\n"},
		{true, "reviews:\n  - &a {product_valuation: 5}\n  - *a\n"},
		{true, "mode: append\nreviews: [{product_valuation: 2, valuation_tags: [a, 1, true, ~]}]\n"},
	} {
		f.Add(seed.yaml, []byte(seed.body))
	}
	h, err := mock.New(mock.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, yaml bool, body []byte) {
		ct := "application/json"
		if yaml {
			ct = "application/yaml"
		}
		listing := func() []byte {
			rec := serveRaw(h, withHeader(httptest.NewRequest(http.MethodGet, "/api/v1/feedbacks?limit=100", nil), mock.HeaderSession, "fuzz"))
			return rec.Body.Bytes()
		}
		before := listing()
		req := withHeader(httptest.NewRequest(http.MethodPut, "/__mock/data?session=fuzz", bytes.NewReader(body)), "Content-Type", ct)
		rec := serveRaw(h, req)
		checkEnvelope(t, "PUT /__mock/data", rec.Code, rec.Body.Bytes())
		if rec.Code >= 400 {
			if after := listing(); !bytes.Equal(before, after) {
				t.Fatalf("a refused body changed the list: %s", body)
			}
			return
		}
		var res mock.SeedResult
		if err := decodeQuiet(rec.Body.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		var c countsData
		rec = serveRaw(h, withHeader(httptest.NewRequest(http.MethodGet, "/api/v1/feedbacks?counts_only=1", nil), mock.HeaderSession, "fuzz"))
		if err := decodeQuiet(rec.Body.Bytes(), &c); err != nil || c.Total != res.Total {
			t.Fatalf("seeded %+v, the list counts %+v (%v)", res, c, err)
		}
		h.ClearSeeded("fuzz")
	})
}

func withHeader(r *http.Request, name, value string) *http.Request {
	r.Header.Set(name, value)
	return r
}

// The control panel tells the default session's seeded reviews apart,
// and an answer moderation rejected from one sent.
func TestPanelShowsSeeded(t *testing.T) {
	ctx := newBrowser(t)
	h := newServer(t, mock.Options{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	rejected, open, created := "rejected", "new", "2030-01-01 12:00:00" // the newest
	seed := []mock.SeedReview{{ProductValuation: 1}, {ProductValuation: 2},
		{ProductValuation: 2, Text: "Треснула крышка", AnswerText: "Жаль, заменим", AnswerState: &rejected, State: &open, CreatedDate: &created}}
	if _, err := h.SeedReviews("", "", mock.SeedAppend, seed); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,012" || s == "1012" }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#seeded", func(s string) bool { return strings.Contains(s, "3 seeded, added to the scenario's") }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#sample", func(s string) bool {
		return strings.Contains(s, "★★☆☆☆ Jan 1, 2030") && strings.Contains(s, "↳ rejected by moderation: Жаль, заменим")
	}); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "panel-seeded")
}

// A refused PUT creates no session: at the session limit, it evicts
// nobody, and the session seeded before keeps its reviews.
func TestSeedRefusedCreatesNoSession(t *testing.T) {
	h := newServer(t, mock.Options{MaxSessions: 2})
	decodeOK(t, "seed a", putData(t, h, "a", "application/json", `{"reviews":[{"product_valuation":1}]}`), new(mock.SeedResult))
	counts(t, h) // the default session: the limit is reached
	for i := range 5 {
		checkError(t, "refused", putData(t, h, fmt.Sprintf("new%d", i), "application/json", `{"reviews":[{"product_valuation":9}]}`), 400, mock.CodeInvalidBody, "reviews[0].product_valuation")
	}
	var d mock.DataSummary
	decodeOK(t, "GET data", get(t, h, "/__mock/data?session=a"), &d)
	if d.Seeded == nil || d.Total != 1 {
		t.Errorf("session a after refused PUTs of new sessions: %+v", d)
	}
}
