package mock

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/wire"
)

// GET /__mock/faults is written fault by fault, in the bytes wire.WriteJSON
// would have written for the whole answer.
func TestFaultsListStreamed(t *testing.T) {
	s, err := New(Options{Scenario: "first-calls-fail"})
	if err != nil {
		t.Fatal(err)
	}
	body := `<html>"é"</html>`
	for i := range 5 {
		sid := AllSessions
		if i%2 == 1 {
			sid = "s1"
		}
		if _, err := s.AddFault(sid, Fault{Name: fmt.Sprintf("f<%d>", i), Path: "/feedbacks", Error: &FaultError{Status: 502, Body: &body}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ target, sid string }{{"/__mock/faults", AllSessions}, {"/__mock/faults?session=s1", "s1"}, {"/__mock/faults?session=none", "none"}} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		faults := s.Faults(tc.sid)
		if faults == nil {
			faults = []Fault{}
		}
		sc := s.scenarioMap()["first-calls-fail"]
		want, err := wire.MarshalJSON(wire.Envelope{Success: true, Data: struct {
			Faults         []Fault    `json:"faults"`
			Scenario       string     `json:"scenario"`
			ScenarioFaults []Fault    `json:"scenario_faults"`
			ScenarioAuth   string     `json:"scenario_auth"`
			ScenarioRate   *RateLimit `json:"scenario_rate_limit"`
		}{faults, sc.Name, sc.Faults(), "none", nil}})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != 200 || rec.Body.String() != string(want) {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", tc.target, rec.Code, rec.Body, want)
		}
	}
	empty, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	empty.ServeHTTP(rec, httptest.NewRequest("GET", "/__mock/faults", nil))
	if want := `{"success":true,"data":{"faults":[],"scenario":"default","scenario_faults":[],"scenario_auth":"none","scenario_rate_limit":null}}`; rec.Body.String() != want {
		t.Errorf("no faults: %s, want %s", rec.Body, want)
	}
}

// The fault registry's owner of the faults for every session is the
// server's AllSessions: the Server hands its sessions' ids on as they are.
func TestFaultRegistryAllSessions(t *testing.T) {
	if fault.AllSessions != AllSessions {
		t.Errorf("fault.AllSessions = %q, AllSessions = %q", fault.AllSessions, AllSessions)
	}
}
