package admin

import (
	"cmp"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleFaultsList serves GET /__mock/faults: the run-time faults of the
// session (or of all), and its scenario's faults, auth type (not its
// tokens) and rate limit. Faults may hold large bodies, so the answer
// is streamed.
func (a *Admin) handleFaultsList(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	faults := a.State.Faults(sid)
	of := sid // the session whose scenario is shown
	if sid == session.All {
		of = session.Default
	}
	_, sc, err := a.State.Peek(of, "")
	if err != nil {
		return 0, nil, err
	}
	auth := cmp.Or(sc.Auth().Type, "none")
	return http.StatusOK, faultsList{faults: faults, scenario: sc.Name, scenarioFaults: sc.Faults(), scenarioAuth: auth, scenarioRate: sc.RateLimit()}, nil
}

// faultsList is the data of GET /__mock/faults.
type faultsList struct {
	faults         []fault.Fault
	scenario       string
	scenarioFaults []fault.Fault
	scenarioAuth   string
	scenarioRate   *access.RateLimit
}

func (l faultsList) writeData(js *wire.Stream) {
	js.Raw(`{"faults":`)
	wire.StreamArray(js, l.faults)
	js.Raw(`,"scenario":`)
	js.Value(l.scenario)
	js.Raw(`,"scenario_faults":`)
	wire.StreamArray(js, l.scenarioFaults)
	js.Raw(`,"scenario_auth":`)
	js.Value(l.scenarioAuth)
	js.Raw(`,"scenario_rate_limit":`)
	js.Value(l.scenarioRate)
	js.Raw("}")
}

// handleFaultsPut serves POST /__mock/faults, which adds a fault, and
// PUT, where a named fault replaces the run-time faults of its name.
func (a *Admin) handleFaultsPut(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	body, err := wire.ReadJSONBody(nil, r, fault.Shape)
	if err != nil {
		return 0, nil, err
	}
	f, err := fault.Decode(body)
	if err != nil {
		return 0, nil, err
	}
	if probs := f.CanFire(); len(probs) > 0 && !a.mayProxy() {
		return 0, nil, wire.InvalidBody(probs[0].Field, "%s", probs[0].Msg)
	}
	replace := r.Method == http.MethodPut
	put, _, err := a.State.PutFault(sid, *f, replace)
	if err != nil {
		return 0, nil, err
	}
	if replace {
		return http.StatusOK, put, nil
	}
	return http.StatusCreated, put, nil
}

// handleFaultsDelete serves DELETE /__mock/faults and /__mock/faults/{id}.
func (a *Admin) handleFaultsDelete(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	id := mux.Vars(r)["id"]
	n := a.State.RemoveFaults(sid, id)
	if id != "" && n == 0 {
		msg := "no run-time fault " + strconv.Quote(id)
		if sid != session.All {
			msg += " in session " + sid
		}
		return 0, nil, &wire.APIError{Status: http.StatusNotFound, Code: wire.CodeNotFound, Message: msg}
	}
	return http.StatusOK, map[string]int{"removed": n}, nil
}

// mayProxy reports whether a request may go to a real service: the
// server's --proxy, or a scenario's proxy. A fault may then be for a
// path replymock does not fake.
func (a *Admin) mayProxy() bool {
	if a.Proxied {
		return true
	}
	for _, sc := range a.State.Registry().All() {
		if sc.Proxy() != nil {
			return true
		}
	}
	return false
}
