package mock

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// adminParams are the parameters every admin route may take; a route
// that takes others reads them itself, and others pass unread.
var adminParams = &wire.Params{Names: []string{"session", "scenario"}, IgnoreUnknown: true}

// adminScope is the session an admin request is about: ?session=ID, else
// the X-Mock-Session header, else def. "*" means every session.
func adminScope(r *http.Request, def string) (string, error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, adminParams)
	if err != nil {
		return "", err
	}
	return sessionParam(q, r, def)
}

// sessionParam is the session q names (session=), else the X-Mock-Session
// header, else def; a scenario= given twice is refused here too.
func sessionParam(q wire.Query, r *http.Request, def string) (string, error) {
	if _, _, err := q.Get("scenario"); err != nil {
		return "", err
	}
	sid, _, err := q.Get("session")
	if err != nil {
		return "", err
	}
	if sid == "" {
		sid = r.Header.Get(HeaderSession)
	}
	switch {
	case sid == "":
		return def, nil
	case sid == AllSessions || validID(sid):
		return sid, nil
	}
	return "", wire.InvalidParameter("session", "must be * or "+msgBadSessionID)
}

// requireAdmin guards the admin routes when an admin token is set; the
// token comes as a bearer token or in X-Mock-Admin-Token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.adminToken != "" && r.URL.Path != AdminPrefix+"/health" && !access.AdminTokenOK(r, s.adminToken) {
			access.SetChallenge(w.Header(), access.RealmAdmin)
			s.writeError(w, r, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
				Message: "the admin API needs the admin token (Authorization: Bearer <token> or X-Mock-Admin-Token)"})
			return
		}
		if s.readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.writeError(w, r, wire.ErrReadOnly)
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
		if st, ok := data.(streamed); ok {
			s.writeStreamed(w, r, status, st)
			return
		}
		wire.WriteJSON(w, status, wire.Envelope{Success: true, Data: data})
	}
}

// streamed is the data of an answer too large to build whole: it writes
// itself a piece at a time, so that memory holds one piece, not the
// answer. The envelope around it is the same as wire.WriteJSON's, and the
// bytes too; only the Content-Length is missing (HTTP/1.1 sends it
// chunked).
type streamed interface {
	writeData(js *wire.Stream)
}

// writeStreamed answers with data in the success envelope, as it is
// encoded. An encoding failure, once the answer has begun, can only cut
// the connection: the client sees a broken answer, not a wrong one.
func (s *Server) writeStreamed(w http.ResponseWriter, r *http.Request, status int, data streamed) {
	if rel, ok := data.(interface{ release() }); ok {
		defer rel.release() // written, or the client gone: what it pinned is free
	}
	w.Header().Set("Content-Type", wire.ContentTypeJSON)
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	js := wire.NewStream(w)
	js.Raw(`{"success":true,"data":`)
	data.writeData(js)
	js.Raw("}")
	if err := js.Flush(); err != nil && js.EncodingFailed() {
		s.log.Error("admin answer encoding failed", "method", r.Method, "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// decodeAdminBody decodes a JSON body into v, strictly.
func decodeAdminBody(r *http.Request, v any) error {
	body, err := wire.ReadJSONBody(nil, r)
	if err != nil {
		return err
	}
	return wire.DecodeStrict(body, v)
}

// Health is the data of GET /__mock/health.
type Health struct {
	Status        string  `json:"status"`
	Scenario      string  `json:"scenario"`
	Reviews       int     `json:"reviews"`
	UptimeSeconds float64 `json:"uptime_seconds"`
	Version       string  `json:"version"`
}

// handleHealth serves GET /__mock/health; it needs no admin token.
func (s *Server) handleHealth(*http.Request) (int, any, error) {
	sc := s.Scenario()
	n, err := sc.Len()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, Health{Status: "ok", Scenario: sc.Name, Reviews: n,
		UptimeSeconds: s.now().Sub(s.started).Round(time.Second).Seconds(), Version: s.version}, nil
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

// handleFaultsList serves GET /__mock/faults: {"faults":[...],
// "scenario":NAME,"scenario_faults":[...],"scenario_auth":"none"|"bearer",
// "scenario_rate_limit":{...}|null}, the run-time faults of the session
// (or all of them) and what its scenario itself does to requests: its
// faults, auth and rate limit (overrides may replace the last two). The
// scenario's tokens are not shown. The answer is written fault by fault
// as it is encoded, not built whole.
func (s *Server) handleFaultsList(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	faults := s.Faults(sid)
	scope := sid
	if sid == AllSessions {
		scope = DefaultSession
	}
	_, sc, err := s.peek(scope, "")
	if err != nil {
		return 0, nil, err
	}
	auth := cmp.Or(sc.Auth().Type, "none")
	return http.StatusOK, faultsList{faults: faults, scenario: sc.Name, scenarioFaults: sc.Faults(), scenarioAuth: auth, scenarioRate: sc.RateLimit()}, nil
}

// faultsList is the data of GET /__mock/faults.
type faultsList struct {
	faults         []Fault
	scenario       string
	scenarioFaults []Fault
	scenarioAuth   string
	scenarioRate   *RateLimit
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

// handleFaultsAdd serves POST /__mock/faults: a Fault in JSON.
func (s *Server) handleFaultsAdd(r *http.Request) (int, any, error) {
	sid, f, err := faultRequest(r)
	if err != nil {
		return 0, nil, err
	}
	added, err := s.AddFault(sid, *f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, added, nil
}

// handleFaultsReplace serves PUT /__mock/faults: a named Fault in JSON
// that takes the place of the run-time faults of that name, in one step.
func (s *Server) handleFaultsReplace(r *http.Request) (int, any, error) {
	sid, f, err := faultRequest(r)
	if err != nil {
		return 0, nil, err
	}
	put, _, err := s.ReplaceFault(sid, *f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, put, nil
}

// faultRequest reads a request that carries a fault: its scope (a
// session, or AllSessions) and the Fault in its JSON body.
func faultRequest(r *http.Request) (string, *Fault, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return "", nil, err
	}
	body, err := wire.ReadJSONBody(nil, r)
	if err != nil {
		return "", nil, err
	}
	f, err := fault.Decode(body)
	return sid, f, err
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

// handleRequestsList serves GET /__mock/requests: {"count":N,"requests":
// [...]}, the journal entries that match the pattern (parseJournalQuery),
// oldest first. ?since=SEQ gives only the newer entries (for polling),
// ?limit=N (1 to 100000) the newest N, and ?wait=5s holds the answer
// until at least one entry matches or the wait ends (then the list is
// empty). Without them, every entry kept, at most Options.JournalEntries.
// The entries are gathered under the journals' locks as references, then
// written one by one as they are encoded, so listing a full journal holds
// a reference per entry and one encoded entry at a time, not the answer.
func (s *Server) handleRequestsList(r *http.Request) (int, any, error) {
	q, err := parseJournalQuery(r, "limit")
	if err != nil {
		return 0, nil, err
	}
	limit := 0
	if v, ok := q.params["limit"]; ok {
		n, err := wire.ParseDigits(v)
		if err != nil || n < 1 || n > 100_000 {
			return 0, nil, wire.InvalidParameter("limit", "must be an integer from 1 to 100000, got %q", v)
		}
		limit = int(n)
	}
	if err := s.waitFor(r, q, 1); err != nil {
		return 0, nil, err
	}
	l, err := s.journals.List(q.p, limit)
	if err != nil {
		return 0, nil, err // past journal.MaxListingBytes
	}
	return http.StatusOK, requestsList{l}, nil
}

// MaxListingBytes bounds the journal entries that listings being written
// keep alive together: an entry the journal drops meanwhile lives on
// until its listing is written, and a client may read slowly. A listing
// always fits alone (the journals keep at most Options.JournalBytes).
const MaxListingBytes = journal.MaxListingBytes

// requestsList is the data of GET /__mock/requests: the entries, pinned
// until they are written.
type requestsList struct{ *journal.Listing }

func (l requestsList) release() { l.Release() }

func (l requestsList) writeData(js *wire.Stream) {
	js.Raw(`{"count":` + strconv.Itoa(l.Len()) + `,"requests":[`)
	for i := range l.Len() {
		if js.Err() != nil {
			return // the client is gone: build no more entries
		}
		if i > 0 {
			js.Raw(",")
		}
		e := l.Entry(i)
		js.Value(&e)
	}
	js.Raw("]}")
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

// handleOverridesGet serves GET /__mock/overrides: those for every
// session, or ?session=ID's own.
func (s *Server) handleOverridesGet(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.OverridesFor(sid), nil
}

// handleOverridesPut serves PUT /__mock/overrides: for every session,
// or ?session=ID.
func (s *Server) handleOverridesPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, AllSessions)
	if err != nil {
		return 0, nil, err
	}
	var o Overrides
	if err := decodeAdminBody(r, &o); err != nil {
		return 0, nil, err
	}
	if err := s.SetOverridesFor(sid, o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o, nil
}

// oneSession names the one session an admin request is about: the
// default session unless named; "*" is refused.
func oneSession(r *http.Request) (string, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return "", err
	}
	if sid == AllSessions {
		return "", wire.InvalidParameter("session", "must name one session, not *")
	}
	return sid, nil
}

// handleSettingsView serves GET /__mock/settings: a session's settings,
// read without faults or auth.
func (s *Server) handleSettingsView(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	ss, sc, err := s.peek(sid, "")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "scenario": sc.Name, "settings": ss.settings(sc)}, nil
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
	Seeded     *SeedInfo         `json:"seeded"` // null: the scenario's own data
}

// RatingCounts counts the reviews of one rating.
type RatingCounts struct {
	Rating     int `json:"rating"`
	Answered   int `json:"answered"`
	Unanswered int `json:"unanswered"`
}

// handleData serves GET /__mock/data.
func (s *Server) handleData(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	ss, sc, err := s.peek(sid, requestScenario(r))
	if err != nil {
		return 0, nil, err
	}
	st, err := ss.reviews(sc, s.now()) // a living shop's, as the list shows it
	if err != nil {
		return 0, nil, err
	}
	all := reviews.All()
	all.Limit = 5
	res := st.Find(all)
	d := DataSummary{Scenario: sc.Name, Total: res.Total, Answered: res.Answered, Unanswered: res.Unanswered, Newest: []json.RawMessage{},
		Seeded: ss.seedInfo(sc)}
	for i := range d.ByRating {
		q := all
		q.Rating, q.CountsOnly = int8(i+1), true
		rr := st.Find(q)
		d.ByRating[i] = RatingCounts{Rating: i + 1, Answered: rr.Answered, Unanswered: rr.Unanswered}
	}
	for _, i := range res.Page {
		d.Newest = append(d.Newest, st.JSON(i))
	}
	return http.StatusOK, d, nil
}

// requestScenario is the scenario an admin request names: ?scenario=,
// else X-Mock-Scenario; "" for the session's.
func requestScenario(r *http.Request) string {
	q, _ := wire.ReadQuery(r.URL.RawQuery, adminParams) // adminScope has refused a bad one
	if name, _, _ := q.Get("scenario"); name != "" {
		return name
	}
	return r.Header.Get(HeaderScenario)
}

// handleDataPut serves PUT /__mock/data: reviews seeded for one session
// (see Server.SeedReviews), in JSON or YAML.
func (s *Server) handleDataPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	if sid == AllSessions {
		return 0, nil, errSeedAllSessions
	}
	body, err := readSeedBody(r)
	if err != nil {
		return 0, nil, err
	}
	mode, recs, err := decodeSeedBody(body)
	if err != nil {
		return 0, nil, err
	}
	res, err := s.SeedReviews(sid, requestScenario(r), mode, recs)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

// handleDataDelete serves DELETE /__mock/data: a session (or every one,
// for session=*) back to its scenarios' data.
func (s *Server) handleDataDelete(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "removed": s.ClearSeeded(sid)}, nil
}

// maxClockYear is the last year a living shop's clock reaches: the dates
// it writes stay four-digit years, with room.
const maxClockYear = 2199

// Clock is the data of /__mock/clock.
type Clock struct {
	Session  string `json:"session"`
	Scenario string `json:"scenario"`
	Now      string `json:"now"`
	Frozen   bool   `json:"frozen"`
}

// handleClock serves GET and POST /__mock/clock: a session's shop clock,
// and {"advance":"2h"} to move it ahead and run everything due. The
// scenario is the session's, or ?scenario= / X-Mock-Scenario.
func (s *Server) handleClock(r *http.Request) (int, any, error) {
	var body struct {
		Advance Duration `json:"advance"`
	}
	if r.Method == http.MethodPost {
		if err := decodeAdminBody(r, &body); err != nil {
			return 0, nil, err
		}
		if body.Advance <= 0 || body.Advance.D() > 366*24*time.Hour {
			return 0, nil, wire.InvalidBody("advance", "must be a duration from 1ns to 8784h, such as \"2h\"")
		}
	}
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	name := requestScenario(r)
	find := s.peek // reading the clock creates no session
	if r.Method == http.MethodPost {
		find = s.resolve
	}
	ss, sc, err := find(sid, name)
	if err != nil {
		return 0, nil, err
	}
	if sc.Shop() == nil {
		return 0, nil, wire.InvalidParameter("session", "scenario %q has no living shop (its file has no shop:)", sc.Name)
	}
	now := s.now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sh, err := ss.runShop(sc, now)
	if err != nil {
		return 0, nil, err
	}
	if body.Advance > 0 {
		if sh.now(now).Add(body.Advance.D()).Year() > maxClockYear {
			return 0, nil, wire.InvalidBody("advance", "the shop's clock would pass the end of %d; POST /__mock/reset starts it again", maxClockYear)
		}
		sh.advance(body.Advance.D())
		if err := sh.run(sh.now(now), ss.state(sc).settings); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, Clock{Session: sid, Scenario: sc.Name, Now: sh.now(now).Format(reviews.TimestampLayout), Frozen: sh.spec.Clock == "frozen"}, nil
}

// handleMetrics serves GET /__mock/metrics in the Prometheus text format.
func (s *Server) handleMetrics() http.Handler {
	return promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})
}

// openAPIYAML is the OpenAPI 3.0 document of the API as replymock serves it.
//
//go:embed openapi.yaml
var openAPIYAML []byte

// adminOpenAPIYAML is the OpenAPI 3.0 document of the admin API.
//
//go:embed admin-openapi.yaml
var adminOpenAPIYAML []byte

// OpenAPIDocument returns the OpenAPI 3.0 document (YAML) of the API as
// replymock serves it; the caller may change the copy it gets.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIYAML) }

// AdminOpenAPIDocument returns the OpenAPI 3.0 document (YAML) of the
// admin API under /__mock/; the caller may change the copy it gets.
func AdminOpenAPIDocument() []byte { return bytes.Clone(adminOpenAPIYAML) }

// The documents converted to JSON, and the API's with absolute paths,
// once.
var (
	openAPIJSON         = sync.OnceValues(func() ([]byte, error) { return yamlDocToJSON(openAPIYAML) })
	adminOpenAPIJSON    = sync.OnceValues(func() ([]byte, error) { return yamlDocToJSON(adminOpenAPIYAML) })
	openAPIAbsolute     = sync.OnceValues(func() ([]byte, error) { return absolutePaths(openAPIYAML, APIPrefix) })
	openAPIAbsoluteJSON = sync.OnceValues(func() ([]byte, error) {
		doc, err := openAPIAbsolute()
		if err != nil {
			return nil, err
		}
		return yamlDocToJSON(doc)
	})
)

// absolutePaths rewrites an OpenAPI document whose paths are relative to
// its server's base (prefix) into one whose paths hold the base and whose
// server is the host's root, for tools that ignore servers (Prism's
// validation proxy, some gateways).
func absolutePaths(doc []byte, prefix string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi: not a mapping")
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch key, val := top.Content[i].Value, top.Content[i+1]; key {
		case "servers":
			for _, srv := range val.Content {
				for j := 0; j+1 < len(srv.Content); j += 2 {
					if srv.Content[j].Value == "url" {
						srv.Content[j+1].Value = "/"
					}
				}
			}
		case "paths":
			for j := 0; j < len(val.Content); j += 2 {
				val.Content[j].Value = prefix + val.Content[j].Value
			}
		}
	}
	return yaml.Marshal(&root)
}

func yamlDocToJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	return json.MarshalIndent(v, "", "  ")
}

// openAPIParams are what the OpenAPI documents' routes take.
var openAPIParams = &wire.Params{Names: []string{"paths"}, IgnoreUnknown: true}

// handleOpenAPI serves an OpenAPI document: GET /__mock/openapi.yaml and
// .json (the API's), /__mock/admin/openapi.yaml and .json (the admin
// API's). doc makes it; absolute, for ?paths=absolute, makes it with
// absolute paths (nil: its paths are absolute already).
func (s *Server) handleOpenAPI(ctype string, doc, absolute func() ([]byte, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		build := doc
		q, err := wire.ReadQuery(r.URL.RawQuery, openAPIParams)
		v, given, verr := q.Get("paths")
		switch {
		case err != nil || verr != nil:
			s.writeError(w, r, cmp.Or(err, verr))
			return
		case !given || v == "relative":
		case v == "absolute":
			if absolute != nil {
				build = absolute
			}
		default:
			s.writeError(w, r, wire.InvalidParameter("paths", "must be relative (the default: paths after the servers base) or absolute (paths whole, server /), got %q", wire.Clip(v)))
			return
		}
		body, err := build()
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// uiFiles is the control panel: static files, no build step, nothing
// fetched from elsewhere, so it works offline.
//
//go:embed ui
var uiFiles embed.FS

// handleUI serves the control panel at /__mock/ and its files under
// /__mock/ui/. The page holds no secret: it asks for the admin token and
// sends it with its API calls, so it is served without one.
func (s *Server) handleUI() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the folder is embedded: it is there
	}
	files := http.StripPrefix(AdminPrefix+"/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		// No other site may frame the panel (clickjacking its switches).
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.URL.Path == AdminPrefix+"/" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		files.ServeHTTP(w, r)
	})
}
