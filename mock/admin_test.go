package mock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

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
		{"unknown field", "/__mock/scenario", `{"scenario":"slow"}`, "application/json", 400, mock.CodeInvalidBody, ""},
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

func TestAdminFaults(t *testing.T) {
	h := newServer(t, mock.Options{})
	// The next 3 GET /feedbacks of every session answer 503.
	var added mock.Fault
	decodeOK(t, "POST faults", admin(t, h, "POST", "/__mock/faults", `{"method":"GET","path":"/feedbacks","times":3,"error":{"status":503}}`), &added)
	if added.ID == "" {
		t.Fatal("fault has no id")
	}
	var got []int
	for range 4 {
		got = append(got, get(t, h, "/api/v1/feedbacks?limit=1").status)
	}
	if !slices.Equal(got, []int{503, 503, 503, 200}) {
		t.Errorf("statuses %v, want three 503 then 200", got)
	}
	if r := get(t, h, "/api/v1/settings/ai"); r.status != 200 {
		t.Errorf("settings hit by a /feedbacks fault: %d", r.status)
	}

	// A fault for one session only.
	decodeOK(t, "POST session fault", admin(t, h, "POST", "/__mock/faults?session=s1", `{"error":{"status":502,"body":"<html>bad gateway</html>","headers":{"Content-Type":"text/html"}}}`), &added)
	r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "s1")
	if r.status != 502 || string(r.body) != "<html>bad gateway</html>" || r.header.Get("Content-Type") != "text/html" {
		t.Errorf("session fault: %d %q %q", r.status, r.header.Get("Content-Type"), r.body)
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "s2"); r.status != 200 {
		t.Errorf("session s2 hit by s1's fault: %d", r.status)
	}

	var list struct {
		Faults         []mock.Fault `json:"faults"`
		Scenario       string       `json:"scenario"`
		ScenarioFaults []mock.Fault `json:"scenario_faults"`
	}
	decodeOK(t, "GET faults", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 2 || list.Scenario != "default" || len(list.ScenarioFaults) != 0 {
		t.Errorf("faults list %+v", list)
	}
	decodeOK(t, "GET faults s2", admin(t, h, "GET", "/__mock/faults?session=s2", ""), &list)
	if len(list.Faults) != 1 {
		t.Errorf("faults for s2: %+v, want only the global one", list.Faults)
	}

	var removed map[string]int
	decodeOK(t, "DELETE fault", admin(t, h, "DELETE", "/__mock/faults/"+added.ID, ""), &removed)
	if removed["removed"] != 1 {
		t.Errorf("removed %v", removed)
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "s1"); r.status != 200 {
		t.Errorf("after removing the fault: %d", r.status)
	}
	checkError(t, "DELETE unknown", admin(t, h, "DELETE", "/__mock/faults/f999", ""), 404, mock.CodeNotFound, "")
	decodeOK(t, "DELETE all", admin(t, h, "DELETE", "/__mock/faults", ""), &removed)
	if removed["removed"] != 1 {
		t.Errorf("DELETE all removed %v, want the one left", removed)
	}

	for _, tc := range []struct{ name, body, field string }{
		{"does nothing", `{"path":"/feedbacks"}`, ""},
		{"bad status", `{"error":{"status":200}}`, "error.status"},
		{"two actions", `{"drop":true,"truncate":true}`, ""},
		{"bad probability", `{"probability":2,"drop":true}`, "probability"},
		{"bad latency", `{"latency":{"fixed":"soon"}}`, ""},
		{"latency too long", `{"latency":{"fixed":"2h"}}`, "latency.fixed"},
		{"p99 below median", `{"latency":{"median":"1s","p99":"10ms"}}`, "latency.p99"},
		{"bad path", `{"path":"feedbacks","drop":true}`, "path"},
		{"bad glob", `{"path":"/[","drop":true}`, "path"},
		{"bad method", `{"method":"GE T","drop":true}`, "method"},
		{"unknown field", `{"status":503}`, ""},
		{"negative times", `{"times":-1,"drop":true}`, "times"},
	} {
		checkError(t, "POST faults "+tc.name, admin(t, h, "POST", "/__mock/faults", tc.body), 400, mock.CodeInvalidBody, tc.field)
	}
	decodeOK(t, "GET faults", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 0 {
		t.Errorf("rejected faults were added: %+v", list.Faults)
	}
}

// Injected latency is checked as a ratio to an unfaulted request, with
// bounds wide enough for a busy machine.
func TestLatencyFault(t *testing.T) {
	h := newServer(t, mock.Options{})
	timed := func(session string) time.Duration {
		start := time.Now()
		get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", session)
		return time.Since(start)
	}
	var plain []time.Duration
	for range 5 {
		plain = append(plain, timed("fast"))
	}
	slices.Sort(plain)
	decodeOK(t, "POST faults", admin(t, h, "POST", "/__mock/faults?session=slow", `{"latency":{"fixed":"300ms"}}`), new(mock.Fault))
	slow := timed("slow")
	if slow < 300*time.Millisecond {
		t.Errorf("faulted request took %v, less than the 300ms delay", slow)
	}
	if median := plain[2]; slow < 2*median {
		t.Errorf("faulted %v vs unfaulted median %v: want at least twice", slow, median)
	}
}

// A real client sees dropped and truncated answers as errors.
func TestDropAndTruncateWithRealClient(t *testing.T) {
	m := newServer(t, mock.Options{})
	ts := httptest.NewServer(m)
	defer ts.Close()
	m.AddFault("drop", mock.Fault{Drop: true})
	m.AddFault("cut", mock.Fault{Truncate: true})
	call := func(session string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/feedbacks", nil)
		req.Header.Set("X-Mock-Session", session)
		resp, err := ts.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, body, err
	}
	if _, _, err := call("drop"); err == nil {
		t.Error("dropped connection: no error")
	}
	resp, body, err := call("cut")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated body: err %v, want unexpected EOF", err)
	}
	if resp != nil && json.Valid(body) {
		t.Errorf("truncated body is valid JSON: %d bytes", len(body))
	}
	if _, body, err := call("fine"); err != nil || !json.Valid(body) {
		t.Errorf("unfaulted session: %v", err)
	}
	e := m.Requests(mock.JournalFilter{Session: "drop"})
	if len(e) != 1 || e[0].Status != 0 || e[0].Fault != "drop" {
		t.Errorf("journal of the dropped request: %+v", e)
	}
}

func TestJournal(t *testing.T) {
	h := newServer(t, mock.Options{JournalSize: 4})
	get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "j")
	patch(t, h, `{}`)
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"question":{"tone":"calm"}}`, "Content-Type", "application/json", "X-Mock-Session", "j", "X-Mock-Scenario", "strict-tones")
	get(t, h, "/api/v1/nope", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=2", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=3", "X-Mock-Session", "j")

	var j struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j", ""), &j)
	if j.Count != 4 {
		t.Fatalf("journal of j: %d entries, want the newest 4", j.Count)
	}
	if j.Requests[0].Method != "PATCH" {
		t.Errorf("oldest kept entry %s %s, want the PATCH (the first GET fell out)", j.Requests[0].Method, j.Requests[0].Path)
	}
	if q := j.Requests[3].Query; q != "limit=3" {
		t.Errorf("newest entry query %q", q)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j&path=/api/v1/feedbacks", ""), &j)
	if j.Count != 2 {
		t.Errorf("path filter: %d entries", j.Count)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?method=PATCH", ""), &j)
	if j.Count != 2 {
		t.Fatalf("PATCH filter over all sessions: %d entries", j.Count)
	}
	e := j.Requests[0]
	if e.Session != "default" || e.Status != 200 || e.Body != "{}" || !strings.Contains(e.Response, `"feedback"`) || e.Headers["Content-Type"] != "application/json" {
		t.Errorf("PATCH entry %+v", e)
	}
	if j.Requests[1].Scenario != "strict-tones" || j.Requests[1].Session != "j" {
		t.Errorf("entry scenario %q session %q", j.Requests[1].Scenario, j.Requests[1].Session)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?path=/api/v1/*&limit=1", ""), &j)
	if j.Count != 1 || j.Requests[0].Query != "limit=3" {
		t.Errorf("limit=1: %+v", j.Requests)
	}
	decodeOK(t, "DELETE requests", admin(t, h, "DELETE", "/__mock/requests?session=j", ""), new(map[string]string))
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests", ""), &j)
	if j.Count != 1 || j.Requests[0].Session != "default" {
		t.Errorf("after clearing j: %+v", j.Requests)
	}
	checkError(t, "bad limit", admin(t, h, "GET", "/__mock/requests?limit=0", ""), 400, mock.CodeInvalidParameter, "limit")
}

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

// Hot reload swaps a changed file in and keeps serving the old version of
// a broken one.
func TestReload(t *testing.T) {
	def, _ := scenarios.FS.ReadFile("default.yaml")
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"mine.yaml":    {Data: []byte("extends: default\ndescription: first\nfaults: [{error: {status: 500}}]\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files})
	desc := func() string {
		for _, sc := range h.Scenarios(mock.DefaultSession) {
			if sc.Name == "mine" {
				return sc.Description
			}
		}
		return ""
	}
	if r := get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine"); r.status != 500 {
		t.Fatalf("mine: %d", r.status)
	}
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: second\nfaults: [{error: {status: 502}}]\n")}
	if err := h.Reload(); err != nil {
		t.Fatalf("reload of a good file: %v", err)
	}
	if desc() != "second" || get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine").status != 502 {
		t.Errorf("after reload: %q", desc())
	}
	files["mine.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: third\nfaults: [{error: {status: 99}}]\n")}
	err := h.Reload()
	if err == nil || !strings.Contains(err.Error(), "scenarios/mine.yaml:3:") || !strings.Contains(err.Error(), "faults[0].error.status") {
		t.Errorf("reload of a broken file: %v", err)
	}
	if desc() != "second" || get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "mine").status != 502 {
		t.Errorf("the broken file replaced the good version: %q", desc())
	}
	files["new.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: new one\ndata: {}\n")}
	h.Reload() // mine.yaml is still broken; new.yaml is fine
	if c := counts(t, h, "X-Mock-Scenario", "new"); c.Total != 0 {
		t.Errorf("new scenario: total %d", c.Total)
	}
}

// Sessions' counters survive a reload that does not change their scenario.
func TestReloadKeepsCounters(t *testing.T) {
	def, _ := scenarios.FS.ReadFile("default.yaml")
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"once.yaml":    {Data: []byte("extends: default\ndescription: once\nfaults: [{times: 1, error: {status: 500}}]\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files, Scenario: "once"})
	if get(t, h, "/api/v1/feedbacks").status != 500 {
		t.Fatal("first call should fail")
	}
	files["other.yaml"] = &fstest.MapFile{Data: []byte("extends: default\ndescription: other\n")}
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	if r := get(t, h, "/api/v1/feedbacks"); r.status != 200 {
		t.Errorf("after an unrelated reload the fault fired again: %d", r.status)
	}
}

// The delay of a request ends when its client goes away, and shutdown
// does not wait for it.
func TestDelayEndsWithClient(t *testing.T) {
	m := newServer(t, mock.Options{})
	m.AddFault(mock.AllSessions, mock.Fault{Latency: &mock.Latency{Fixed: mock.Duration(30 * time.Second)}})
	ts := httptest.NewServer(m)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/feedbacks", nil)
	start := time.Now()
	if resp, err := ts.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("answered before the delay")
	}
	ts.Close() // waits for the handler: it must end with the client, long before 30s
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("handler ran %v after the client left", d)
	}
}

// A fault that an earlier one shadows is not reached and counts nothing:
// "the next 2 answer 503" means the next 2 it answers.
func TestShadowedFaultIsNotCounted(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "first-calls-fail"})
	h.AddFault(mock.AllSessions, mock.Fault{Method: "GET", Path: "/feedbacks", Times: 2, Error: &mock.FaultError{Status: 503}})
	var got []int
	for range 5 {
		got = append(got, get(t, h, "/api/v1/feedbacks?limit=1").status)
	}
	if !slices.Equal(got, []int{500, 500, 503, 503, 200}) {
		t.Errorf("statuses %v, want the scenario's two 500s, then the run-time two 503s, then 200", got)
	}
	e := h.Requests(mock.JournalFilter{})
	if len(e) != 5 || e[0].Fault != "first-calls-fail: error 500" || e[2].Fault != "error 503" || e[4].Fault != "" {
		t.Errorf("journal labels: %q %q %q", e[0].Fault, e[2].Fault, e[4].Fault)
	}
}

// The journal keeps the request body even when no handler read it.
func TestJournalBodyWhenFaulted(t *testing.T) {
	for _, name := range []string{"settings-save-fails", "unauthorized", "down"} {
		h := newServer(t, mock.Options{Scenario: name})
		patch(t, h, `{"feedback":[{"rating":1,"tone":"calm"}]}`)
		if e := h.Requests(mock.JournalFilter{}); len(e) != 1 || e[0].Body != `{"feedback":[{"rating":1,"tone":"calm"}]}` {
			t.Errorf("%s: journal %+v, want the PATCH body", name, e)
		}
	}
}

// A truncate fault cuts whatever the answer would have been: under
// bearer auth without a token, half a 401.
func TestTruncateAfterAuth(t *testing.T) {
	m := newServer(t, mock.Options{Scenario: "unauthorized"})
	m.AddFault(mock.AllSessions, mock.Fault{Truncate: true})
	ts := httptest.NewServer(m)
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/api/v1/feedbacks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("status %d, read error %v; want a truncated 401", resp.StatusCode, err)
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
	decodeOK(t, "PUT overrides", admin(t, h, "PUT", "/__mock/overrides", `{"auth":{"type":"bearer","tokens":["demo-token"]},"rate_limit":{"requests":1,"window":"1h"}}`), new(mock.Overrides))
	checkError(t, "no token", get(t, h, "/api/v1/feedbacks"), 401, mock.CodeUnauthorized, "")
	if r := get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-token"); r.status != 200 {
		t.Errorf("with the token: %d", r.status)
	}
	checkError(t, "second request", get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-token"), 429, mock.CodeRateLimited, "")
	for _, bad := range []string{`{"auth":{"type":"basic"}}`, `{"auth":{"type":"bearer"}}`, `{"rate_limit":{"requests":0,"window":"1s"}}`, `{"x":1}`} {
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
