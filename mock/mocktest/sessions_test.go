package mocktest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// fails runs f as a test body and checks that it failed the test with
// one Fatalf whose message holds every want, after calling Helper.
func fails(t *testing.T, f func(tb testing.TB), wants ...string) {
	t.Helper()
	rec := &recordingTB{}
	if rec.run(func() { f(rec) }) {
		t.Fatalf("returned, want a failure naming %q", wants)
	}
	if len(rec.fatals) != 1 || !strings.HasPrefix(rec.fatals[0], "mocktest: ") {
		t.Fatalf("Fatalf calls = %q, want one starting with mocktest:", rec.fatals)
	}
	for _, w := range wants {
		if !strings.Contains(rec.fatals[0], w) {
			t.Errorf("failure %q does not name %q", rec.fatals[0], w)
		}
	}
	if rec.helpers == 0 {
		t.Error("no call of Helper")
	}
}

// passes runs f as a test body and checks that it returned after calling
// Helper.
func passes(t *testing.T, f func(tb testing.TB)) {
	t.Helper()
	rec := &recordingTB{}
	if !rec.run(func() { f(rec) }) {
		t.Fatalf("failed: %q", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("no call of Helper")
	}
}

// in is the header naming a session, for wantStatus.
func in(session string) []string { return []string{mock.HeaderSession, session} }

func TestSession(t *testing.T) {
	srv := mocktest.New(t)
	long := strings.Repeat("TestLong", 20)
	for _, tc := range []struct{ name, want string }{
		{"TestSync", "TestSync-1"},
		{"TestSync", "TestSync-2"}, // the same test again: a new session
		{"TestSync/retries_after_503", "TestSync.retries_after_503-3"},
		{"TestSync/пустой_отзыв#01", "TestSync._____________01-4"},
		{"Test a+b", "Test_a_b-5"},
		{long, long[:100] + "-6"},
	} {
		rec := &recordingTB{name: tc.name}
		got := srv.Session(rec)
		if got != tc.want {
			t.Errorf("Session in %q = %q, want %q", tc.name, got, tc.want)
		}
		if rec.helpers == 0 {
			t.Error("Session did not call Helper")
		}
		// The server takes it, and journals the request under it.
		wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, in(got)...)
		if reqs := srv.Requests(mock.JournalFilter{Session: got}); len(reqs) != 1 {
			t.Errorf("journal of session %q holds %d requests, want 1", got, len(reqs))
		}
	}
	// Another server numbers its own.
	if got := mocktest.New(t).Session(&recordingTB{name: "TestSync"}); got != "TestSync-1" {
		t.Errorf("Session of a new server = %q, want TestSync-1", got)
	}
}

// Tests running in parallel on one server get different sessions.
func TestSessionParallel(t *testing.T) {
	srv := mocktest.New(t)
	const n = 64
	ids := make(chan string, n)
	for range n {
		go func() { ids <- srv.Session(&recordingTB{name: "TestSync"}) }()
	}
	seen := make(map[string]bool)
	for range n {
		id := <-ids
		if seen[id] {
			t.Errorf("Session gave %q twice", id)
		}
		seen[id] = true
	}
	if !seen["TestSync-1"] || !seen[fmt.Sprintf("TestSync-%d", n)] {
		t.Errorf("sessions %v, want TestSync-1 to TestSync-%d", seen, n)
	}
}

// Every helper that takes a session refuses an id the server would
// refuse, rather than change a session no request can reach, and the
// ids they take are those the server takes.
func TestSessionIDs(t *testing.T) {
	srv := mocktest.New(t, mocktest.WithScenario("demo-frozen"))
	f := srv.AddFault(t, mock.Fault{Path: "/settings/*", Error: &mock.FaultError{Status: 502}})
	helpers := []struct {
		name string
		all  bool // takes mock.AllSessions
		call func(tb testing.TB, sid string)
	}{
		{"SetScenario", true, func(tb testing.TB, sid string) { srv.SetScenario(tb, sid, "demo-frozen") }},
		{"AddFaultFor", true, func(tb testing.TB, sid string) {
			srv.RemoveFault(tb, srv.AddFaultFor(tb, sid, mock.Fault{Path: "/feedbacks", Error: &mock.FaultError{Status: 503}}).ID)
		}},
		{"AddFaultFor", true, func(tb testing.TB, sid string) {
			srv.RemoveFault(tb, srv.FailNextFor(tb, sid, 1, "GET", "/feedbacks", 503).ID)
		}},
		{"ClearFaults", true, func(tb testing.TB, sid string) { srv.ClearFaults(tb, sid) }},
		{"SetOverrides", true, func(tb testing.TB, sid string) { srv.SetOverrides(tb, sid, mock.Overrides{}) }},
		{"Strict", true, func(tb testing.TB, sid string) { srv.Strict(tb, sid, false) }},
		{"ResetSession", true, func(tb testing.TB, sid string) { srv.ResetSession(tb, sid) }},
		{"ClearRequests", true, func(tb testing.TB, sid string) { srv.ClearRequests(tb, sid) }},
		{"Settings", false, func(tb testing.TB, sid string) { srv.Settings(tb, sid) }},
		{"Now", false, func(tb testing.TB, sid string) { srv.Now(tb, sid) }},
		{"AdvanceClock", false, func(tb testing.TB, sid string) { srv.AdvanceClock(tb, sid, time.Minute) }},
	}
	for _, tc := range []struct {
		sid string
		ok  bool
	}{
		{"", true}, // the default session
		{"a", true},
		{"Az09._:@-", true},
		{strings.Repeat("s", 128), true},
		{strings.Repeat("s", 129), false},
		{"a b", false},
		{"a/b", false},
		{"сессия", false},
		{"a\n", false},
		{"**", false},
	} {
		// The server's own answer for the id, in a header and in ?session=.
		status := http.StatusOK
		if !tc.ok {
			status = http.StatusBadRequest
		}
		if tc.sid != "" && !strings.ContainsAny(tc.sid, "\n") { // a client cannot send a newline in a header
			wantStatus(t, srv, "GET", "/feedbacks", status, in(tc.sid)...)
		}
		resp, err := srv.Client().Get(srv.URL + mock.AdminPrefix + "/overrides?session=" + strings.ReplaceAll(tc.sid, "\n", "%0A"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if tc.sid == "" {
			status = http.StatusBadRequest // given empty: refused, not taken for the default session
		}
		if resp.StatusCode != status {
			t.Errorf("GET /__mock/overrides?session=%q: status = %d, want %d", tc.sid, resp.StatusCode, status)
		}
		for _, h := range helpers {
			t.Run(fmt.Sprintf("%s/%.20q", h.name, tc.sid), func(t *testing.T) {
				if tc.ok {
					passes(t, func(tb testing.TB) { h.call(tb, tc.sid) })
					return
				}
				fails(t, func(tb testing.TB) { h.call(tb, tc.sid) }, h.name, "session", "1 to 128 letters, digits or ._:@-")
			})
		}
	}
	// Refused ids made no session: the server-wide fault is the only one,
	// and no overrides were kept under them.
	if got := srv.Mock.Faults(mock.AllSessions); len(got) != 1 || got[0].ID != f.ID {
		t.Errorf("faults after the refused ids: %+v, want only %s", got, f.ID)
	}
	for _, h := range helpers {
		t.Run(h.name+"/*", func(t *testing.T) {
			if h.all {
				passes(t, func(tb testing.TB) { h.call(tb, mock.AllSessions) })
				return
			}
			fails(t, func(tb testing.TB) { h.call(tb, mock.AllSessions) }, h.name, "session", "one session, not *")
		})
	}
}

func TestSetScenario(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	passes(t, func(tb testing.TB) { srv.SetScenario(tb, a, "unauthorized") })
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)

	fails(t, func(tb testing.TB) { srv.SetScenario(tb, a, "no-such-scenario") }, "SetScenario "+a, `name: no scenario "no-such-scenario"`, "default")
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized, in(a)...) // unchanged

	srv.SetScenario(t, "", "unauthorized") // the default session
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)

	srv.SetScenario(t, mock.AllSessions, "default") // as UseScenario: picks are cleared
	for _, sid := range []string{a, b, mock.DefaultSession} {
		wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(sid)...)
	}
}

func TestAddFaultFor(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	var f mock.Fault
	passes(t, func(tb testing.TB) {
		f = srv.AddFaultFor(tb, a, mock.Fault{Name: "limited", Path: "/settings/*",
			Error: &mock.FaultError{Status: http.StatusTooManyRequests}})
	})
	if f.ID == "" || f.Name != "limited" {
		t.Errorf("AddFaultFor returned %+v, want it with an id", f)
	}
	for range 2 {
		wantStatus(t, srv, "GET", "/settings/ai", http.StatusTooManyRequests, in(a)...)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(a)...)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, in(b)...)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
	if got := srv.Mock.Faults(b); len(got) != 0 {
		t.Errorf("faults of another session: %+v, want none", got)
	}

	for _, tc := range []struct {
		f    mock.Fault
		want string
	}{
		{mock.Fault{Path: "feedbacks", Drop: true}, "path"},
		{mock.Fault{Method: "GET"}, "does nothing"},
		{mock.Fault{Error: &mock.FaultError{Status: 200}}, "status"},
		{mock.Fault{Times: -1, Drop: true}, "times"},
	} {
		fails(t, func(tb testing.TB) { srv.AddFaultFor(tb, b, tc.f) }, "AddFaultFor "+b, tc.want)
	}
	fails(t, func(tb testing.TB) { srv.FailNextFor(tb, b, 1, "GET", "/feedbacks", 200) }, "AddFaultFor "+b, "status")
	if got := srv.Mock.Faults(mock.AllSessions); len(got) != 1 {
		t.Errorf("faults after refused ones: %+v, want 1", got)
	}

	// For every session, each counted apart.
	srv.AddFaultFor(t, mock.AllSessions, mock.Fault{Path: "/feedbacks", Times: 1, Error: &mock.FaultError{Status: 503}})
	for _, sid := range []string{a, b} {
		wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable, in(sid)...)
		wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(sid)...)
	}
}

func TestFailNextFor(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	var f mock.Fault
	passes(t, func(tb testing.TB) { f = srv.FailNextFor(tb, a, 2, "GET", "/feedbacks", 502) })
	if f.ID == "" || f.Times != 2 || f.Error == nil || f.Error.Status != 502 || f.Method != "GET" || f.Path != "/feedbacks" {
		t.Errorf("FailNextFor returned %+v", f)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusBadGateway, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusBadGateway, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(a)...)
	fails(t, func(tb testing.TB) { srv.FailNextFor(tb, a, -2, "GET", "/feedbacks", 503) }, "times")
	fails(t, func(tb testing.TB) { srv.FailNextFor(tb, a, 1, "GET", "feedbacks", 503) }, "path")
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(a)...)
}

func TestRemoveFault(t *testing.T) {
	srv := mocktest.New(t)
	sess := srv.Session(t)
	own := srv.FailNextFor(t, sess, 5, "GET", "/feedbacks", 503)
	global := srv.FailNext(t, 5, "GET", "/settings/ai", 502)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable, in(sess)...)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusBadGateway, in(sess)...)

	passes(t, func(tb testing.TB) { srv.RemoveFault(tb, own.ID) })
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(sess)...)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusBadGateway, in(sess)...)
	passes(t, func(tb testing.TB) { srv.RemoveFault(tb, global.ID) })
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, in(sess)...)

	for _, id := range []string{own.ID, "f99", ""} {
		fails(t, func(tb testing.TB) { srv.RemoveFault(tb, id) }, "RemoveFault", fmt.Sprintf("no run-time fault %q", id))
	}
}

func TestClearFaults(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	srv.FailNextFor(t, a, 5, "GET", "/feedbacks", 503)
	srv.FailNextFor(t, a, 5, "GET", "/settings/ai", 503)
	srv.FailNextFor(t, b, 5, "GET", "/feedbacks", 503)
	global := srv.FailNext(t, 5, "PATCH", "/settings/ai", 500)

	var n int
	passes(t, func(tb testing.TB) { n = srv.ClearFaults(tb, a) })
	if n != 2 {
		t.Errorf("ClearFaults(%s) = %d, want 2", a, n)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable, in(b)...)
	if got := srv.Mock.Faults(a); len(got) != 1 || got[0].ID != global.ID {
		t.Errorf("faults of %s after ClearFaults: %+v, want only the server-wide %s", a, got, global.ID)
	}
	if n := srv.ClearFaults(t, a); n != 0 {
		t.Errorf("ClearFaults again = %d, want 0", n)
	}
	if n := srv.ClearFaults(t, mock.AllSessions); n != 2 {
		t.Errorf("ClearFaults(*) = %d, want 2", n)
	}
	if got := srv.Mock.Faults(mock.AllSessions); len(got) != 0 {
		t.Errorf("faults after ClearFaults(*): %+v", got)
	}
}

func TestSetOverrides(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	const token = "Bearer t-1"
	auth := mock.Overrides{Auth: &mock.Auth{Type: "bearer", Tokens: []string{"t-1"}}}
	passes(t, func(tb testing.TB) { srv.SetOverrides(tb, a, auth) })
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, append(in(a), "Authorization", token)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)

	for _, tc := range []struct {
		o    mock.Overrides
		want string
	}{
		{mock.Overrides{Auth: &mock.Auth{}}, "auth.type"},
		{mock.Overrides{Auth: &mock.Auth{Type: "basic"}}, "auth.type"},
		{mock.Overrides{Auth: &mock.Auth{Type: "bearer"}}, "auth.tokens"},
		{mock.Overrides{RateLimit: &mock.RateLimit{Requests: 0, Window: mock.Duration(time.Second)}}, "rate_limit.requests"},
		{mock.Overrides{RateLimit: &mock.RateLimit{Requests: 1}}, "rate_limit.window"},
		{mock.Overrides{Auth: &mock.Auth{Type: "bearer", Tokens: []string{strings.Repeat("t", mock.MaxSessionOverrideBytes)}}}, "auth.tokens"},
	} {
		fails(t, func(tb testing.TB) { srv.SetOverrides(tb, a, tc.o) }, "SetOverrides "+a, tc.want)
		if got := srv.Mock.OverridesFor(a); !reflect.DeepEqual(got, auth) {
			t.Errorf("overrides after a refused %s: %+v, want them unchanged", tc.want, got)
		}
	}

	// For every session; a session's own win.
	srv.SetOverrides(t, mock.AllSessions, mock.Overrides{Auth: &mock.Auth{Type: "bearer", Tokens: []string{"all"}}})
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, append(in(b), "Authorization", "Bearer all")...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized, append(in(a), "Authorization", "Bearer all")...)

	srv.SetOverrides(t, a, mock.Overrides{}) // the zero value clears them
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, append(in(a), "Authorization", "Bearer all")...)
	srv.SetOverrides(t, mock.AllSessions, mock.Overrides{})
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)
}

func TestStrict(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	const warned = "/feedbacks?ratingg=5" // an unknown parameter: a warning
	srv.SetOverrides(t, a, mock.Overrides{Auth: &mock.Auth{Type: "none"}})
	passes(t, func(tb testing.TB) { srv.Strict(tb, a, true) })
	wantStatus(t, srv, "GET", warned, http.StatusBadRequest, in(a)...)
	wantStatus(t, srv, "GET", warned, http.StatusOK, in(b)...)
	if o := srv.Mock.OverridesFor(a); o.Auth == nil || o.Auth.Type != "none" || o.Strict == nil || !*o.Strict {
		t.Errorf("overrides after Strict: %+v, want the auth kept and strict on", o)
	}
	srv.Strict(t, a, false)
	wantStatus(t, srv, "GET", warned, http.StatusOK, in(a)...)

	// Off wins over a server that is strict.
	strict := mocktest.New(t, mocktest.WithOptions(mock.Options{Strict: true}))
	sess := strict.Session(t)
	wantStatus(t, strict, "GET", warned, http.StatusBadRequest, in(sess)...)
	strict.Strict(t, sess, false)
	wantStatus(t, strict, "GET", warned, http.StatusOK, in(sess)...)
	wantStatus(t, strict, "GET", warned, http.StatusBadRequest)
	strict.Strict(t, mock.AllSessions, false)
	wantStatus(t, strict, "GET", warned, http.StatusOK)
}

// patchTone saves a tone for five-star reviews in session.
func patchTone(t *testing.T, srv *mocktest.Server, session, tone string) {
	t.Helper()
	req := jsonRequest(t, "PATCH", srv.APIURL()+"/settings/ai", `{"feedback":[{"rating":5,"tone":"`+tone+`"}]}`)
	req.Header.Set(mock.HeaderSession, session)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH /settings/ai in %s: status = %d, want 200", session, resp.StatusCode)
	}
}

func TestResetSession(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	for _, sid := range []string{a, b} {
		srv.SetScenario(t, sid, "all-unanswered")
		patchTone(t, srv, sid, "formal")
		srv.FailNextFor(t, sid, 5, "GET", "/feedbacks", 503)
		srv.Strict(t, sid, true)
	}
	passes(t, func(tb testing.TB) { srv.ResetSession(tb, a) })
	if got := srv.Settings(t, a).Feedback[4].Tone; got != "friendly" {
		t.Errorf("tone of %s after ResetSession = %q, want the scenario's", a, got)
	}
	if got := srv.Settings(t, b).Feedback[4].Tone; got != "formal" {
		t.Errorf("tone of %s after another's ResetSession = %q, want formal", b, got)
	}
	if n := len(srv.Requests(mock.JournalFilter{Session: a})); n != 0 {
		t.Errorf("journal of %s after ResetSession: %d entries", a, n)
	}
	if o := srv.Mock.OverridesFor(a); o.Strict != nil {
		t.Errorf("overrides of %s after ResetSession: %+v", a, o)
	}
	wantStatus(t, srv, "GET", "/feedbacks?ratingg=1", http.StatusOK, in(a)...)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable, in(b)...)
	if sc := srv.Mock.Scenarios(a); !active(sc, "all-unanswered") {
		t.Errorf("scenario of %s after ResetSession: %+v, want all-unanswered kept", a, sc)
	}

	srv.ResetSession(t, mock.AllSessions)
	if got := srv.Settings(t, b).Feedback[4].Tone; got != "friendly" {
		t.Errorf("tone of %s after ResetSession(*) = %q", b, got)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(b)...)
}

// active reports whether name is the active scenario in list.
func active(list []mock.ScenarioInfo, name string) bool {
	for _, sc := range list {
		if sc.Active {
			return sc.Name == name
		}
	}
	return false
}

func TestClearRequests(t *testing.T) {
	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	for _, sid := range []string{a, b, mock.DefaultSession} {
		wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(sid)...)
	}
	passes(t, func(tb testing.TB) { srv.ClearRequests(tb, a) })
	count := func(sid string) int { return len(srv.Requests(mock.JournalFilter{Session: sid})) }
	if count(a) != 0 || count(b) != 1 || count(mock.DefaultSession) != 1 {
		t.Errorf("journals after ClearRequests(%s): %d, %d, %d, want 0, 1, 1", a, count(a), count(b), count(mock.DefaultSession))
	}
	srv.ClearRequests(t, "")
	if count(mock.DefaultSession) != 0 || count(b) != 1 {
		t.Errorf("journals after ClearRequests(\"\"): default %d, %s %d, want 0, 1", count(mock.DefaultSession), b, count(b))
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, in(a)...)
	srv.ClearRequests(t, mock.AllSessions)
	if n := len(srv.Requests(mock.JournalFilter{})); n != 0 {
		t.Errorf("journal after ClearRequests(*): %d entries", n)
	}
	srv.Verify(t, mocktest.Pattern{}, mock.Exactly(0))
}

func TestSettings(t *testing.T) {
	srv := mocktest.New(t, mocktest.WithOptions(mock.Options{AdminToken: "admin-secret"}))
	sess := srv.Session(t)
	patchTone(t, srv, sess, "formal")
	srv.AddFaultFor(t, sess, mock.Fault{Error: &mock.FaultError{Status: 503}})
	srv.SetOverrides(t, sess, mock.Overrides{Auth: &mock.Auth{Type: "bearer", Tokens: []string{"x"}}})
	srv.ClearRequests(t, sess)

	var got mock.Settings
	passes(t, func(tb testing.TB) { got = srv.Settings(tb, sess) })
	if got.Feedback[4].Tone != "formal" || got.Feedback[0].Rating != 1 {
		t.Errorf("Settings(%s) = %+v, want the saved tone", sess, got.Feedback)
	}
	if got := srv.Settings(t, "").Feedback[4].Tone; got != "friendly" {
		t.Errorf("Settings of the default session: tone %q, want friendly", got)
	}
	if n := len(srv.Requests(mock.JournalFilter{})); n != 0 {
		t.Errorf("Settings left %d journal entries", n)
	}
}

func TestClock(t *testing.T) {
	srv := mocktest.New(t)
	shop, fixed := srv.Session(t), srv.Session(t)
	srv.SetScenario(t, shop, "demo-frozen")

	var start, moved time.Time
	passes(t, func(tb testing.TB) { start = srv.Now(tb, shop) })
	if start.IsZero() || start.Location() != time.UTC || start != srv.Now(t, shop) {
		t.Fatalf("Now = %v, then %v: want a frozen UTC time", start, srv.Now(t, shop))
	}
	passes(t, func(tb testing.TB) { moved = srv.AdvanceClock(tb, shop, 90*time.Minute) })
	if want := start.Add(90 * time.Minute); !moved.Equal(want) || !srv.Now(t, shop).Equal(want) {
		t.Errorf("AdvanceClock(90m) = %v, Now then %v, want %v", moved, srv.Now(t, shop), want)
	}
	if n := len(srv.Requests(mock.JournalFilter{})); n != 0 {
		t.Errorf("the clock helpers left %d journal entries", n)
	}

	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "advance: must be a duration from 1ns to 8784h"},
		{-time.Hour, `advance: must not be negative, got "-1h0m0s"`},
		{367 * 24 * time.Hour, "advance: must be a duration from 1ns to 8784h"},
	} {
		fails(t, func(tb testing.TB) { srv.AdvanceClock(tb, shop, tc.d) }, "AdvanceClock "+shop, "400 invalid_body: "+tc.want)
	}
	fails(t, func(tb testing.TB) { srv.Now(tb, fixed) }, "Now "+fixed, `scenario "default" has no living shop`)
	fails(t, func(tb testing.TB) { srv.AdvanceClock(tb, fixed, time.Hour) }, "AdvanceClock "+fixed, "no living shop")
	if got := srv.Now(t, shop); !got.Equal(moved) {
		t.Errorf("Now after refused moves = %v, want %v", got, moved)
	}

	// Behind an admin token, and on a read-only server, which refuses the move.
	guarded := mocktest.New(t, mocktest.WithOptions(mock.Options{Scenario: "demo-frozen", AdminToken: "admin-secret", ReadOnly: true}))
	if got := guarded.Now(t, ""); !got.Equal(start) {
		t.Errorf("Now behind an admin token = %v, want %v", got, start)
	}
	fails(t, func(tb testing.TB) { guarded.AdvanceClock(tb, "", time.Hour) }, "AdvanceClock default", "403")
}
