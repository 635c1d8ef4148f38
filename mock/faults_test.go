package mock_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
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

	var list faultList
	decodeOK(t, "GET faults", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 2 || list.Scenario != "default" || len(list.ScenarioFaults) != 0 || list.ScenarioAuth != "none" || list.ScenarioRate != nil {
		t.Errorf("faults list %+v", list)
	}
	// What a session's scenario itself does to requests: its auth (not
	// its tokens) and its rate limit.
	for _, tc := range []struct {
		scenario, auth string
		rate           bool
	}{{"unauthorized", "bearer", false}, {"rate-limited", "none", true}, {"flaky", "none", false}} {
		var switched map[string]string
		decodeOK(t, "PUT scenario", admin(t, h, "PUT", "/__mock/scenario?session=of-"+tc.scenario, `{"name":"`+tc.scenario+`"}`), &switched)
		r := admin(t, h, "GET", "/__mock/faults?session=of-"+tc.scenario, "")
		decodeOK(t, "GET faults of "+tc.scenario, r, &list)
		if list.Scenario != tc.scenario || list.ScenarioAuth != tc.auth || (list.ScenarioRate != nil) != tc.rate || strings.Contains(string(r.body), "token") {
			t.Errorf("faults of %s: %s", tc.scenario, r.body)
		}
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
		{"bad latency", `{"latency":{"fixed":"soon"}}`, "latency.fixed"},
		{"latency too long", `{"latency":{"fixed":"2h"}}`, "latency.fixed"},
		{"p99 below median", `{"latency":{"median":"1s","p99":"10ms"}}`, "latency.p99"},
		{"bad path", `{"path":"feedbacks","drop":true}`, "path"},
		{"bad glob", `{"path":"/[","drop":true}`, "path"},
		{"path of no operation", `{"path":"/feedback","drop":true}`, "path"},
		{"method of no operation", `{"method":"GTE","drop":true}`, "method"},
		{"method the path does not take", `{"method":"PATCH","path":"/api/v1/feedbacks","drop":true}`, "method"},
		{"bad method", `{"method":"GE T","drop":true}`, "method"},
		{"unknown field", `{"status":503}`, "status"},
		{"negative times", `{"times":-1,"drop":true}`, "times"},
		{"bad header name", `{"error":{"status":503,"headers":{"Retry After":"1"}}}`, "error.headers"},
		{"header value with CR LF", `{"error":{"status":503,"headers":{"Retry-After":"1\r\nSet-Cookie: a=b"}}}`, "error.headers.Retry-After"},
		{"header value with NUL", `{"error":{"status":503,"headers":{"X-Why":"a\u0000b"}}}`, "error.headers.X-Why"},
	} {
		checkError(t, "POST faults "+tc.name, admin(t, h, "POST", "/__mock/faults", tc.body), 400, mock.CodeInvalidBody, tc.field)
	}
	// A fault that can never fire names the nearest operation.
	if r := admin(t, h, "POST", "/__mock/faults", `{"path":"/feedback","drop":true}`); !strings.Contains(string(r.body), `did you mean /feedbacks?`) {
		t.Errorf("a fault path of no operation: %s; want a hint naming /feedbacks", r.body)
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

// At MaxRuntimeFaults, adding a fault through the admin API or the Go API
// answers 409 too_many_faults and changes nothing; removing one makes room.
func TestRuntimeFaultsCap(t *testing.T) {
	h := newServer(t, mock.Options{})
	for i := range mock.MaxRuntimeFaults {
		sid := mock.AllSessions
		if i%2 == 1 {
			sid = fmt.Sprintf("s%d", i%10)
		}
		if _, err := h.AddFault(sid, mock.Fault{Path: "/nowhere", Drop: true}); err != nil {
			t.Fatalf("fault %d of %d: %v", i+1, mock.MaxRuntimeFaults, err)
		}
	}
	before := h.Faults(mock.AllSessions)
	for _, tc := range []struct {
		name, target, body string
		status             int
		code               string
	}{
		{"for every session", "/__mock/faults", `{"drop":true}`, 409, mock.CodeTooManyFaults},
		{"for a session with some", "/__mock/faults?session=s3", `{"drop":true}`, 409, mock.CodeTooManyFaults},
		{"for a new session", "/__mock/faults?session=new", `{"drop":true}`, 409, mock.CodeTooManyFaults},
		{"invalid: that first", "/__mock/faults", `{"drop":true,"truncate":true}`, 400, mock.CodeInvalidBody},
	} {
		r := admin(t, h, "POST", tc.target, tc.body)
		checkError(t, "POST "+tc.target+" ("+tc.name+")", r, tc.status, tc.code, "")
		if tc.status == 409 && !strings.Contains(string(r.body), fmt.Sprintf("at most %d run-time faults", mock.MaxRuntimeFaults)) {
			t.Errorf("%s: message %s does not say the limit", tc.name, r.body)
		}
	}
	for _, sid := range []string{mock.AllSessions, "s3", "new"} {
		f, err := h.AddFault(sid, mock.Fault{Drop: true})
		var apiErr *mock.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != mock.CodeTooManyFaults || f.ID != "" {
			t.Errorf("AddFault(%q) at the limit = %+v, %v; want a 409 %s", sid, f, err, mock.CodeTooManyFaults)
		}
	}
	if after := h.Faults(mock.AllSessions); !reflect.DeepEqual(after, before) {
		t.Errorf("refused faults changed the list: %d faults, had %d", len(after), len(before))
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "new"); r.status != 200 {
		t.Errorf("a refused fault of session new applies: %d", r.status)
	}
	if n := h.RemoveFaults(mock.AllSessions, before[0].ID); n != 1 {
		t.Fatalf("removed %d", n)
	}
	var added mock.Fault
	decodeOK(t, "POST faults after removing one", admin(t, h, "POST", "/__mock/faults?session=new", `{"error":{"status":503}}`), &added)
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "new"); r.status != 503 {
		t.Errorf("the fault added once there was room does not apply: %d", r.status)
	}
	checkError(t, "POST faults at the limit again", admin(t, h, "POST", "/__mock/faults", `{"drop":true}`), 409, mock.CodeTooManyFaults, "")
	h.Reset(mock.AllSessions)
	if _, err := h.AddFault(mock.AllSessions, mock.Fault{Drop: true}); err != nil {
		t.Errorf("after a reset: %v", err)
	}
}

// The run-time faults keep at most MaxRuntimeFaultBytes together: big
// error bodies run into it long before MaxRuntimeFaults.
func TestRuntimeFaultBytesCap(t *testing.T) {
	h := newServer(t, mock.Options{})
	body := strings.Repeat("b", 1<<20)
	fault := mock.Fault{Error: &mock.FaultError{Status: 500, Body: &body}}
	added := 0
	for ; added < 100; added++ {
		if _, err := h.AddFault(fmt.Sprintf("s%d", added%3), fault); err != nil {
			var apiErr *mock.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != mock.CodeTooManyFaults {
				t.Fatalf("fault %d: %v, want a 409 %s", added+1, err, mock.CodeTooManyFaults)
			}
			break
		}
	}
	if want := mock.MaxRuntimeFaultBytes>>20 - 1; added != want {
		t.Errorf("%d faults of 1 MiB added, want %d under %d MiB", added, want, mock.MaxRuntimeFaultBytes>>20)
	}
	if n := len(h.Faults(mock.AllSessions)); n != added {
		t.Errorf("%d faults listed, want %d", n, added)
	}
	// A small fault still fits.
	if _, err := h.AddFault(mock.AllSessions, mock.Fault{Drop: true}); err != nil {
		t.Errorf("a small fault: %v", err)
	}
}

// statuses sends n list requests with the headers and returns their
// statuses, one letter each: x for a 503, . for a 200.
func statuses(t *testing.T, h http.Handler, n int, header ...string) string {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		switch r := get(t, h, "/api/v1/feedbacks?limit=1", header...); r.status {
		case 503:
			b[i] = 'x'
		case 200:
			b[i] = '.'
		default:
			t.Fatalf("request %d: status %d: %s", i+1, r.status, r.body)
		}
	}
	return string(b)
}

// A session's fault sequence comes from the scenario's seed and the
// request's place in the session, not from the session's id: sessions
// named afresh on every run (a CI job's random ids) see the same statuses,
// on this server and on another.
func TestFaultSequenceSameInEverySession(t *testing.T) {
	const n = 200
	h := newServer(t, mock.Options{Scenario: "flaky"})
	want := statuses(t, h, n)
	if hit := strings.Count(want, "x"); hit < 20 || hit > 60 {
		t.Fatalf("flaky failed %d of %d list requests, want about 20%%: %s", hit, n, want)
	}
	for range 3 {
		sid := rand.Text()
		if got := statuses(t, h, n, "X-Mock-Session", sid); got != want {
			t.Errorf("session %s:\n%s\nsession default:\n%s", sid, got, want)
		}
	}
	// Picked by header on a server serving another scenario, sessions
	// interleaved with other requests: still the same.
	other := newServer(t, mock.Options{})
	a, b := rand.Text(), rand.Text()
	var got [2][]byte
	for i := range n {
		for j, sid := range []string{a, b} {
			r := get(t, other, "/api/v1/feedbacks?limit=1", "X-Mock-Session", sid, "X-Mock-Scenario", "flaky")
			got[j] = append(got[j], map[bool]byte{true: 'x', false: '.'}[r.status == 503])
			if i%7 == 0 {
				get(t, other, "/api/v1/settings/ai", "X-Mock-Session", sid, "X-Mock-Scenario", "flaky")
			}
		}
	}
	for j := range got {
		if string(got[j]) != want {
			t.Errorf("another server, session %d:\n%s\nwant\n%s", j, got[j], want)
		}
	}
}

// X-Mock-Seed varies the sequence on purpose: the same seed gives the
// same sequence in any session, another seed another sequence, and the
// scenario's own seed the sequence without the header.
func TestFaultSeedHeader(t *testing.T) {
	const n = 200
	h := newServer(t, mock.Options{Scenario: "flaky"})
	plain := statuses(t, h, n, "X-Mock-Session", rand.Text())
	seeded := statuses(t, h, n, "X-Mock-Session", rand.Text(), "X-Mock-Seed", "7")
	if again := statuses(t, h, n, "X-Mock-Session", rand.Text(), "X-Mock-Seed", "0007"); again != seeded {
		t.Errorf("the same seed, another session:\n%s\n%s", again, seeded)
	}
	differs := func(a, b string) int {
		d := 0
		for i := range a {
			if a[i] != b[i] {
				d++
			}
		}
		return d
	}
	// Independent sequences at p = 0.2 differ on about 32% of requests.
	if d := differs(plain, seeded); d < n/8 {
		t.Errorf("seed 7 differs from the scenario's seed on %d of %d requests:\n%s\n%s", d, n, seeded, plain)
	}
	if d := differs(seeded, statuses(t, h, n, "X-Mock-Session", rand.Text(), "X-Mock-Seed", "8")); d < n/8 {
		t.Errorf("seeds 7 and 8 differ on %d of %d requests", d, n)
	}
	if hit := strings.Count(seeded, "x"); hit < 20 || hit > 60 {
		t.Errorf("seed 7: %d of %d failed, want about 20%%", hit, n)
	}
	scenarioSeed := strconv.FormatInt(h.Scenario().Seed, 10)
	if got := statuses(t, h, n, "X-Mock-Session", rand.Text(), "X-Mock-Seed", scenarioSeed); got != plain {
		t.Errorf("the scenario's own seed in the header:\n%s\nwithout it:\n%s", got, plain)
	}
	// The seed is the request's: the same place in the session gets its
	// seed's draw, whatever the requests before carried.
	sid := rand.Text()
	mixed := make([]byte, n)
	for i := range n {
		seed := []string{"7", scenarioSeed}[i%2]
		r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", sid, "X-Mock-Seed", seed)
		mixed[i] = map[bool]byte{true: 'x', false: '.'}[r.status == 503]
		if want := []string{seeded, plain}[i%2][i]; mixed[i] != want {
			t.Fatalf("request %d with seed %s: %c, want %c as in that seed's sequence", i+1, seed, mixed[i], want)
		}
	}
}

// A bad X-Mock-Seed is a 400 naming the header, and changes nothing: no
// session is made, no counter moves, nothing is journaled.
func TestFaultSeedHeaderInvalid(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "flaky"})
	for _, v := range []string{"", "0", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "abc", "9223372036854775808", "99999999999999999999999", "７"} {
		r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "bad", "X-Mock-Seed", v)
		checkError(t, fmt.Sprintf("X-Mock-Seed %q", v), r, 400, mock.CodeInvalidParameter, "X-Mock-Seed")
	}
	req := httptest.NewRequest("GET", "/api/v1/feedbacks?limit=1", nil)
	req.Header.Set("X-Mock-Session", "bad")
	req.Header.Add("X-Mock-Seed", "1")
	req.Header.Add("X-Mock-Seed", "1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkError(t, "X-Mock-Seed twice", response{rec.Code, rec.Header(), rec.Body.Bytes()}, 400, mock.CodeInvalidParameter, "X-Mock-Seed")
	if !strings.Contains(rec.Body.String(), "given 2 times") {
		t.Errorf("X-Mock-Seed twice: %s", rec.Body)
	}
	if reqs := h.Requests(mock.JournalFilter{Session: "bad"}); len(reqs) != 0 {
		t.Errorf("bad seeds were journaled: %d entries", len(reqs))
	}
	if got, want := statuses(t, h, 100, "X-Mock-Session", "bad"), statuses(t, h, 100, "X-Mock-Session", "fresh"); got != want {
		t.Errorf("bad seeds moved the session's counters:\n%s\nwant\n%s", got, want)
	}
}

// A fault's seed field varies its stream: faults alike but for their
// seed draw independently; the same seed, the same draws.
func TestFaultSeedField(t *testing.T) {
	const n = 200
	h := newServer(t, mock.Options{})
	seq := func(sid, fault string) string {
		t.Helper()
		decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session="+sid, fault), new(mock.Fault))
		return statuses(t, h, n, "X-Mock-Session", sid)
	}
	a := seq("a", `{"path":"/feedbacks","probability":0.5,"error":{"status":503},"seed":1}`)
	b := seq("b", `{"path":"/feedbacks","probability":0.5,"error":{"status":503},"seed":1}`)
	c := seq("c", `{"path":"/feedbacks","probability":0.5,"error":{"status":503},"seed":2}`)
	if a != b {
		t.Errorf("the same fault seed, different sequences:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("fault seeds 1 and 2 gave the same sequence")
	}
	var listed faultList
	decodeOK(t, "GET faults", admin(t, h, "GET", "/__mock/faults?session=c", ""), &listed)
	if len(listed.Faults) != 1 || listed.Faults[0].Seed != 2 {
		t.Errorf("listed %+v, want the fault with its seed 2", listed.Faults)
	}
	for _, tc := range []struct{ name, body, field string }{
		{"negative", `{"seed":-1,"drop":true}`, "seed"},
		{"string", `{"seed":"1","drop":true}`, "seed"},
		{"fraction", `{"seed":1.5,"drop":true}`, "seed"},
		{"too big", `{"seed":9223372036854775808,"drop":true}`, "seed"},
		{"null", `{"seed":null,"drop":true,"times":"x"}`, "times"}, // null is no seed: the bad times is the problem
	} {
		checkError(t, "POST faults seed "+tc.name, admin(t, h, "POST", "/__mock/faults?session=d", tc.body), 400, mock.CodeInvalidBody, tc.field)
	}
	if len(h.Faults("d")) != 0 {
		t.Errorf("rejected faults were added: %+v", h.Faults("d"))
	}
}

// Adding a fault changes no other fault's sequence: flaky's 503s fall on
// the same requests with a latency fault of any probability beside it,
// and with other faults before it, matching other paths.
func TestFaultAddedChangesNoOther(t *testing.T) {
	const n = 200
	h := newServer(t, mock.Options{Scenario: "flaky"})
	want := statuses(t, h, n, "X-Mock-Session", "alone")
	for _, sid := range []string{"beside", "global"} {
		target := "/__mock/faults?session=" + sid
		if sid == "global" {
			target = "/__mock/faults"
		}
		decodeOK(t, "POST latency", admin(t, h, "POST", target, `{"path":"/feedbacks","probability":0.5,"latency":{"min":"1us","max":"50us"}}`), new(mock.Fault))
		decodeOK(t, "POST other path", admin(t, h, "POST", target, `{"path":"/settings/*","probability":0.3,"error":{"status":500}}`), new(mock.Fault))
		for i := range n {
			get(t, h, "/api/v1/settings/ai", "X-Mock-Session", sid) // moves only the other path's fault
			if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", sid); (r.status == 503) != (want[i] == 'x') {
				t.Fatalf("%s: request %d answered %d; alone it was %c", sid, i+1, r.status, want[i])
			}
		}
		h.RemoveFaults(mock.AllSessions, "")
	}
}

// PUT /__mock/faults puts a named fault in place of those of its name,
// in one step: a request never sees neither (a 200 here) nor both.
func TestReplaceFault(t *testing.T) {
	h := newServer(t, mock.Options{})
	var first, second, other mock.Fault
	decodeOK(t, "POST", admin(t, h, "POST", "/__mock/faults", `{"name":"switch","error":{"status":503}}`), &first)
	decodeOK(t, "POST session", admin(t, h, "POST", "/__mock/faults?session=s1", `{"name":"switch","error":{"status":500}}`), &other)
	decodeOK(t, "PUT", admin(t, h, "PUT", "/__mock/faults", `{"name":"switch","error":{"status":502}}`), &second)
	if second.ID == first.ID || second.Error == nil || second.Error.Status != 502 {
		t.Fatalf("PUT answered %+v after %+v", second, first)
	}
	var list faultList
	decodeOK(t, "GET", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 2 || list.Faults[0].ID != other.ID || list.Faults[1].ID != second.ID {
		t.Errorf("after PUT for every session: %+v; want s1's own and the new one", list.Faults)
	}
	// For one session: its faults of the name, not the others'.
	decodeOK(t, "PUT s1", admin(t, h, "PUT", "/__mock/faults?session=s1", `{"name":"switch","error":{"status":504}}`), &other)
	decodeOK(t, "GET", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 2 || list.Faults[0].ID != second.ID || list.Faults[1].Error.Status != 504 {
		t.Errorf("after PUT for s1: %+v", list.Faults)
	}
	checkError(t, "PUT without a name", admin(t, h, "PUT", "/__mock/faults", `{"error":{"status":502}}`), 400, mock.CodeInvalidBody, "name")
	checkError(t, "PUT a bad fault", admin(t, h, "PUT", "/__mock/faults", `{"name":"switch","error":{"status":99}}`), 400, mock.CodeInvalidBody, "error.status")
	decodeOK(t, "GET", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 2 || list.Faults[0].ID != second.ID {
		t.Errorf("a refused PUT changed the faults: %+v", list.Faults)
	}

	// Switched back and forth while requests run: each request meets one.
	admin(t, h, "DELETE", "/__mock/faults", "")
	admin(t, h, "PUT", "/__mock/faults", `{"name":"switch","error":{"status":503}}`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	statuses := make(chan int, 1<<16)
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				statuses <- get(t, h, "/api/v1/feedbacks?limit=1").status
			}
		})
	}
	// At least 200 replacements, and on until the requests have seen 100
	// answers among them: on a busy machine the readers may start late.
	for i := 0; i < 200 || len(statuses) < 100; i++ {
		admin(t, h, "PUT", "/__mock/faults", fmt.Sprintf(`{"name":"switch","error":{"status":%d}}`, 502+i%2))
	}
	close(stop)
	wg.Wait()
	close(statuses)
	seen := map[int]int{}
	for st := range statuses {
		seen[st]++
	}
	if seen[200] > 0 || seen[502]+seen[503] == 0 {
		t.Errorf("statuses while the switch was replaced: %v; want only 502 and 503", seen)
	}
	decodeOK(t, "GET", admin(t, h, "GET", "/__mock/faults", ""), &list)
	if len(list.Faults) != 1 {
		t.Errorf("after 200 replacements, %d faults; want 1", len(list.Faults))
	}
}

// faultList is the data of GET /__mock/faults.
type faultList struct {
	Faults         []mock.Fault    `json:"faults"`
	Scenario       string          `json:"scenario"`
	ScenarioFaults []mock.Fault    `json:"scenario_faults"`
	ScenarioAuth   string          `json:"scenario_auth"`
	ScenarioRate   *mock.RateLimit `json:"scenario_rate_limit"`
}

// A fault's path given with the API's base, as the journal and verify
// write it, means the same as without.
func TestFaultPathWithTheAPIBase(t *testing.T) {
	h := newServer(t, mock.Options{})
	if r := admin(t, h, "POST", "/__mock/faults?session=base", `{"path":"/api/v1/feedbacks","error":{"status":503}}`); r.status != 201 || !strings.Contains(string(r.body), `"path":"/feedbacks"`) {
		t.Fatalf("a fault path with /api/v1: %d %s", r.status, r.body)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1", mock.HeaderSession, "base"); r.status != 503 {
		t.Errorf("a fault on /api/v1/feedbacks did not fire: %d", r.status)
	}
	// The journal's patterns take both forms too.
	for _, path := range []string{"/api/v1/feedbacks", "/feedbacks", "/feed*", "/api/v1/feed*"} {
		if r := admin(t, h, "GET", "/__mock/verify?session=base&path="+path+"&count=1", ""); r.status != 200 {
			t.Errorf("verify path=%s: %d %s", path, r.status, r.body)
		}
	}
}
