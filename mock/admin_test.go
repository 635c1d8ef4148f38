package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

func admin(t testing.TB, h http.Handler, method, target, body string, header ...string) response {
	t.Helper()
	if body != "" {
		header = append(header, "Content-Type", "application/json")
	}
	return do(t, h, method, target, body, header...)
}

func TestAdminScenarios(t *testing.T) {
	h := newServer(t, mock.Options{})
	var list struct {
		Active    string              `json:"active"`
		Scenarios []mock.ScenarioInfo `json:"scenarios"`
	}
	decodeOK(t, "GET scenarios", admin(t, h, "GET", "/__mock/scenarios", ""), &list)
	names, _ := fs_glob()
	if list.Active != "default" || len(list.Scenarios) != len(names) {
		t.Fatalf("scenarios: active %q, %d listed; want default and %d", list.Active, len(list.Scenarios), len(names))
	}
	for _, sc := range list.Scenarios {
		if sc.Description == "" {
			t.Errorf("%s has no description", sc.Name)
		}
	}

	// For one session.
	var sw map[string]string
	decodeOK(t, "PUT scenario", admin(t, h, "PUT", "/__mock/scenario?session=t1", `{"name":"empty-shop"}`), &sw)
	if sw["scenario"] != "empty-shop" || sw["session"] != "t1" {
		t.Errorf("PUT scenario answered %v", sw)
	}
	if c := counts(t, h, "X-Mock-Session", "t1"); c.Total != 0 {
		t.Errorf("session t1 after the switch: total %d", c.Total)
	}
	if c := counts(t, h); c.Total == 0 {
		t.Error("the default session switched too")
	}
	decodeOK(t, "GET scenarios t1", admin(t, h, "GET", "/__mock/scenarios", "", "X-Mock-Session", "t1"), &list)
	if list.Active != "empty-shop" {
		t.Errorf("active for t1 = %q", list.Active)
	}

	// Globally: every session that has not picked its own follows, and a
	// global switch clears the sessions' own picks.
	decodeOK(t, "PUT scenario global", admin(t, h, "PUT", "/__mock/scenario", `{"name":"all-unanswered"}`), &sw)
	if c := counts(t, h); c.Total != 500 {
		t.Errorf("default session after the global switch: total %d", c.Total)
	}
	if c := counts(t, h, "X-Mock-Session", "t1"); c.Total != 500 {
		t.Errorf("session t1 after the global switch: total %d", c.Total)
	}
	var health mock.Health
	decodeOK(t, "health", admin(t, h, "GET", "/__mock/health", ""), &health)
	if health.Scenario != "all-unanswered" {
		t.Errorf("health scenario %q", health.Scenario)
	}

	for _, tc := range []struct {
		name, target, body, ct string
		status                 int
		code, field            string
	}{
		{"unknown scenario", "/__mock/scenario", `{"name":"nope"}`, "application/json", 400, mock.CodeInvalidBody, "name"},
		{"unknown field", "/__mock/scenario", `{"scenario":"slow"}`, "application/json", 400, mock.CodeInvalidBody, "scenario"},
		{"not JSON", "/__mock/scenario", `slow`, "application/json", 400, mock.CodeInvalidBody, ""},
		{"no content type", "/__mock/scenario", `{"name":"slow"}`, "", 415, mock.CodeUnsupportedMediaType, ""},
		{"bad session", "/__mock/scenario?session=a%20b", `{"name":"slow"}`, "application/json", 400, mock.CodeInvalidParameter, "session"},
	} {
		var hdr []string
		if tc.ct != "" {
			hdr = []string{"Content-Type", tc.ct}
		}
		checkError(t, tc.name, do(t, h, "PUT", tc.target, tc.body, hdr...), tc.status, tc.code, tc.field)
	}
	if c := counts(t, h); c.Total != 500 {
		t.Errorf("a rejected switch changed the scenario: total %d", c.Total)
	}
}

func fs_glob() ([]string, error) { return fsGlob(scenarios.FS) }

func TestAdminReset(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, sid := range []string{"a", "b"} {
		do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":1,"tone":"calm"}]}`, "Content-Type", "application/json", "X-Mock-Session", sid)
	}
	admin(t, h, "POST", "/__mock/faults?session=b", `{"drop":true}`)
	decodeOK(t, "reset a", admin(t, h, "POST", "/__mock/reset?session=a", ""), new(map[string]string))
	tone := func(sid string) string {
		var s mock.Settings
		decodeOK(t, "GET "+sid, get(t, h, "/api/v1/settings/ai", "X-Mock-Session", sid), &s)
		return s.Feedback[0].Tone
	}
	if tone("a") == "calm" {
		t.Error("reset of a kept its settings")
	}
	if n := len(h.Requests(mock.JournalFilter{Session: "b"})); n != 1 {
		t.Errorf("b's journal has %d entries before the reset of all", n)
	}
	decodeOK(t, "reset all", admin(t, h, "POST", "/__mock/reset", ""), new(map[string]string))
	if tone("b") == "calm" {
		t.Error("reset of all kept b's settings")
	}
	if faults := h.Faults(mock.AllSessions); len(faults) != 0 {
		t.Errorf("reset kept run-time faults %+v", faults)
	}
	if n := len(h.Requests(mock.JournalFilter{Session: "b"})); n != 1 {
		t.Errorf("b's journal after reset: %d entries, want only the GET since", n)
	}
}

func TestAdminToken(t *testing.T) {
	h := newServer(t, mock.Options{AdminToken: "s3cret"})
	for _, target := range []string{"/__mock/scenarios", "/__mock/faults", "/__mock/requests"} {
		r := admin(t, h, "GET", target, "")
		checkError(t, target+" without token", r, 401, mock.CodeUnauthorized, "")
		checkError(t, target+" wrong token", admin(t, h, "GET", target, "", "Authorization", "Bearer s3cre"), 401, mock.CodeUnauthorized, "")
		if r := admin(t, h, "GET", target, "", "Authorization", "Bearer s3cret"); r.status != 200 {
			t.Errorf("%s with bearer token: %d", target, r.status)
		}
		if r := admin(t, h, "GET", target, "", "Authorization", "bearer s3cret"); r.status != 200 {
			t.Errorf("%s with the scheme in lower case: %d", target, r.status)
		}
		if r := admin(t, h, "GET", target, "", "X-Mock-Admin-Token", "s3cret"); r.status != 200 {
			t.Errorf("%s with X-Mock-Admin-Token: %d", target, r.status)
		}
	}
	checkError(t, "PUT scenario", admin(t, h, "PUT", "/__mock/scenario", `{"name":"down"}`), 401, mock.CodeUnauthorized, "")
	checkError(t, "POST reset", admin(t, h, "POST", "/__mock/reset", ""), 401, mock.CodeUnauthorized, "")
	if r := admin(t, h, "GET", "/__mock/health", ""); r.status != 200 {
		t.Errorf("health needs no token: %d", r.status)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.status != 200 {
		t.Errorf("the API needs no admin token: %d", r.status)
	}
}

// Every admin route but health needs the token, writes included.
func TestAdminTokenEveryRoute(t *testing.T) {
	h := newServer(t, mock.Options{AdminToken: "s3cret"})
	for _, tc := range []struct{ method, target, body string }{
		{"GET", "/__mock/scenarios", ""}, {"PUT", "/__mock/scenario", `{"name":"down"}`}, {"POST", "/__mock/reset", ""},
		{"GET", "/__mock/faults", ""}, {"POST", "/__mock/faults", `{"drop":true}`}, {"DELETE", "/__mock/faults", ""},
		{"DELETE", "/__mock/faults/f1", ""}, {"DELETE", "/__mock/faults/health", ""}, {"GET", "/__mock/requests", ""},
		{"DELETE", "/__mock/requests", ""}, {"GET", "/__mock/openapi.yaml", ""}, {"GET", "/__mock/openapi.json", ""},
		{"GET", "/__mock/admin/openapi.yaml", ""}, {"GET", "/__mock/admin/openapi.json", ""},
	} {
		checkError(t, tc.method+" "+tc.target, admin(t, h, tc.method, tc.target, tc.body), 401, mock.CodeUnauthorized, "")
	}
	if faults := h.Faults(mock.AllSessions); len(faults) != 0 {
		t.Errorf("a fault was added without the token: %+v", faults)
	}
}

// A reset keeps the scenario a session picked.
func TestResetKeepsScenarioPick(t *testing.T) {
	h := newServer(t, mock.Options{})
	admin(t, h, "PUT", "/__mock/scenario?session=s", `{"name":"empty-shop"}`)
	admin(t, h, "POST", "/__mock/reset?session=s", "")
	if c := counts(t, h, "X-Mock-Session", "s"); c.Total != 0 {
		t.Errorf("after a reset, session s serves %d reviews; want its pick, empty-shop", c.Total)
	}
	admin(t, h, "POST", "/__mock/reset", "")
	if c := counts(t, h, "X-Mock-Session", "s"); c.Total != 0 {
		t.Errorf("after a reset of all, session s serves %d reviews", c.Total)
	}
}

func TestAdminDataSettingsOverrides(t *testing.T) {
	h := newServer(t, mock.Options{})
	var d mock.DataSummary
	decodeOK(t, "GET data", admin(t, h, "GET", "/__mock/data", ""), &d)
	c := counts(t, h)
	sum := 0
	for _, r := range d.ByRating {
		sum += r.Answered + r.Unanswered
	}
	if d.Total != c.Total || d.Answered != c.Answered || sum != c.Total || len(d.Newest) != 5 {
		t.Errorf("data %+v (newest %d) vs counts %+v", d, len(d.Newest), c)
	}
	admin(t, h, "PUT", "/__mock/scenario?session=e", `{"name":"empty-shop"}`)
	decodeOK(t, "GET data of empty-shop", admin(t, h, "GET", "/__mock/data?session=e", ""), &d)
	if d.Scenario != "empty-shop" || d.Total != 0 || len(d.Newest) != 0 {
		t.Errorf("data of an empty shop: %+v", d)
	}

	patch(t, h, `{"feedback":[{"rating":4,"tone":"warm"}]}`)
	var sv struct {
		Session  string        `json:"session"`
		Scenario string        `json:"scenario"`
		Settings mock.Settings `json:"settings"`
	}
	decodeOK(t, "GET settings", admin(t, h, "GET", "/__mock/settings", ""), &sv)
	if sv.Settings.Feedback[3].Tone != "warm" || sv.Session != "default" {
		t.Errorf("settings view %+v", sv)
	}
	// The view reads past faults: the down scenario still shows settings.
	admin(t, h, "PUT", "/__mock/scenario?session=d", `{"name":"down"}`)
	decodeOK(t, "GET settings of a down session", admin(t, h, "GET", "/__mock/settings?session=d", ""), &sv)
	checkError(t, "settings of all", admin(t, h, "GET", "/__mock/settings?session=*", ""), 400, mock.CodeInvalidParameter, "session")

	// Overrides switch auth and a rate limit on for every session, until reset.
	var o mock.Overrides
	decodeOK(t, "PUT overrides", admin(t, h, "PUT", "/__mock/overrides", `{"auth":{"type":"bearer","tokens":["demo-token","t2"]},"rate_limit":{"requests":1,"window":"1h"}}`), &o)
	// The tokens set never come back: each is hidden, in both answers.
	hidden := []string{"[redacted]"}
	if o.Auth == nil || !slices.Equal(o.Auth.Tokens, hidden) {
		t.Errorf("PUT overrides answers auth %+v, want them redacted", o.Auth)
	}
	decodeOK(t, "GET overrides", admin(t, h, "GET", "/__mock/overrides", ""), &o)
	if o.Auth == nil || o.Auth.Type != "bearer" || !slices.Equal(o.Auth.Tokens, hidden) {
		t.Errorf("GET overrides shows auth %+v, want them redacted", o.Auth)
	}
	checkError(t, "no token", get(t, h, "/api/v1/feedbacks"), 401, mock.CodeUnauthorized, "")
	if r := get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-token"); r.status != 200 {
		t.Errorf("with the token: %d", r.status)
	}
	checkError(t, "second request", get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-token"), 429, mock.CodeRateLimited, "")
	for _, bad := range []string{`{"auth":{"type":"bearer","tokens":["[redacted]"]}}`, `{"auth":{"type":"basic"}}`, `{"auth":{"type":"bearer"}}`, `{"rate_limit":{"requests":0,"window":"1s"}}`, `{"x":1}`} {
		if r := admin(t, h, "PUT", "/__mock/overrides", bad); r.status != 400 {
			t.Errorf("PUT overrides %s: %d", bad, r.status)
		}
	}
	admin(t, h, "POST", "/__mock/reset", "")
	if r := get(t, h, "/api/v1/feedbacks"); r.status != 200 {
		t.Errorf("after a reset the overrides stay: %d", r.status)
	}
	// Polling the journal since a sequence number.
	var j struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	decodeOK(t, "requests", admin(t, h, "GET", "/__mock/requests", ""), &j)
	last := j.Requests[len(j.Requests)-1].Seq
	get(t, h, "/api/v1/feedbacks?limit=2")
	decodeOK(t, "requests since", admin(t, h, "GET", fmt.Sprintf("/__mock/requests?since=%d", last), ""), &j)
	if len(j.Requests) != 1 || j.Requests[0].Query != "limit=2" {
		t.Errorf("since %d: %+v", last, j.Requests)
	}
}

func TestControlPageServed(t *testing.T) {
	h := newServer(t, mock.Options{AdminToken: "s3cret"})
	for target, ctype := range map[string]string{"/__mock/": "text/html", "/__mock/ui/app.js": "text/javascript", "/__mock/ui/style.css": "text/css"} {
		r := get(t, h, target)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), ctype) {
			t.Errorf("GET %s (no token: the page asks for it): %d %q", target, r.status, r.header.Get("Content-Type"))
		}
	}
	if r := get(t, h, "/__mock"); r.status != 301 || r.header.Get("Location") != "/__mock/" {
		t.Errorf("GET /__mock: %d %q", r.status, r.header.Get("Location"))
	}
	if r := get(t, h, "/__mock/ui/nope.js"); r.status != 404 {
		t.Errorf("missing file: %d", r.status)
	}
	page := string(get(t, h, "/__mock/").body)
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page refers to another host: it must work offline")
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := newServer(t, mock.Options{})
	y := do(t, h, "GET", "/__mock/openapi.yaml", "")
	if y.status != 200 || string(y.body) != string(mock.OpenAPIDocument()) || !strings.HasPrefix(y.header.Get("Content-Type"), "application/yaml") {
		t.Errorf("openapi.yaml: %d %q", y.status, y.header.Get("Content-Type"))
	}
	j := do(t, h, "GET", "/__mock/openapi.json", "")
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(j.body)
	if err != nil || doc.Validate(context.Background()) != nil || doc.Paths.Find("/feedbacks") == nil {
		t.Errorf("openapi.json does not load as the same document: %v", err)
	}
	if _, err := contract(); err != nil {
		t.Fatal(err)
	}
}

// ?paths=absolute serves the API's document with whole paths and the
// server /, for tools that ignore servers: the same operations, under
// /api/v1; a router made from it finds the API's requests. Any other
// value is a 400 naming paths.
func TestOpenAPIAbsolutePaths(t *testing.T) {
	h := newServer(t, mock.Options{})
	relative, err := openapi3.NewLoader().LoadFromData(do(t, h, "GET", "/__mock/openapi.json", "").body)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/__mock/openapi.json?paths=absolute", "/__mock/openapi.yaml?paths=absolute"} {
		r := do(t, h, "GET", target, "")
		doc, err := openapi3.NewLoader().LoadFromData(r.body)
		if r.status != 200 || err != nil {
			t.Fatalf("%s: %d %v", target, r.status, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("%s: %v", target, err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
			t.Errorf("%s: servers %v, want /", target, doc.Servers)
		}
		if got, want := len(doc.Paths.Map()), len(relative.Paths.Map()); got != want {
			t.Errorf("%s: %d paths, want %d", target, got, want)
		}
		for p, item := range relative.Paths.Map() {
			abs := doc.Paths.Find("/api/v1" + p)
			if abs == nil {
				t.Errorf("%s: no path /api/v1%s", target, p)
				continue
			}
			a, _ := json.Marshal(abs)
			b, _ := json.Marshal(item)
			if string(a) != string(b) {
				t.Errorf("%s: /api/v1%s differs from %s", target, p, p)
			}
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/api/v1/feedbacks?limit=1", nil)
		if route, _, err := router.FindRoute(req); err != nil || route.Operation.OperationID != "listFeedbacks" {
			t.Errorf("%s: a router made from it does not find GET /api/v1/feedbacks: %v", target, err)
		}
	}
	// The admin document's paths are whole already: the same either way.
	if a, b := do(t, h, "GET", "/__mock/admin/openapi.yaml?paths=absolute", ""), do(t, h, "GET", "/__mock/admin/openapi.yaml", ""); a.status != 200 || string(a.body) != string(b.body) {
		t.Errorf("admin document with paths=absolute: %d, same %v", a.status, string(a.body) == string(b.body))
	}
	for _, target := range []string{"/__mock/openapi.json?paths=whole", "/__mock/openapi.yaml?paths=absolute&paths=absolute", "/__mock/admin/openapi.json?paths="} {
		checkError(t, target, do(t, h, "GET", target, ""), 400, mock.CodeInvalidParameter, "paths")
	}
}

// The admin API's document is served like the API's, in YAML and JSON.
func TestAdminOpenAPIServed(t *testing.T) {
	h := newServer(t, mock.Options{})
	y := do(t, h, "GET", "/__mock/admin/openapi.yaml", "")
	if y.status != 200 || string(y.body) != string(mock.AdminOpenAPIDocument()) || !strings.HasPrefix(y.header.Get("Content-Type"), "application/yaml") {
		t.Errorf("admin/openapi.yaml: %d %q", y.status, y.header.Get("Content-Type"))
	}
	j := do(t, h, "GET", "/__mock/admin/openapi.json", "")
	doc, err := openapi3.NewLoader().LoadFromData(j.body)
	if err != nil {
		t.Fatalf("admin/openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil || doc.Paths.Find("/__mock/verify") == nil || doc.Paths.Find("/feedbacks") != nil {
		t.Errorf("admin/openapi.json is not the admin document: %v", err)
	}
	if _, err := adminContract(); err != nil {
		t.Fatal(err)
	}
}

// No other site may frame the control panel.
func TestControlPageNotFramed(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, target := range []string{"/__mock/", "/__mock/ui/app.js"} {
		r := admin(t, h, "GET", target, "")
		if r.status != 200 || r.header.Get("Content-Security-Policy") != "frame-ancestors 'none'" || r.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: %d, CSP %q, X-Frame-Options %q", target, r.status, r.header.Get("Content-Security-Policy"), r.header.Get("X-Frame-Options"))
		}
	}
}
