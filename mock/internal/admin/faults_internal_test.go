package admin

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// GET /__mock/faults is written fault by fault, in the bytes wire.WriteJSON
// would have written for the whole answer.
func TestFaultsListStreamed(t *testing.T) {
	s := newTestServer(t, "first-calls-fail")
	body := `<html>"é"</html>`
	for i := range 5 {
		sid := session.All
		if i%2 == 1 {
			sid = "s1"
		}
		if _, _, err := s.State.PutFault(sid, fault.Fault{Name: fmt.Sprintf("f<%d>", i), Path: "/feedbacks", Error: &fault.ErrorAnswer{Status: 502, Body: &body}}, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ target, sid string }{{"/__mock/faults", session.All}, {"/__mock/faults?session=s1", "s1"}, {"/__mock/faults?session=none", "none"}} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		faults := s.State.Faults(tc.sid)
		if faults == nil {
			faults = []fault.Fault{}
		}
		sc, _, _ := s.State.Registry().Get("first-calls-fail")
		want, err := wire.MarshalJSON(wire.Envelope{Success: true, Data: struct {
			Faults         []fault.Fault     `json:"faults"`
			Scenario       string            `json:"scenario"`
			ScenarioFaults []fault.Fault     `json:"scenario_faults"`
			ScenarioAuth   string            `json:"scenario_auth"`
			ScenarioRate   *access.RateLimit `json:"scenario_rate_limit"`
		}{faults, sc.Name, sc.Faults(), "none", nil}})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != 200 || rec.Body.String() != string(want) {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", tc.target, rec.Code, rec.Body, want)
		}
	}
	empty := newTestServer(t, "default")
	rec := httptest.NewRecorder()
	empty.ServeHTTP(rec, httptest.NewRequest("GET", "/__mock/faults", nil))
	if want := `{"success":true,"data":{"faults":[],"scenario":"default","scenario_faults":[],"scenario_auth":"none","scenario_rate_limit":null}}`; rec.Body.String() != want {
		t.Errorf("no faults: %s, want %s", rec.Body, want)
	}
}
