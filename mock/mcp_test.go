package mock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// connectMCP connects the SDK's client to srv's MCP server in memory.
func connectMCP(t *testing.T, srv *mock.Server) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its result, failing on a protocol
// error.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured is a result's structuredContent as JSON.
func structured(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMCPAdvertisesVersionAndInstructions(t *testing.T) {
	cs := connectMCP(t, newServer(t, mock.Options{Version: "v9.9.9"}))
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "replymock" || init.ServerInfo.Version != "v9.9.9" {
		t.Errorf("server info %+v, want replymock v9.9.9", init.ServerInfo)
	}
	if !strings.Contains(init.Instructions, "session") || !strings.Contains(init.Instructions, "auto-reply") {
		t.Errorf("instructions %q say nothing of sessions or the service", init.Instructions)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "probe" {
			t.Error("the probe tool is offered without a Prober")
		}
	}
}

// TestMCPToolsCall calls every tool once, in an order that leaves each
// something to show, and checks what its structured result holds.
func TestMCPToolsCall(t *testing.T) {
	cs := connectMCP(t, newServer(t, mock.Options{Prober: runProbe}))
	other := httptest.NewServer(newServer(t, mock.Options{}))
	defer other.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", tl.Name)
		}
	}
	steps := []struct {
		tool string
		args map[string]any
		want string // in the structured result
	}{
		{"count_reviews", nil, `"by_rating":[`},
		{"list_reviews", map[string]any{"rating": 1, "limit": 2}, `"product_valuation":1`},
		{"list_reviews", map[string]any{"rating": 1, "counts_only": true}, `"unanswered":`},
		{"get_settings", nil, `"feedback":[`},
		{"patch_settings", map[string]any{"settings": map[string]any{"feedback": []any{map[string]any{"rating": 1, "tone": "сухой"}}}}, `"tone":"сухой"`},
		{"seed_reviews", map[string]any{"reviews": []any{map[string]any{"product_valuation": 1}}}, `"mode":"replace"`},
		{"append_reviews", map[string]any{"reviews": []any{map[string]any{"product_valuation": 2}}}, `"mode":"append"`},
		{"clear_reviews", nil, `"removed":`},
		{"add_fault", map[string]any{"error": map[string]any{"status": 503}, "name": "flaky", "times": 1}, `"name":"flaky"`},
		{"list_faults", nil, `"name":"flaky"`},
		{"list_requests", map[string]any{"path": "/api/v1/feedbacks"}, `"/api/v1/feedbacks"`},
		{"verify", map[string]any{"path": "/api/v1/feedbacks", "min": 1}, `"matched":`},
		{"wait_request", map[string]any{"path": "/api/v1/feedbacks", "wait": "1s"}, `"/api/v1/feedbacks"`},
		{"remove_fault", nil, `"removed":1`},
		{"list_scenarios", nil, `"demo"`},
		{"switch_scenario", map[string]any{"name": "demo"}, `"demo"`},
		{"move_clock", map[string]any{"advance": "2h"}, `"scenario":"demo"`},
		{"reset_session", nil, `"reset":"mcp-`},
		{"probe", map[string]any{"target": other.URL + "/api/v1", "rate": 1000}, `"status":"holds"`},
	}
	var called []string
	for _, st := range steps {
		res := callTool(t, cs, st.tool, st.args)
		got := structured(t, res)
		if res.IsError || !strings.Contains(got, st.want) || st.tool != "probe" && !strings.Contains(got, `"session":"mcp-`) {
			t.Errorf("%s: error %v, structured %.400s, text %.200s; want %s and the connection's session", st.tool, res.IsError, got, resultText(res), st.want)
		}
		if resultText(res) == "" {
			t.Errorf("%s: no text", st.tool)
		}
		called = append(called, st.tool)
	}
	slices.Sort(names)
	slices.Sort(called)
	called = slices.Compact(called)
	if !slices.Equal(names, called) {
		t.Errorf("tools listed %v, the test calls %v", names, called)
	}
}

// TestMCPToolErrors: bad input is a tool error with the envelope's
// message and field, and changes nothing.
func TestMCPToolErrors(t *testing.T) {
	cs := connectMCP(t, newServer(t, mock.Options{Prober: runProbe}))
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_reviews", map[string]any{"rating": 9}, "rating"},
		{"list_reviews", map[string]any{"date_from": "2026-02-30"}, "(field date_from)"},
		{"add_fault", map[string]any{"error": map[string]any{"status": 999}}, "(field error.status)"},
		{"add_fault", map[string]any{"explode": true}, `missing properties: ["latency"]`},
		{"add_fault", map[string]any{"drop": true, "explode": true}, "explode"},
		{"add_fault", map[string]any{"name": "does nothing"}, "anyOf"},
		{"add_fault", map[string]any{"latency": map[string]any{"fixed": 250}}, "fixed"},
		{"add_fault", map[string]any{"latency": map[string]any{"fixed": "soon"}}, "latency/properties/fixed"},
		{"patch_settings", map[string]any{"settings": map[string]any{"feedback": []any{map[string]any{"rating": 7}}}}, "rating"},
		{"patch_settings", map[string]any{"settings": map[string]any{"feedback": []any{map[string]any{"rating": 1, "reply_mode": "sometimes"}}}}, "reply_mode"},
		{"patch_settings", map[string]any{"settings": map[string]any{"question": map[string]any{"rating": 1}}}, "rating"},
		{"verify", map[string]any{"path": "/api/v1/feedbacks", "limit": 3}, "limit"},
		{"patch_settings", map[string]any{"settings": map[string]any{"feedback": []any{map[string]any{"tone": "x"}}}}, `missing properties: ["rating"]`},
		{"switch_scenario", map[string]any{"name": "no-such"}, "no-such"},
		{"move_clock", map[string]any{"advance": "2h"}, "has no living shop"},
		{"move_clock", map[string]any{"advance": "soon", "session": "s1"}, "(field advance)"},
		{"remove_fault", map[string]any{"id": "f-404"}, "not_found"},
		{"list_faults", map[string]any{"session": "bad id!"}, "(field X-Mock-Session)"},
		{"probe", map[string]any{"target": "ftp://example.test"}, "target"},
	}
	for _, c := range cases {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		msg := ""
		if err != nil {
			msg = err.Error()
		} else if res.IsError {
			msg = resultText(res)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: error %q, want one saying %q", c.tool, c.args, msg, c.want)
		}
	}
	if got := structured(t, callTool(t, cs, "list_faults", nil)); !strings.Contains(got, `"faults":[]`) {
		t.Errorf("after the errors, faults %s; want none", got)
	}
}

// TestMCPConnectionsHaveTheirOwnSession: a fault one agent adds is not
// the other's.
func TestMCPConnectionsHaveTheirOwnSession(t *testing.T) {
	srv := newServer(t, mock.Options{})
	a, b := connectMCP(t, srv), connectMCP(t, srv)
	added := structured(t, callTool(t, a, "add_fault", map[string]any{"drop": true, "name": "a-only"}))
	if gotB := structured(t, callTool(t, b, "list_faults", nil)); strings.Contains(gotB, "a-only") {
		t.Errorf("b sees a's fault: %s", gotB)
	}
	if gotA := structured(t, callTool(t, a, "list_faults", nil)); !strings.Contains(gotA, "a-only") {
		t.Errorf("a does not see its fault: %s (added %s)", gotA, added)
	}
	// A session named is shared on purpose.
	callTool(t, a, "add_fault", map[string]any{"drop": true, "name": "shared", "session": "team"})
	if got := structured(t, callTool(t, b, "list_faults", map[string]any{"session": "team"})); !strings.Contains(got, `"name":"shared"`) {
		t.Errorf("b does not see the named session's fault: %s", got)
	}
}

func TestMCPResourcesAndPrompts(t *testing.T) {
	cs := connectMCP(t, newServer(t, mock.Options{}))
	ctx := context.Background()
	for uri, want := range map[string]string{
		"replymock://openapi.yaml":            "openapi: 3.0",
		"replymock://admin-openapi.yaml":      "/__mock/faults",
		"replymock://contract-assumptions.md": "# Contract assumptions",
	} {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, want) {
			t.Errorf("%s: %v, want text with %q", uri, err, want)
		}
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "seed_unanswered", Arguments: map[string]string{"n": "7"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*sdk.TextContent).Text, "seed_reviews with 7 reviews") {
		t.Errorf("seed_unanswered: %v %+v", err, res)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 3 {
		t.Errorf("prompts: %v, %d of them; want 3", err, len(prompts.Prompts))
	}
}

// runProbe is the probe tool's Prober, as the command line gives it.
func runProbe(ctx context.Context, target, token string, allowWrites bool, rate float64, maxRequests int) (any, string, error) {
	rep, err := probe.Run(ctx, probe.Config{Target: target, Token: token, AllowWrites: allowWrites, Rate: rate, MaxRequests: maxRequests})
	if err != nil {
		return nil, "", err
	}
	var table strings.Builder
	err = rep.WriteTable(&table)
	return rep, table.String(), err
}

// headerTransport sends a header with every request.
type headerTransport struct{ k, v string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.k, h.v)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects the SDK's client to /__mock/mcp at base.
func connectHTTP(base string, header ...string) (*sdk.ClientSession, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	if len(header) == 2 {
		client.Transport = headerTransport{header[0], header[1]}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: base + mock.MCPPath, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
}

// TestMCPOverHTTPIsGuardedAsTheAdminAPI: the admin token, a foreign
// Origin and read-only mode hold for /__mock/mcp as for the admin API.
func TestMCPOverHTTPIsGuardedAsTheAdminAPI(t *testing.T) {
	hs := httptest.NewServer(newServer(t, mock.Options{AdminToken: "s3cret"}))
	defer hs.Close()
	if _, err := connectHTTP(hs.URL); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("no token: %v, want Unauthorized", err)
	}
	if _, err := connectHTTP(hs.URL, "X-Mock-Admin-Token", "wrong"); err == nil {
		t.Error("a wrong token connected")
	}
	if _, err := connectHTTP(hs.URL, "Origin", "https://evil.test"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("foreign Origin: %v, want Forbidden", err)
	}
	cs, err := connectHTTP(hs.URL, "Authorization", "Bearer s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := structured(t, callTool(t, cs, "add_fault", map[string]any{"drop": true})); !strings.Contains(got, `"session":"mcp-`) {
		t.Errorf("add_fault over HTTP: %s", got)
	}
	// The foreign page is refused before the token is looked at.
	req, _ := http.NewRequest(http.MethodPost, hs.URL+mock.MCPPath, strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.test")
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin with the token: %d, want 403", resp.StatusCode)
	}

	ro := httptest.NewServer(newServer(t, mock.Options{ReadOnly: true}))
	defer ro.Close()
	cs, err = connectHTTP(ro.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("read-only server offers %s, which writes", tl.Name)
		}
	}
	if len(tools.Tools) < 5 {
		t.Errorf("read-only server offers %d tools, want those that read", len(tools.Tools))
	}
	if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "add_fault", Arguments: map[string]any{"drop": true}}); err == nil && !res.IsError {
		t.Error("read-only server added a fault")
	}
}
