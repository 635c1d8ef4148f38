package probe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// Each server here is replymock with one rule broken. The probe must
// find that rule, and only it, differing.
func TestBrokenServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(http.Handler) http.Handler
		writes bool
		rule   string
		detail string   // in the rule's detail
		also   []string // other rules that differ too
	}{
		{"counts that disagree", countsDisagree, false, "counts.match-list", "counts_only gives total 1010, the list (no filter) total 1009", nil},
		{"oldest first", oldestFirst, false, "list.order", "comes before the newer", nil},
		{"limit 500 accepted", limit500, false, "list.limit-bounds", "limit=101: answered 200 with 100 records (accepted), want 400 invalid_parameter (field limit)", nil},
		{"overlapping pages", overlappingPages, false, "list.walk", "pages overlap", nil},
		{"a record skipped at each page", skippingPages, false, "list.walk", "the page at offset", nil},
		{"case-sensitive search", caseSensitiveSearch, false, "filter.search", "case is not folded", nil},
		{"search folds Latin only", asciiFoldingSearch, false, "filter.search", "case is not folded", nil},
		{"search not trimmed", untrimmedSearch, false, "filter.search", "the term is not trimmed", nil},
		{"a blank search finds nothing", blankSearchFindsNothing, false, "filter.search", "an empty search is no filter", nil},
		// filter.combined searches a word of the texts, so it differs too.
		{"search skips text", searchSkipping("text"), false, "filter.search", "though the first page has it in a text", []string{"filter.combined"}},
		{"search skips pros", searchSkipping("pros"), false, "filter.search", "the pros of", nil},
		{"search skips cons", searchSkipping("cons"), false, "filter.search", "the cons of", nil},
		{"search skips supplier_article", searchSkipping("supplier_article"), false, "filter.search", "the supplier_article of", nil},
		{"search skips nm_id", searchSkipping("nm_id"), false, "filter.search", "nm_id is not searched", nil},
		{"search matches whole words", wholeWordSearch, false, "filter.search", "not for a part of a word", nil},
		{"search matches nm_id whole", wholeNmIDSearch, false, "filter.search", "the nm_id of", nil},
		{"search limit in bytes", searchBytesLimited, false, "filter.search", "a search of 200 Cyrillic letters (400 bytes): answered 400, want 200", nil},
		{"search limit before trimming", searchLimitedUntrimmed, false, "filter.search", "a search of 200 letters with 3 spaces each side: answered 400, want 200", nil},
		{"search of any length", searchUnlimited, false, "errors.malformed", "search=", nil},
		{"date_to exclusive", dateToExclusive, false, "filter.dates", "want 200", nil},
		{"repeated parameter: the last wins", lastRepeatedWins, false, "errors.repeated", "rating=1&rating=2: answered 200", nil},
		{"unknown paths answer an HTML page", unknownPathHTML, false, "errors.unknown-path", "answered 200 with HTML", nil},
		{"a wrong method is 404", wrongMethod404, false, "errors.wrong-method", "answered 404 not_found, want 405 method_not_allowed", nil},
		{"settings ordered 5..1", settingsReversed, false, "shape.settings", "not ordered by rating 1..5", nil},
		{"null past the end", nullPastEnd, false, "list.offset-past-end", `"feedbacks" is null, want []`, nil},
		{"counts_only applies answered", countsApplyAnswered, false, "counts.params", "counts_only applies answered", nil},
		{"default limit 10", defaultLimit10, false, "list.default-limit", "no limit: 10 records, want 20", nil},
		{"rating=6 gives an empty list", lenientRating, false, "errors.malformed", "rating=6: answered 200 with 0 records (accepted)", nil},
		{"a PATCH applied in parts", partialPatch, true, "writes.atomic", "a refused PATCH changed the settings", nil},
		{"use_unified_settings ignored", unifiedIgnored, true, "writes.unified", "switch on from rating 2", nil},
		{"photos as plain URLs", plainPhotoURLs, false, "shape.records", `.photos holds [0] "http://127.0.0.1:8080/__mock/media/photos/`, nil},
		{"video with snake_case keys", snakeCaseVideo, false, "shape.records", ".video is an object without previewImage", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newMock(t, mock.Options{})
			before := settingsOf(t, s)
			rep, err := run(t, serve(t, tc.break_(s)), func(cfg *probe.Config) { cfg.AllowWrites = tc.writes })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, res := range rep.Results {
				want := probe.Holds
				if res.Rule == tc.rule || slices.Contains(tc.also, res.Rule) {
					want = probe.Differs
					if res.Rule == tc.rule && !strings.Contains(res.Detail, tc.detail) {
						t.Errorf("%s: detail %q, want it to say %q", res.Rule, res.Detail, tc.detail)
					}
				}
				if res.Status != want {
					t.Errorf("%s: %s, want %s: %s", res.Rule, res.Status, want, res.Detail)
				}
			}
			if after := settingsOf(t, s); after != before {
				t.Errorf("settings were not restored:\nbefore %s\nafter  %s", before, after)
			}
			if t.Failed() {
				t.Log(table(rep))
			}
		})
	}
}

// isList reports whether r asks for the review list (not counts).
func isList(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/api/v1/feedbacks" && r.URL.Query().Get("counts_only") != "1"
}

func isCounts(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/api/v1/feedbacks" && r.URL.Query().Get("counts_only") == "1"
}

// call asks inner for r with another query.
func call(inner http.Handler, r *http.Request, rawQuery string) *httptest.ResponseRecorder {
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = rawQuery
	rec := httptest.NewRecorder()
	inner.ServeHTTP(rec, r2)
	return rec
}

// editData serves r from inner, and, when the answer is a 200 and when
// applies, data changed by edit.
func editData(inner http.Handler, applies func(*http.Request) bool, edit func(r *http.Request, data map[string]any) any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !applies(r) {
			inner.ServeHTTP(w, r)
			return
		}
		rec := call(inner, r, r.URL.RawQuery)
		if rec.Code != http.StatusOK {
			copyAnswer(w, rec)
			return
		}
		writeData(w, edit(r, decodeData(rec.Body.Bytes())))
	})
}

func num(v any) int {
	n, err := strconv.Atoi(string(v.(json.Number)))
	if err != nil {
		panic(err)
	}
	return n
}

// intParam is a query parameter as a number, or def.
func intParam(q url.Values, name string, def int) int {
	if n, err := strconv.Atoi(q.Get(name)); err == nil {
		return n
	}
	return def
}

func countsDisagree(inner http.Handler) http.Handler {
	return editData(inner, isCounts, func(_ *http.Request, d map[string]any) any {
		d["total"] = num(d["total"]) + 1
		d["unanswered"] = num(d["unanswered"]) + 1
		return d
	})
}

// oldestFirst serves the list oldest first, paging consistently.
func oldestFirst(inner http.Handler) http.Handler {
	return editData(inner, isList, func(r *http.Request, d map[string]any) any {
		q := r.URL.Query()
		total, limit, offset := num(d["total"]), intParam(q, "limit", 20), intParam(q, "offset", 0)
		end := total - offset
		start := max(0, end-limit)
		recs := []any{}
		if end > 0 {
			q.Set("offset", strconv.Itoa(start))
			q.Set("limit", strconv.Itoa(end-start))
			recs = decodeData(call(inner, r, q.Encode()).Body.Bytes())["feedbacks"].([]any)
			slices.Reverse(recs)
		}
		d["feedbacks"], d["limit"], d["offset"] = recs, limit, offset
		return d
	})
}

// limit500 accepts limits up to 500 (and serves 100).
func limit500(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if l := intParam(q, "limit", 0); isList(r) && l > 100 && l <= 500 {
			q.Set("limit", "100")
			d := decodeData(call(inner, r, q.Encode()).Body.Bytes())
			d["limit"] = l
			writeData(w, d)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// shiftedPages serves each page inside the list from offset+shift.
func shiftedPages(inner http.Handler, shift int) http.Handler {
	return editData(inner, isList, func(r *http.Request, d map[string]any) any {
		q := r.URL.Query()
		total, offset := num(d["total"]), intParam(q, "offset", 0)
		if offset <= 0 || offset >= total || offset+shift >= total {
			return d
		}
		q.Set("offset", strconv.Itoa(offset+shift))
		d2 := decodeData(call(inner, r, q.Encode()).Body.Bytes())
		d2["offset"] = offset
		return d2
	})
}

func overlappingPages(inner http.Handler) http.Handler { return shiftedPages(inner, -1) }
func skippingPages(inner http.Handler) http.Handler    { return shiftedPages(inner, 1) }

// dateToExclusive reads date_to as "before that day".
func dateToExclusive(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if d, err := time.Parse(time.DateOnly, q.Get("date_to")); err == nil && r.URL.Path == "/api/v1/feedbacks" {
			q.Set("date_to", d.AddDate(0, 0, -1).Format(time.DateOnly))
			copyAnswer(w, call(inner, r, q.Encode()))
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// lastRepeatedWins takes the last of a repeated parameter.
func lastRepeatedWins(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		repeated := false
		for k, v := range q {
			if len(v) > 1 {
				q[k] = v[len(v)-1:]
				repeated = true
			}
		}
		if repeated {
			copyAnswer(w, call(inner, r, q.Encode()))
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// unknownPathHTML answers every unknown path with a web page, as a
// single-page app's fallback does.
func unknownPathHTML(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/feedbacks" && r.URL.Path != "/api/v1/settings/ai" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html><html><body><div id=app></div></body></html>")
			return
		}
		inner.ServeHTTP(w, r)
	})
}

func wrongMethod404(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/feedbacks" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"success":false,"data":null,"error":{"code":"not_found","message":"no such route"}}`)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

func settingsReversed(inner http.Handler) http.Handler {
	applies := func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Path == "/api/v1/settings/ai" }
	return editData(inner, applies, func(_ *http.Request, d map[string]any) any {
		slices.Reverse(d["feedback"].([]any))
		return d
	})
}

func nullPastEnd(inner http.Handler) http.Handler {
	return editData(inner, isList, func(_ *http.Request, d map[string]any) any {
		if fb := d["feedbacks"].([]any); len(fb) == 0 {
			d["feedbacks"] = nil
		}
		return d
	})
}

// plainPhotoURLs lists photos as their full-size URLs only.
func plainPhotoURLs(inner http.Handler) http.Handler {
	return editData(inner, isList, func(_ *http.Request, d map[string]any) any {
		for _, f := range d["feedbacks"].([]any) {
			rec := f.(map[string]any)
			var photos []mock.Photo
			json.Unmarshal([]byte(rec["photos"].(string)), &photos)
			urls := []string{}
			for _, p := range photos {
				urls = append(urls, p.FullSize)
			}
			b, _ := json.Marshal(urls)
			rec["photos"] = string(b)
		}
		return d
	})
}

// snakeCaseVideo writes the video object's keys in snake case.
func snakeCaseVideo(inner http.Handler) http.Handler {
	return editData(inner, isList, func(_ *http.Request, d map[string]any) any {
		for _, f := range d["feedbacks"].([]any) {
			if v, ok := f.(map[string]any)["video"].(map[string]any); ok {
				v["preview_image"], v["duration_sec"] = v["previewImage"], v["durationSec"]
				delete(v, "previewImage")
				delete(v, "durationSec")
			}
		}
		return d
	})
}

// countsApplyAnswered filters the counts by answered, as a list would.
func countsApplyAnswered(inner http.Handler) http.Handler {
	return editData(inner, isCounts, func(r *http.Request, d map[string]any) any {
		switch r.URL.Query().Get("answered") {
		case "1":
			return map[string]any{"total": d["answered"], "unanswered": 0, "answered": d["answered"]}
		case "0":
			return map[string]any{"total": d["unanswered"], "unanswered": d["unanswered"], "answered": 0}
		}
		return d
	})
}

func defaultLimit10(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); isList(r) && !q.Has("limit") {
			q.Set("limit", "10")
			copyAnswer(w, call(inner, r, q.Encode()))
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// lenientRating answers a rating out of range with an empty list.
func lenientRating(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, err := strconv.Atoi(r.URL.Query().Get("rating")); err == nil && (n < 1 || n > 5) && isList(r) {
			writeData(w, map[string]any{"feedbacks": []any{}, "total": 0, "limit": 20, "offset": 0})
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// patchBody reads a PATCH's JSON body, or nil when r is not a PATCH of
// the settings.
func patchBody(r *http.Request) map[string]any {
	if r.Method != http.MethodPatch || r.URL.Path != "/api/v1/settings/ai" {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	if json.Unmarshal(b, &body) != nil {
		return nil
	}
	return body
}

// sendPatch sends body to inner as a PATCH like r.
func sendPatch(inner http.Handler, r *http.Request, body any) *httptest.ResponseRecorder {
	b, _ := json.Marshal(body)
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	rec := httptest.NewRecorder()
	inner.ServeHTTP(rec, r2)
	return rec
}

// partialPatch applies a PATCH one part at a time: a bad part fails
// after the good ones before it were saved.
func partialPatch(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := patchBody(r)
		if body == nil {
			inner.ServeHTTP(w, r)
			return
		}
		var parts []map[string]any
		if fb, ok := body["feedback"].([]any); ok {
			for _, el := range fb {
				parts = append(parts, map[string]any{"feedback": []any{el}})
			}
		}
		if qu, ok := body["question"]; ok {
			parts = append(parts, map[string]any{"question": qu})
		}
		if len(parts) == 0 {
			parts = append(parts, body)
		}
		var rec *httptest.ResponseRecorder
		for _, p := range parts {
			rec = sendPatch(inner, r, p)
			if rec.Code != http.StatusOK {
				break
			}
		}
		copyAnswer(w, rec)
	})
}

// unifiedIgnored drops use_unified_settings from every PATCH.
func unifiedIgnored(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := patchBody(r)
		if body == nil {
			inner.ServeHTTP(w, r)
			return
		}
		if fb, ok := body["feedback"].([]any); ok {
			for _, el := range fb {
				delete(el.(map[string]any), "use_unified_settings")
			}
		}
		copyAnswer(w, sendPatch(inner, r, body))
	})
}

// htmlSite is a web site, not the API: every path is a page.
func htmlSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Shop</title></head><body>Welcome</body></html>")
	})
}
