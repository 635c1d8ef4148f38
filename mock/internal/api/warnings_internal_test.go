package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Every method of every route finds its operation, whose parameters the
// warnings hold requests to.
func TestWarningsTableMatchesRoutes(t *testing.T) {
	for _, rt := range Routes() {
		for _, m := range rt.Methods {
			if find(rt.Path, m) == nil {
				t.Errorf("%s %s has no operation", m, rt.Path)
			}
		}
	}
	for _, u := range upstreamParams {
		if u.ours != "" && !slices.Contains(feedbackParams.Names, u.ours) {
			t.Errorf("upstream name %s maps to %s, which the list does not take", u.name, u.ours)
		}
	}
}

// Looking for warnings costs a clean request no allocation, but for
// decoding an escaped search value.
func TestWarningsCleanRequestAllocatesNothing(t *testing.T) {
	for target, want := range map[string]float64{
		"/api/v1/feedbacks?limit=20&offset=40&answered=0&rating=5&date_from=2026-01-01&search=abc": 0,
		"/api/v1/feedbacks?limit=20&search=%D0%BF":                                                 1,
	} {
		req := httptest.NewRequest("GET", target, nil)
		if n := testing.AllocsPerRun(100, func() {
			if detectWarnings(req) != nil {
				t.Fatal("warnings for a clean request")
			}
		}); n > want {
			t.Errorf("detectWarnings allocates %v times for %s, want %v", n, target, want)
		}
	}
}

// An empty search is warned about as what decoding and trimming leave
// empty.
func TestEmptySearchWarned(t *testing.T) {
	for _, v := range []string{"", "+", "%20", "+%09%0A%0D%0B%0C+", "%C2%A0", "%E3%80%80", "%E2%80%89+", "%E1%9A%80", "%C2%85",
		"a", "+a", "%20%D0%BF", "%C2%A9", "%E2%80%8B", "%E3%81%82", "%zz", "%2", "%", "%D0", "%C2"} {
		val, err := url.QueryUnescape(v)
		want := err == nil && strings.TrimSpace(val) == ""
		c := detectWarnings(httptest.NewRequest("GET", "/api/v1/feedbacks?search="+v, nil))
		if got := c != nil && c.counts[warnEmpty] == 1; got != want {
			t.Errorf("search=%s: warned empty %v, want %v", v, got, want)
		}
	}
}

// A warning's field and text stay bounded and printable whatever the name.
func TestWarningClips(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/feedbacks?"+strings.Repeat("%FF", 4000)+"=1", nil)
	c := detectWarnings(req)
	if c == nil || len(c.list) != 1 {
		t.Fatalf("warnings %+v", c)
	}
	if w := c.list[0]; len(w.field) > 256+3 || !strings.HasSuffix(w.field, "\uFFFD") || len(w.text) > MaxWarningLength {
		t.Errorf("field of %d bytes, text of %d: %q", len(w.field), len(w.text), w.text)
	}
}
