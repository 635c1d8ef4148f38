package proxy

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

func TestSpecProblemsAndTakes(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.example.test":     "",
		"http://127.0.0.1:9/base":      "",
		"ftp://x":                      "absolute http or https",
		"/relative":                    "absolute http or https",
		"https://u:p@api.example.test": "no query, fragment or user",
		"https://api.example.test/?q":  "no query, fragment or user",
	} {
		_, err := ParseURL(raw)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseURL(%q) = %v, want %q", raw, err, want)
		}
	}
	sp := &Spec{URL: "https://api.example.test", Paths: []string{"/questions/**", "[", "x"}}
	var fields []string
	for _, p := range sp.Problems() {
		fields = append(fields, p.Field)
	}
	if got := strings.Join(fields, " "); got != "paths[1] paths[2]" {
		t.Errorf("problems at %s, want paths[1] paths[2]", got)
	}
	ok := &Spec{URL: "https://api.example.test", Paths: []string{"/questions/**"}}
	for _, tc := range []struct {
		path  string
		faked bool
		want  bool
	}{{"/feedbacks", true, false}, {"/unknown", false, true}, {"/questions", true, true}, {"/questions/1", true, true}} {
		if got := ok.Takes(tc.path, tc.faked); got != tc.want {
			t.Errorf("Takes(%s, faked %v) = %v", tc.path, tc.faked, got)
		}
	}
}

func TestPoolSpec(t *testing.T) {
	own := &Spec{URL: "https://own.example.test"}
	if p := NewPool("", time.Second, "", nil); p.Spec(nil) != nil || p.Spec(own) != own {
		t.Error("without Options.Proxy: a scenario's own spec or none")
	}
	if p := NewPool("https://all.example.test", time.Second, "", nil); p.Spec(nil).URL != "https://all.example.test" || p.Spec(own) != own {
		t.Error("with Options.Proxy: a scenario's own spec wins, else the server's")
	}
}

// A path that is plainly under /api/v1, however it is read, goes
// upstream; one that an upstream could read as leading out of it is
// refused: dot segments (also before a ;parameter), backslashes, slashes
// sent encoded, dots, slashes and backslashes encoded twice, bytes that
// are not UTF-8 (an overlong dot).
func TestCheckPath(t *testing.T) {
	refused := []string{
		"/api/v1/../../admin",
		"/api/v1/..%2f..%2fadmin",
		"/api/v1/..%2F..%2Fadmin",
		"/api/v1/%2e%2e/%2e%2e/admin",
		"/api/v1/%2E%2E/admin",
		"/api/v1/./feedbacks",
		"/api/v1/feedbacks/..",
		"/api/v1/..;/admin",
		"/api/v1/.;x/feedbacks",
		"/api/v1/..%5c..%5cadmin",
		"/api/v1/..%5Cadmin",
		"/api/v1/a%2fb",
		"/api/v1/%252e%252e/admin",
		"/api/v1/%252fadmin",
		"/api/v1/%255cadmin",
		"/api/v10/questions",
		"/admin",
		"/api/v1/%c0%ae%c0%ae/admin",
		"/api/v1/%e0%80%ae",
		"/api/v1/%ff",
	}
	for _, raw := range refused {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		err2 := CheckPath(&http.Request{URL: u}, "/api/v1")
		if err2 == nil {
			t.Errorf("%s goes upstream", raw)
			continue
		}
		if err2.Status != http.StatusBadRequest || err2.Code != wire.CodeInvalidParameter || err2.Field != "path" || !strings.Contains(err2.Message, "/api/v1") {
			t.Errorf("%s: %+v", raw, err2)
		}
	}
	// A backslash as sent: url.Parse keeps it in the path.
	if CheckPath(&http.Request{URL: &url.URL{Path: `/api/v1/..\admin`}}, "/api/v1") == nil {
		t.Error(`a backslash goes upstream`)
	}
	for _, raw := range []string{"/api/v1", "/api/v1/", "/api/v1/questions", "/api/v1/questions/1", "/api/v1/a.b/..c/...", "/api/v1/x%20y", "/api/v1/%D0%B9", "/api/v1/a;b=1"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckPath(&http.Request{URL: u}, "/api/v1"); err != nil {
			t.Errorf("%s is refused: %v", raw, err)
		}
	}
}

// The admin token never goes upstream as a bearer token, in any case of
// the scheme, alone or among other Authorization values; other values go
// on as they came.
func TestDropToken(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"Bearer adm1n"}, nil},
		{[]string{"bearer   adm1n "}, nil},
		{[]string{"adm1n"}, nil},
		{[]string{"Bearer real", "Bearer adm1n"}, []string{"Bearer real"}},
		{[]string{"Bearer real"}, []string{"Bearer real"}},
		{[]string{"Basic adm1n"}, []string{"Basic adm1n"}}, // not the token: a Basic credential's encoding
		{[]string{"Bearer adm1nX"}, []string{"Bearer adm1nX"}},
	}
	for _, c := range cases {
		h := http.Header{"Authorization": c.in, "Accept": {"*/*"}}
		dropToken(h, "adm1n")
		if got := h["Authorization"]; !slices.Equal(got, c.want) || h.Get("Accept") != "*/*" {
			t.Errorf("%q: %q left, want %q", c.in, got, c.want)
		}
	}
	h := http.Header{"Authorization": {"Bearer adm1n"}}
	dropToken(h, "")
	if h.Get("Authorization") != "Bearer adm1n" {
		t.Error("without an admin token, a bearer token is dropped")
	}
}
