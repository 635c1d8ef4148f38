package mcp

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/fault"
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
			in, err := jsonschema.For[In](nil)
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
	Answered *int   `json:"answered,omitempty" jsonschema:"0: without reply, 1: with reply"`
	Rating   int    `json:"rating,omitempty" jsonschema:"only this rating"`
	NmID     int64  `json:"nm_id,omitempty" jsonschema:"only this product"`
	DateFrom string `json:"date_from,omitempty" jsonschema:"from this day, YYYY-MM-DD"`
	DateTo   string `json:"date_to,omitempty" jsonschema:"to this day, YYYY-MM-DD"`
	Search   string `json:"search,omitempty" jsonschema:"words the review's text holds"`
}

func (f ReviewFilter) query() url.Values {
	q := url.Values{}
	set := func(k string, v int64) {
		if v != 0 {
			q.Set(k, strconv.FormatInt(v, 10))
		}
	}
	set("limit", int64(f.Limit))
	set("offset", int64(f.Offset))
	set("rating", int64(f.Rating))
	set("nm_id", f.NmID)
	if f.Answered != nil {
		q.Set("answered", strconv.Itoa(*f.Answered))
	}
	for k, v := range map[string]string{"date_from": f.DateFrom, "date_to": f.DateTo, "search": f.Search} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// SettingsPatch is the body of PATCH /api/v1/settings/ai.
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

// FaultSpec is a fault to add, as POST /__mock/faults takes it.
type FaultSpec struct {
	Scope
	Kind        string   `json:"kind" jsonschema:"what the fault does"`
	Value       any      `json:"value,omitempty" jsonschema:"the kind's settings, as POST /__mock/faults takes them under the kind's name (error: {status: 503}); none for a kind that takes true (drop)"`
	Name        string   `json:"name,omitempty" jsonschema:"a name to remove it by"`
	Method      string   `json:"method,omitempty" jsonschema:"only requests of this method"`
	Path        string   `json:"path,omitempty" jsonschema:"only requests to this path (a pattern)"`
	Probability *float64 `json:"probability,omitempty" jsonschema:"the chance it fires, 0 to 1"`
	After       int      `json:"after,omitempty" jsonschema:"let this many requests pass first"`
	Times       int      `json:"times,omitempty" jsonschema:"fire at most this many times"`
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
	Path   string            `json:"path,omitempty" jsonschema:"only this path"`
	Query  map[string]string `json:"query,omitempty" jsonschema:"query parameters the request had"`
	Wait   string            `json:"wait,omitempty" jsonschema:"wait this long (such as 5s) for a matching request"`
	Count  *int              `json:"count,omitempty" jsonschema:"verify: exactly this many"`
	Min    *int              `json:"min,omitempty" jsonschema:"verify: at least this many"`
	Max    *int              `json:"max,omitempty" jsonschema:"verify: at most this many"`
}

func (f JournalFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"method": f.Method, "path": f.Path, "wait": f.Wait} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, v := range f.Query {
		q.Set("query."+k, v)
	}
	for k, v := range map[string]*int{"count": f.Count, "min": f.Min, "max": f.Max} {
		if v != nil {
			q.Set(k, strconv.Itoa(*v))
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
			return request{method: http.MethodGet, path: feedbacks, query: f.query()}
		}, reviewBounds),
	def("count_reviews", "Count the reviews by rating and answered, with the newest five (GET /__mock/data).", true, get(admin+"/data"), nil),
	def("get_settings", "Show the auto-reply settings (GET /__mock/settings).", true, get(admin+"/settings"), nil),
	def("patch_settings", "Change auto-reply settings (PATCH /api/v1/settings/ai).", false,
		func(p SettingsPatch) request {
			return request{method: http.MethodPatch, path: "/api/v1/settings/ai", body: p.Settings}
		}, nil),
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
		addFault, faultKinds),
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
		func(f JournalFilter) request {
			return request{method: http.MethodGet, path: admin + "/requests", query: f.query()}
		}, nil),
	def("verify", "Check that matching requests came, with counts and the near misses when not (GET /__mock/verify).", true,
		func(f JournalFilter) request {
			return request{method: http.MethodGet, path: admin + "/verify", query: f.query()}
		}, nil),
	def("wait_request", "Wait for a matching request, 5s unless wait says otherwise (GET /__mock/requests?wait=).", true,
		func(f JournalFilter) request {
			if f.Wait == "" {
				f.Wait = "5s"
			}
			return request{method: http.MethodGet, path: admin + "/requests", query: f.query()}
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

func addFault(f FaultSpec) request {
	body := map[string]any{}
	if f.Value != nil {
		body[f.Kind] = f.Value
	} else {
		body[f.Kind] = true
	}
	for k, v := range map[string]string{"name": f.Name, "method": f.Method, "path": f.Path} {
		if v != "" {
			body[k] = v
		}
	}
	if f.Probability != nil {
		body["probability"] = *f.Probability
	}
	if f.After != 0 {
		body["after"] = f.After
	}
	if f.Times != 0 {
		body["times"] = f.Times
	}
	return request{method: http.MethodPost, path: admin + "/faults", body: body}
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

// faultKinds sets add_fault's kind enum from the fault kind table.
func faultKinds(s *jsonschema.Schema) {
	for _, k := range fault.Kinds() {
		s.Properties["kind"].Enum = append(s.Properties["kind"].Enum, k.Name)
	}
}
