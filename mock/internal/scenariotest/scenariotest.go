// Package scenariotest holds what each shipped scenario must do.
//
// There is one check per scenario (checks.go), run on a Target. mock's tests run
// them on a server in their process (TestShippedScenariosBehave);
// mock/deploy's run them through the nginx recipe, round robin on three
// replicas that share one redis-server (Remote). A new scenario needs a
// check here, or both fail. Only tests import it.
package scenariotest

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// Target is the server a scenario's checks talk to, serving that
// scenario to every request they send.
type Target interface {
	// Do sends one request and answers what came back, whole; header
	// holds names and values in turn. A request that gets no answer
	// fails the test.
	Do(t testing.TB, method, target, body string, header ...string) Response
	// Send sends req, whose URL is a path and a query, over a real
	// connection, for the checks of the connection itself (a body cut,
	// a connection dropped, a client that leaves). received, when not
	// nil, is called once the server has the request (as near as the
	// target can tell). The caller closes the body.
	Send(t testing.TB, req *http.Request, received func()) (*http.Response, error)
	// RealClock says whether the server's clock runs (false: the test
	// set it, and it stands still).
	RealClock() bool
	// Balanced says whether a balancer stands between the client and
	// the server: what the server drops, the balancer answers.
	Balanced() bool
}

// Run runs each shipped scenario's check as a subtest of t, on the
// Target target answers for it. A shipped scenario without a check,
// or a check without a shipped scenario, fails.
func Run(t *testing.T, target func(t *testing.T, scenario string) Target) {
	files, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped scenarios (%v)", err)
	}
	shipped := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(file, ".yaml")
		shipped[name] = true
		check, ok := checks[name]
		if !ok {
			t.Errorf("scenario %s has no behaviour check (mock/internal/scenariotest/checks.go)", name)
			continue
		}
		t.Run(name, func(t *testing.T) { check(t, target(t, name)) })
	}
	for name := range checks {
		if !shipped[name] {
			t.Errorf("a behaviour check for %s, which is not a shipped scenario", name)
		}
	}
}

// Response is an answer, whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

func get(t testing.TB, tg Target, target string, header ...string) Response {
	t.Helper()
	return tg.Do(t, http.MethodGet, target, "", header...)
}

func patch(t testing.TB, tg Target, body string) Response {
	t.Helper()
	return tg.Do(t, http.MethodPatch, "/api/v1/settings/ai", body, "Content-Type", "application/json")
}

// admin sends a request to the admin API, a JSON body with its type.
func admin(t testing.TB, tg Target, method, target, body string) Response {
	t.Helper()
	var header []string
	if body != "" {
		header = []string{"Content-Type", "application/json"}
	}
	return tg.Do(t, method, target, body, header...)
}

// countsData is the data of a counts_only=1 answer.
type countsData struct {
	Total      int `json:"total"`
	Unanswered int `json:"unanswered"`
	Answered   int `json:"answered"`
}

func counts(t testing.TB, tg Target, header ...string) countsData {
	t.Helper()
	var c countsData
	DecodeOK(t, "counts", get(t, tg, "/api/v1/feedbacks?counts_only=1", header...), &c)
	return c
}

// listData is the data of a list's answer.
type listData struct {
	Feedbacks []mock.Feedback `json:"feedbacks"`
	Total     int             `json:"total"`
	Limit     int64           `json:"limit"`
	Offset    int64           `json:"offset"`
}

func list(t testing.TB, tg Target, query string) listData {
	t.Helper()
	var d listData
	DecodeOK(t, "GET /feedbacks?"+query, get(t, tg, "/api/v1/feedbacks?"+query), &d)
	return d
}

// journal is session's journal of the list's requests, through the
// admin API.
func journal(t testing.TB, tg Target, session string) []mock.JournalEntry {
	t.Helper()
	var d struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	var header []string
	if session != "" { // "": the target's own session, or every session
		header = []string{mock.HeaderSession, session}
	}
	DecodeOK(t, "the journal", get(t, tg, "/__mock/requests?path=/api/v1/feedbacks", header...), &d)
	return d.Requests
}

// ErrorBody is the contract's error envelope, decoded strictly.
type ErrorBody struct {
	Success *bool           `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

// CheckError wants r to be the error envelope with status and code,
// and field when it is not "-".
func CheckError(t testing.TB, what string, r Response, status int, code, field string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status = %d, want %d; body %s", what, r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s: Content-Type = %q", what, ct)
	}
	var eb ErrorBody
	dec := json.NewDecoder(strings.NewReader(string(r.Body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil {
		t.Fatalf("%s: error body %s: %v", what, r.Body, err)
	}
	if eb.Success == nil || *eb.Success || string(eb.Data) != "null" {
		t.Errorf("%s: envelope = %s, want success false and data null", what, r.Body)
	}
	if eb.Error.Code != code {
		t.Errorf("%s: error.code = %q, want %q", what, eb.Error.Code, code)
	}
	if eb.Error.Message == "" {
		t.Errorf("%s: error.message is empty", what)
	}
	if field != "-" && eb.Error.Field != field {
		t.Errorf("%s: error.field = %q, want %q (message %q)", what, eb.Error.Field, field, eb.Error.Message)
	}
}

// DecodeOK decodes a success envelope's data into v, strictly.
func DecodeOK(t testing.TB, what string, r Response, v any) {
	t.Helper()
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("%s: status = %d, want 200; body %s", what, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s: Content-Type = %q", what, ct)
	}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("%s: %v; body %s", what, err, r.Body)
	}
	if !env.Success {
		t.Fatalf("%s: success = false; body %s", what, r.Body)
	}
	dec := json.NewDecoder(strings.NewReader(string(env.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: data %s: %v", what, env.Data, err)
	}
}
