package mock_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

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

// A scenario that extends another keeps its own counters of the faults it
// inherits: "the first request fails" holds in each.
func TestInheritedFaultsCountApart(t *testing.T) {
	def, err := fs.ReadFile(scenarios.FS, "default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"parent.yaml":  {Data: []byte("extends: default\ndescription: first call fails\nfaults:\n  - {times: 1, error: {status: 500}}\n")},
		"child.yaml":   {Data: []byte("extends: parent\ndescription: the same, its own counters\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files, Scenario: "parent"})
	for i, c := range []struct {
		scenario string
		want     int
	}{{"parent", 500}, {"parent", 200}, {"child", 500}, {"child", 200}, {"parent", 200}} {
		if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", c.scenario); r.status != c.want {
			t.Errorf("request %d in %s: %d, want %d", i+1, c.scenario, r.status, c.want)
		}
	}
}
