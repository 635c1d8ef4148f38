package probe_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The servers here break one part each of the contract's search
// paragraph (DESIGN.md): TestBrokenServers shows the probe finds each.

// searchBy serves each search that applies (by its raw value) with a
// matching of its own: hit tells whether one of a record's fields
// matches the raw value. List and counts agree with each other; the
// other filters are inner's, and so is the check of the value.
func searchBy(inner http.Handler, applies func(raw string) bool, hit func(field, raw string) bool) http.Handler {
	isSearch := func(r *http.Request) bool {
		return r.Method == http.MethodGet && r.URL.Path == "/api/v1/feedbacks" && r.URL.Query().Has("search") && applies(r.URL.Query().Get("search"))
	}
	return editData(inner, isSearch, func(r *http.Request, d map[string]any) any {
		q := r.URL.Query()
		raw := q.Get("search")
		counting := q.Get("counts_only") == "1"
		base := url.Values{}
		for k, v := range q {
			if k != "search" && k != "limit" && k != "offset" && k != "counts_only" && !(counting && k == "answered") {
				base[k] = v
			}
		}
		var hits []any
		for off := 0; ; off += 100 {
			base.Set("offset", strconv.Itoa(off))
			base.Set("limit", "100")
			page := decodeData(call(inner, r, base.Encode()).Body.Bytes())["feedbacks"].([]any)
			for _, item := range page {
				rec := item.(map[string]any)
				found := false
				for _, f := range []string{"text", "pros", "cons", "supplier_article", "nm_id"} {
					v, ok := rec[f].(string)
					if n, isNum := rec[f].(json.Number); isNum {
						v, ok = string(n), true
					}
					found = found || ok && hit(f+"\x00"+v, raw)
				}
				if found {
					hits = append(hits, rec)
				}
			}
			if len(page) < 100 {
				break
			}
		}
		if counting {
			answered := 0
			for _, h := range hits {
				if h.(map[string]any)["answer_text"] != "" {
					answered++
				}
			}
			return map[string]any{"total": len(hits), "unanswered": len(hits) - answered, "answered": answered}
		}
		limit, offset := intParam(q, "limit", 20), intParam(q, "offset", 0)
		page := []any{}
		if offset < len(hits) {
			page = hits[offset:min(offset+limit, len(hits))]
		}
		return map[string]any{"feedbacks": page, "total": len(hits), "limit": limit, "offset": offset}
	})
}

// nonBlank applies to a search with more than spaces.
func nonBlank(raw string) bool { return strings.TrimSpace(raw) != "" }

// value is the field's value of a searchBy hit, and its name.
func value(field string) (name, v string) {
	name, v, _ = strings.Cut(field, "\x00")
	return name, v
}

// caseSensitiveSearch matches search terms as written.
func caseSensitiveSearch(inner http.Handler) http.Handler {
	return searchBy(inner, nonBlank, func(field, raw string) bool {
		_, v := value(field)
		return strings.Contains(v, strings.TrimSpace(raw))
	})
}

// asciiFoldingSearch folds the case of Latin letters only.
func asciiFoldingSearch(inner http.Handler) http.Handler {
	lower := func(s string) string {
		return strings.Map(func(c rune) rune {
			if c >= 'A' && c <= 'Z' {
				return c + 'a' - 'A'
			}
			return c
		}, s)
	}
	return searchBy(inner, nonBlank, func(field, raw string) bool {
		_, v := value(field)
		return strings.Contains(lower(v), lower(strings.TrimSpace(raw)))
	})
}

// untrimmedSearch looks for the term with the spaces around it.
func untrimmedSearch(inner http.Handler) http.Handler {
	return searchBy(inner, func(raw string) bool { return nonBlank(raw) && raw != strings.TrimSpace(raw) }, func(field, raw string) bool {
		_, v := value(field)
		return strings.Contains(strings.ToLower(v), strings.ToLower(raw))
	})
}

// searchSkipping looks in every field but the one named.
func searchSkipping(name string) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		return searchBy(inner, nonBlank, func(field, raw string) bool {
			n, v := value(field)
			return n != name && strings.Contains(strings.ToLower(v), strings.ToLower(strings.TrimSpace(raw)))
		})
	}
}

// wholeWordSearch matches whole words (runs of letters and digits) only.
func wholeWordSearch(inner http.Handler) http.Handler {
	return searchBy(inner, nonBlank, func(field, raw string) bool {
		_, v := value(field)
		t := strings.ToLower(strings.TrimSpace(raw))
		return slices.Contains(strings.FieldsFunc(strings.ToLower(v), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }), t)
	})
}

// wholeNmIDSearch finds a product's number only whole.
func wholeNmIDSearch(inner http.Handler) http.Handler {
	return searchBy(inner, nonBlank, func(field, raw string) bool {
		n, v := value(field)
		t := strings.TrimSpace(raw)
		if n == "nm_id" {
			return v == t
		}
		return strings.Contains(strings.ToLower(v), strings.ToLower(t))
	})
}

// blankSearchFindsNothing answers a search of spaces, or an empty one,
// with nothing.
func blankSearchFindsNothing(inner http.Handler) http.Handler {
	return searchBy(inner, func(raw string) bool { return !nonBlank(raw) }, func(string, string) bool { return false })
}

// searchLimit refuses a search that too long says is too long, as the
// contract's 400 invalid_parameter.
func searchLimit(tooLong func(raw string) bool) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if q := r.URL.Query(); r.URL.Path == "/api/v1/feedbacks" && q.Has("search") && tooLong(q.Get("search")) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"success":false,"data":null,"error":{"code":"invalid_parameter","message":"search is too long","field":"search"}}`)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
}

var (
	// searchBytesLimited counts the limit in bytes.
	searchBytesLimited = searchLimit(func(raw string) bool { return len(strings.TrimSpace(raw)) > 200 })
	// searchLimitedUntrimmed counts the characters before trimming.
	searchLimitedUntrimmed = searchLimit(func(raw string) bool { return utf8.RuneCountInString(raw) > 200 })
)

// searchUnlimited accepts a search of any length: one too long is
// ignored.
func searchUnlimited(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); utf8.RuneCountInString(strings.TrimSpace(q.Get("search"))) > 200 {
			q.Del("search")
			copyAnswer(w, call(inner, r, q.Encode()))
			return
		}
		inner.ServeHTTP(w, r)
	})
}
