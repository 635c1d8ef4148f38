package mocktest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

// sessionRE is what a session id may be, as the server checks it (a
// test compares the two).
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)

// Session returns a session id no other test of the server uses: the
// test's name, made fit for an id, and a number ("TestSync.retries-3").
// A client sends it in X-Mock-Session (mock.HeaderSession); the helpers
// that take a session then change that session alone, so tests sharing
// a server in parallel share nothing.
func (s *Server) Session(tb testing.TB) string {
	tb.Helper()
	name := strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return '.'
		case r < 128 && sessionRE.MatchString(string(r)):
			return r
		}
		return '_'
	}, tb.Name())
	return fmt.Sprintf("%.100s-%d", name, s.sessions.Add(1))
}

// sessionID is the session a helper acts on: "" is the default session,
// mock.AllSessions every session (the routes of one session refuse it).
// An id the server would refuse fails the test, as the admin routes
// refuse it, rather than change a session no request can reach.
func sessionID(tb testing.TB, helper, id string) string {
	tb.Helper()
	switch {
	case id == "":
		return mock.DefaultSession
	case id != mock.AllSessions && !sessionRE.MatchString(id):
		tb.Fatalf("mocktest: %s: session %q: must be 1 to 128 letters, digits or ._:@-", helper, id)
	}
	return id
}

// SetScenario makes name the scenario of session ("" for the default
// session; mock.AllSessions does what UseScenario does). An unknown name
// fails the test and changes nothing.
func (s *Server) SetScenario(tb testing.TB, session, name string) {
	tb.Helper()
	sid := sessionID(tb, "SetScenario", session)
	if err := s.Mock.SetScenario(sid, name); err != nil {
		tb.Fatalf("mocktest: SetScenario %s: %v", sid, err)
	}
}

// AddFaultFor adds a run-time fault for session alone ("" for the
// default session, mock.AllSessions as AddFault) and returns it with its
// id, for RemoveFault.
func (s *Server) AddFaultFor(tb testing.TB, session string, f mock.Fault) mock.Fault {
	tb.Helper()
	sid := sessionID(tb, "AddFaultFor", session)
	added, err := s.Mock.AddFault(sid, f)
	if err != nil {
		tb.Fatalf("mocktest: AddFaultFor %s: %v", sid, err)
	}
	return added
}

// FailNextFor is FailNext for session alone: its next n requests
// matching method and path answer status; other sessions' count apart.
func (s *Server) FailNextFor(tb testing.TB, session string, n int, method, path string, status int) mock.Fault {
	tb.Helper()
	return s.AddFaultFor(tb, session, mock.Fault{Method: method, Path: path, Times: n, Error: &mock.FaultError{Status: status}})
}

// RemoveFault removes the run-time fault with id (a mock.Fault's ID),
// whichever session it is for. None with that id fails the test.
func (s *Server) RemoveFault(tb testing.TB, id string) {
	tb.Helper()
	if id == "" || s.Mock.RemoveFaults(mock.AllSessions, id) == 0 {
		tb.Fatalf("mocktest: RemoveFault: no run-time fault %q", id)
	}
}

// ClearFaults removes the run-time faults of session ("" for the default
// session), or every run-time fault with mock.AllSessions, and reports
// how many went. The scenario's own faults stay.
func (s *Server) ClearFaults(tb testing.TB, session string) int {
	tb.Helper()
	return s.Mock.RemoveFaults(sessionID(tb, "ClearFaults", session), "")
}

// SetOverrides replaces the overrides of session ("" for the default
// session), or those for every session with mock.AllSessions: auth, the
// rate limit and strict mode whatever the scenario says. A session's
// own win over those for every session, field by field; the zero value
// clears them. A bad override fails the test with its field named and
// changes nothing.
func (s *Server) SetOverrides(tb testing.TB, session string, o mock.Overrides) {
	tb.Helper()
	sid := sessionID(tb, "SetOverrides", session)
	if err := s.Mock.SetOverridesFor(sid, o); err != nil {
		tb.Fatalf("mocktest: SetOverrides %s: %v", sid, err)
	}
}

// Strict turns strict mode on or off for session ("" for the default
// session; mock.AllSessions for every session), whatever the scenario
// says: on, a request with warnings (X-Mock-Warning) is answered 400
// invalid_parameter. The session's other overrides stay.
func (s *Server) Strict(tb testing.TB, session string, on bool) {
	tb.Helper()
	sid := sessionID(tb, "Strict", session)
	o := s.Mock.OverridesFor(sid)
	o.Strict = &on
	if err := s.Mock.SetOverridesFor(sid, o); err != nil {
		tb.Fatalf("mocktest: Strict %s: %v", sid, err)
	}
}

// ResetSession returns session ("" for the default session;
// mock.AllSessions does what Reset does) to the start: its settings,
// fault counters, rate limits, run-time faults, overrides, living shop
// and journal. Its scenario and seeded reviews stay.
func (s *Server) ResetSession(tb testing.TB, session string) {
	tb.Helper()
	s.Mock.Reset(sessionID(tb, "ResetSession", session))
}

// ClearRequests empties the journal of session ("" for the default
// session), or of every session with mock.AllSessions, so that Verify
// and Requests see only what comes next.
func (s *Server) ClearRequests(tb testing.TB, session string) {
	tb.Helper()
	s.Mock.ClearRequests(sessionID(tb, "ClearRequests", session))
}
