package mock

import (
	"crypto/subtle"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
)

// adminScope is the session an admin request is about: ?session=ID, else
// the X-Mock-Session header, else def. "*" means every session.
func adminScope(r *http.Request, def string) (string, error) {
	sid := r.URL.Query().Get("session")
	if sid == "" {
		sid = r.Header.Get(HeaderSession)
	}
	switch {
	case sid == "":
		return def, nil
	case sid == AllSessions || sessionIDRE.MatchString(sid):
		return sid, nil
	}
	return "", invalidParameter("session", "must be * or 1 to 128 letters, digits or ._:@-")
}

// requireAdmin guards the admin routes when an admin token is set; the
// token comes as a bearer token or in X-Mock-Admin-Token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.adminToken != "" && r.URL.Path != AdminPrefix+"/health" {
			got := r.Header.Get("X-Mock-Admin-Token")
			if got == "" {
				got, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.adminToken)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="replymock admin"`)
				s.writeError(w, r, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
					Message: "the admin API needs the admin token (Authorization: Bearer <token> or X-Mock-Admin-Token)"})
				return
			}
		}
		if s.readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.writeError(w, r, errReadOnly)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// adminHandler adapts a handler that returns its answer or an error.
func (s *Server) adminHandler(h func(r *http.Request) (int, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, data, err := h(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, status, envelope{Success: true, Data: data})
	}
}

// decodeAdminBody decodes a JSON body into v, strictly.
func decodeAdminBody(r *http.Request, v any) error {
	body, err := readJSONBody(nil, r)
	if err != nil {
		return err
	}
	return decodeStrict(body, v)
}

// handleScenariosList serves GET /__mock/scenarios.
func (s *Server) handleScenariosList(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	list := s.Scenarios(sid)
	active := ""
	for _, sc := range list {
		if sc.Active {
			active = sc.Name
		}
	}
	return http.StatusOK, map[string]any{"active": active, "scenarios": list}, nil
}

// handleScenarioPut serves PUT /__mock/scenario: {"name": "slow"}.
func (s *Server) handleScenarioPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeAdminBody(r, &body); err != nil {
		return 0, nil, err
	}
	if err := s.SetScenario(sid, body.Name); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]string{"scenario": body.Name, "session": sid}, nil
}

// handleReset serves POST /__mock/reset.
func (s *Server) handleReset(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	s.Reset(sid)
	return http.StatusOK, map[string]string{"reset": sid}, nil
}

// handleFaultsList serves GET /__mock/faults.
func (s *Server) handleFaultsList(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	faults := s.Faults(sid)
	if faults == nil {
		faults = []Fault{}
	}
	scope := sid
	if sid == AllSessions {
		scope = DefaultSession
	}
	_, sc, err := s.resolve(scope, "")
	if err != nil {
		return 0, nil, err
	}
	scenarioFaults := sc.faults
	if scenarioFaults == nil {
		scenarioFaults = []Fault{}
	}
	return http.StatusOK, map[string]any{"faults": faults, "scenario": sc.Name, "scenario_faults": scenarioFaults}, nil
}

// handleFaultsAdd serves POST /__mock/faults: a Fault in JSON.
func (s *Server) handleFaultsAdd(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	body, err := readJSONBody(nil, r)
	if err != nil {
		return 0, nil, err
	}
	f, err := decodeFault(body)
	if err != nil {
		return 0, nil, err
	}
	added, err := s.AddFault(sid, *f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, added, nil
}

// handleFaultsDelete serves DELETE /__mock/faults and /__mock/faults/{id}.
func (s *Server) handleFaultsDelete(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	id := mux.Vars(r)["id"]
	n := s.RemoveFaults(sid, id)
	if id != "" && n == 0 {
		return 0, nil, &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no run-time fault " + strconv.Quote(id)}
	}
	return http.StatusOK, map[string]int{"removed": n}, nil
}

// handleRequestsList serves GET /__mock/requests.
func (s *Server) handleRequestsList(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	q := r.URL.Query()
	f := JournalFilter{Method: q.Get("method"), Path: q.Get("path")}
	if sid != AllSessions {
		f.Session = sid
	}
	if v := q.Get("since"); v != "" {
		n, err := parseDigits(v)
		if err != nil {
			return 0, nil, invalidParameter("since", "must be a journal sequence number, got %q", v)
		}
		f.Since = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := parseDigits(v)
		if err != nil || n < 1 || n > 100_000 {
			return 0, nil, invalidParameter("limit", "must be an integer from 1 to 100000, got %q", v)
		}
		f.Limit = int(n)
	}
	list := s.Requests(f)
	if list == nil {
		list = []JournalEntry{}
	}
	return http.StatusOK, map[string]any{"count": len(list), "requests": list}, nil
}

// handleRequestsDelete serves DELETE /__mock/requests.
func (s *Server) handleRequestsDelete(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	s.ClearRequests(sid)
	return http.StatusOK, map[string]string{"cleared": sid}, nil
}

// Overrides change auth and the rate limit for every session, whatever
// the scenario says, until reset: the control page's switches.
type Overrides struct {
	// Auth, when set, replaces the scenario's auth: {"type":"none"} or
	// {"type":"bearer","tokens":["demo-token"]}.
	Auth *AuthOverride `json:"auth"`
	// RateLimit, when set, replaces the scenario's rate limit.
	RateLimit *RateLimit `json:"rate_limit"`
}

// AuthOverride is the auth part of Overrides.
type AuthOverride struct {
	Type   string   `json:"type"`
	Tokens []string `json:"tokens,omitempty"`
}

func (o Overrides) validate() error {
	if a := o.Auth; a != nil {
		switch {
		case a.Type != "none" && a.Type != "bearer":
			return invalidBody("auth.type", "must be none or bearer, got %q", a.Type)
		case a.Type == "bearer" && len(a.Tokens) == 0:
			return invalidBody("auth.tokens", "required with type bearer")
		case a.Type == "none" && len(a.Tokens) > 0:
			return invalidBody("auth.tokens", "only with type bearer")
		}
		for _, t := range a.Tokens {
			if t == "" || strings.ContainsAny(t, " \t\r\n") {
				return invalidBody("auth.tokens", "must be non-empty tokens without spaces")
			}
		}
	}
	if rl := o.RateLimit; rl != nil && (rl.Requests < 1 || rl.Window.D() < time.Millisecond || rl.Window.D() > 24*time.Hour) {
		return invalidBody("rate_limit", "requests must be at least 1 and window from 1ms to 24h")
	}
	return nil
}

// SetOverrides replaces the overrides; the zero value clears them.
func (s *Server) SetOverrides(o Overrides) error {
	if err := o.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overrides = o
	return nil
}

// handleOverridesGet serves GET /__mock/overrides.
func (s *Server) handleOverridesGet(*http.Request) (int, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return http.StatusOK, s.overrides, nil
}

// handleOverridesPut serves PUT /__mock/overrides.
func (s *Server) handleOverridesPut(r *http.Request) (int, any, error) {
	var o Overrides
	if err := decodeAdminBody(r, &o); err != nil {
		return 0, nil, err
	}
	if err := s.SetOverrides(o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o, nil
}

// oneSession resolves the one session an admin request is about (the
// default session unless named; "*" is refused) and its scenario, which
// is scenario if given, else the session's.
func (s *Server) oneSession(r *http.Request, scenario string) (string, *session, *Scenario, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil || sid == AllSessions {
		return "", nil, nil, invalidParameter("session", "must name one session")
	}
	ss, sc, err := s.resolve(sid, scenario)
	return sid, ss, sc, err
}

// handleSettingsView serves GET /__mock/settings: a session's settings,
// read without faults or auth.
func (s *Server) handleSettingsView(r *http.Request) (int, any, error) {
	sid, ss, sc, err := s.oneSession(r, "")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "scenario": sc.Name, "settings": ss.getSettings(sc)}, nil
}

// DataSummary is the data of GET /__mock/data: the reviews of a session's
// scenario by rating, and the newest few.
type DataSummary struct {
	Scenario   string            `json:"scenario"`
	Total      int               `json:"total"`
	Answered   int               `json:"answered"`
	Unanswered int               `json:"unanswered"`
	ByRating   [5]RatingCounts   `json:"by_rating"`
	Newest     []json.RawMessage `json:"newest"`
}

// RatingCounts counts the reviews of one rating.
type RatingCounts struct {
	Rating     int `json:"rating"`
	Answered   int `json:"answered"`
	Unanswered int `json:"unanswered"`
}

// handleData serves GET /__mock/data.
func (s *Server) handleData(r *http.Request) (int, any, error) {
	_, ss, sc, err := s.oneSession(r, "")
	if err != nil {
		return 0, nil, err
	}
	st, err := s.storeFor(apiContext{ss, sc}) // a living shop's, as the list shows it
	if err != nil {
		return 0, nil, err
	}
	all := query{limit: 5, answered: -1, dayFrom: math.MinInt32, dayTo: math.MaxInt32}
	res := st.find(all)
	d := DataSummary{Scenario: sc.Name, Total: res.total, Answered: res.answeredCount, Unanswered: res.unansweredCount, Newest: []json.RawMessage{}}
	for i := range d.ByRating {
		q := all
		q.rating, q.countsOnly = int8(i+1), true
		rr := st.find(q)
		d.ByRating[i] = RatingCounts{Rating: i + 1, Answered: rr.answeredCount, Unanswered: rr.unansweredCount}
	}
	for _, i := range res.page {
		d.Newest = append(d.Newest, st.json(i))
	}
	return http.StatusOK, d, nil
}
