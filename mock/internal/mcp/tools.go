package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Scope is the session a tool acts on; every tool's input has it.
type Scope struct {
	Session string `json:"session,omitempty" jsonschema:"the replymock session (X-Mock-Session); default: this connection's own"`
}

func (s Scope) scope() string { return s.Session }

// Answer is every tool's structured result: the session it acted on and
// the data of the admin API's or the API's answer.
type Answer struct {
	Session string `json:"session" jsonschema:"the session the tool acted on"`
	Data    any    `json:"data" jsonschema:"the answer's data, as the admin API or the API returns it"`
}

// request is the HTTP request a tool's call makes in-process.
type request struct {
	method, path string
	query        url.Values
	body         any
}

// tool is one row of the tool table.
type tool struct {
	name, about string
	reads       bool // offered under --read-only
	add         func(s *Server, t *sdk.Tool)
}

// def is the tool called name, whose input In becomes the request
// build returns; schema, when not nil, edits In's inferred schema.
func def[In interface{ scope() string }](name, about string, reads bool, build func(In) request, schema func(*jsonschema.Schema)) tool {
	return tool{name: name, about: about, reads: reads, add: func(s *Server, t *sdk.Tool) {
		if schema != nil {
			in, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
				reflect.TypeFor[wire.Duration](): {Type: "string", Pattern: wire.DurationPattern, Description: "a duration such as 250ms or 2s"},
			}})
			if err != nil {
				panic(err)
			}
			schema(in)
			t.InputSchema = in
		}
		sdk.AddTool(s.sdk, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Answer, error) {
			sid := s.sessionOf(req.Session, in.scope())
			rq := build(in)
			data, err := s.call(ctx, sid, rq.method, rq.path, rq.query.Encode(), rq.body)
			if err != nil {
				return nil, Answer{}, err
			}
			return nil, Answer{Session: sid, Data: data}, nil
		})
	}}
}

// ReviewFilter is GET /api/v1/feedbacks' query; the API checks it.
type ReviewFilter struct {
	Scope
	Limit    int    `json:"limit,omitempty" jsonschema:"reviews per page, 1 to 100 (default 20)"`
	Offset   int    `json:"offset,omitempty" jsonschema:"reviews to skip"`
	Answered *int   `json:"answered,omitempty" jsonschema:"0: without reply (a reply moderation rejected counts as none), 1: with reply"`
	Rating   int    `json:"rating,omitempty" jsonschema:"only this rating"`
	NmID     int64  `json:"nm_id,omitempty" jsonschema:"only this product"`
	DateFrom string `json:"date_from,omitempty" jsonschema:"from this day, YYYY-MM-DD"`
	DateTo   string `json:"date_to,omitempty" jsonschema:"to this day, YYYY-MM-DD"`
	Search   string `json:"search,omitempty" jsonschema:"words the review's text holds"`
	// CountsOnly answers the counts of the filtered reviews, no page.
	CountsOnly bool `json:"counts_only,omitempty" jsonschema:"answer only the counts: total, answered and unanswered"`
}

// SettingsPatch is the body of PATCH /api/v1/settings/ai; its schema
// comes from the settings' field table (settingsSchema).
type SettingsPatch struct {
	Scope
	Settings map[string]any `json:"settings" jsonschema:"the fields to change, as PATCH /api/v1/settings/ai takes them"`
}

// Reviews are reviews to seed, as PUT /__mock/data takes them.
type Reviews struct {
	Scope
	Reviews []map[string]any `json:"reviews" jsonschema:"review records; fields left out are made up"`
}

// Advance moves a living shop's clock.
type Advance struct {
	Scope
	Advance string `json:"advance" jsonschema:"how far, a duration such as 2h or 30m"`
}

// FaultSpec is a fault to add, in the shape POST /__mock/faults and
// scenario files take: one member per kind, typed by the kind's Go type.
type FaultSpec struct {
	Scope
	fault.Fault
}

// FaultID names a fault to remove; none removes every one.
type FaultID struct {
	Scope
	ID string `json:"id,omitempty" jsonschema:"the fault's id; none removes all of the session's faults"`
}

// ScenarioName names a scenario.
type ScenarioName struct {
	Scope
	Name string `json:"name" jsonschema:"the scenario to serve"`
}

// JournalFilter picks journal entries, as GET /__mock/requests and
// /__mock/verify take them.
type JournalFilter struct {
	Scope
	Method string            `json:"method,omitempty" jsonschema:"only this method"`
	Path   string            `json:"path,omitempty" jsonschema:"only this path, with or without /api/v1; a prefix ending in *"`
	Query  map[string]string `json:"query,omitempty" jsonschema:"query parameters the request had"`
	Since  int64             `json:"since,omitempty" jsonschema:"only entries after this seq"`
	Wait   string            `json:"wait,omitempty" jsonschema:"wait this long (such as 5s) for a matching request"`
}

// RequestsFilter is JournalFilter with GET /__mock/requests' limit.
type RequestsFilter struct {
	JournalFilter
	Limit int `json:"limit,omitempty" jsonschema:"the newest this many entries"`
}

// VerifyFilter is JournalFilter with GET /__mock/verify's counts.
type VerifyFilter struct {
	JournalFilter
	Count *int `json:"count,omitempty" jsonschema:"exactly this many"`
	Min   *int `json:"min,omitempty" jsonschema:"at least this many"`
	Max   *int `json:"max,omitempty" jsonschema:"at most this many"`
}

// query is a tool's input as its request's query: the members of its
// JSON but the session, each under its own name, true as 1 and a map's
// members as NAME.KEY. The inputs name their members as the API and the
// admin API name their parameters.
func query(in any) url.Values {
	b, err := json.Marshal(in)
	if err != nil {
		panic(err) // of plain fields: it cannot fail
	}
	var members map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&members); err != nil {
		panic(err)
	}
	delete(members, "session")
	q := url.Values{}
	for k, v := range members {
		switch v := v.(type) {
		case bool:
			if v {
				q.Set(k, "1")
			}
		case map[string]any:
			for key, val := range v {
				q.Set(k+"."+key, fmt.Sprint(val))
			}
		default:
			q.Set(k, fmt.Sprint(v))
		}
	}
	return q
}

const (
	feedbacks = "/api/v1/feedbacks"
	admin     = "/__mock"
)

func get(path string) func(Scope) request {
	return func(Scope) request { return request{method: http.MethodGet, path: path} }
}

// tools is the tool table: the one list of the server's tools, which
// README.md beside this file lists too.
var tools = []tool{
	def("list_reviews", "List the shop's reviews with the API's filters (GET /api/v1/feedbacks; the journal records it).", true,
		func(f ReviewFilter) request {
			return request{method: http.MethodGet, path: feedbacks, query: query(f)}
		}, reviewBounds),
	def("count_reviews", "Count the reviews by rating and answered, with the newest five (GET /__mock/data).", true, get(admin+"/data"), nil),
	def("get_settings", "Show the auto-reply settings (GET /__mock/settings).", true, get(admin+"/settings"), nil),
	def("patch_settings", "Change auto-reply settings (PATCH /api/v1/settings/ai).", false,
		func(p SettingsPatch) request {
			return request{method: http.MethodPatch, path: "/api/v1/settings/ai", body: p.Settings}
		}, settingsSchema),
	def("seed_reviews", "Replace the session's reviews with these (PUT /__mock/data).", false,
		func(r Reviews) request { return seed("replace", r) }, nil),
	def("append_reviews", "Add these reviews to the session's (PUT /__mock/data, mode append).", false,
		func(r Reviews) request { return seed("append", r) }, nil),
	def("clear_reviews", "Drop the seeded reviews: the scenario's data again (DELETE /__mock/data).", false,
		func(Scope) request { return request{method: http.MethodDelete, path: admin + "/data"} }, nil),
	def("move_clock", "Move a living shop's clock ahead and run what falls due (POST /__mock/clock).", false,
		func(a Advance) request {
			return request{method: http.MethodPost, path: admin + "/clock", body: map[string]string{"advance": a.Advance}}
		}, nil),
	def("add_fault", "Make API requests fail: latency, an error, a dropped or a truncated answer (POST /__mock/faults).", false,
		func(f FaultSpec) request {
			return request{method: http.MethodPost, path: admin + "/faults", body: f.Fault}
		}, faultSchema),
	def("list_faults", "List the faults in force (GET /__mock/faults).", true, get(admin+"/faults"), nil),
	def("remove_fault", "Remove a fault by id, or all of them (DELETE /__mock/faults).", false,
		func(f FaultID) request {
			if f.ID == "" {
				return request{method: http.MethodDelete, path: admin + "/faults"}
			}
			return request{method: http.MethodDelete, path: admin + "/faults/" + url.PathEscape(f.ID)}
		}, nil),
	def("list_scenarios", "List the scenarios the server knows (GET /__mock/scenarios).", true, get(admin+"/scenarios"), nil),
	def("switch_scenario", "Serve another scenario to the session (PUT /__mock/scenario).", false,
		func(n ScenarioName) request {
			return request{method: http.MethodPut, path: admin + "/scenario", body: map[string]string{"name": n.Name}}
		}, nil),
	def("reset_session", "Put the session back to its scenario's start (POST /__mock/reset).", false,
		func(Scope) request { return request{method: http.MethodPost, path: admin + "/reset"} }, nil),
	def("list_requests", "List the API requests the session's journal kept (GET /__mock/requests).", true,
		func(f RequestsFilter) request {
			return request{method: http.MethodGet, path: admin + "/requests", query: query(f)}
		}, nil),
	def("verify", "Check that matching requests came, with counts and the near misses when not (GET /__mock/verify).", true,
		func(f VerifyFilter) request {
			return request{method: http.MethodGet, path: admin + "/verify", query: query(f)}
		}, nil),
	def("wait_request", "Wait for a matching request, 5s unless wait says otherwise (GET /__mock/requests?wait=).", true,
		func(f RequestsFilter) request {
			if f.Wait == "" {
				f.Wait = "5s"
			}
			return request{method: http.MethodGet, path: admin + "/requests", query: query(f)}
		}, nil),
	probeTool,
}

func seed(mode string, r Reviews) request {
	reviews := r.Reviews
	if reviews == nil {
		reviews = []map[string]any{}
	}
	return request{method: http.MethodPut, path: admin + "/data", body: map[string]any{"mode": mode, "reviews": reviews}}
}

// reviewBounds sets list_reviews' integer ranges from the API's table
// of its query parameters.
func reviewBounds(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		if lo, hi, ok := api.ListParamBounds(name); ok {
			min, max := float64(lo), float64(hi)
			p.Minimum = &min
			if hi < math.MaxInt32 {
				p.Maximum = &max
			}
		}
	}
}

// faultOptions describes the options every fault kind takes.
var faultOptions = map[string]string{
	"name":        "a name to find or remove it by",
	"method":      "only requests of this method",
	"path":        "only requests to this path, with or without /api/v1 (a glob: /settings/*)",
	"probability": "the chance it fires, 0 to 1 (default 1)",
	"after":       "let this many matching requests pass first",
	"times":       "fire at most this many times (0: no limit)",
	"seed":        "varies the random draws of probability and latency",
}

// faultSchema makes add_fault's input say that a fault does at least one
// thing: one of the kinds of the fault kind table, each typed by its
// member of fault.Fault. The server refuses more than one.
func faultSchema(s *jsonschema.Schema) {
	delete(s.Properties, "id") // given by the server
	for name, about := range faultOptions {
		s.Properties[name].Description = about
	}
	for _, k := range fault.Kinds() {
		s.Properties[k.Name].Description = "the fault kind " + k.Name + " (scenarios/README.md, Faults)"
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Required: []string{k.Name}})
	}
}

// settingsSchema types patch_settings' settings by the settings' field
// table: up to five feedback elements, one per rating, and question.
func settingsSchema(s *jsonschema.Schema) {
	feedback, err := schemaOf(settings.ElementSchema(false))
	question, err2 := schemaOf(settings.ElementSchema(true))
	if err = cmp.Or(err, err2); err != nil {
		panic(err)
	}
	five := 5
	s.Properties["settings"] = &jsonschema.Schema{
		Type:        "object",
		Description: "the fields to change, as PATCH /api/v1/settings/ai takes them",
		Properties: map[string]*jsonschema.Schema{
			"feedback": {Type: "array", Items: feedback, MaxItems: &five, Description: "per rating: each element names its rating and the fields to change"},
			"question": question,
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// schemaOf reads a JSON Schema written as Go values.
func schemaOf(v map[string]any) (*jsonschema.Schema, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := new(jsonschema.Schema)
	return s, json.Unmarshal(b, s)
}
