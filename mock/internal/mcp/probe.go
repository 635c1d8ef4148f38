package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prober runs the contract's probe (package probe's Run) against target
// and returns its report and rule table. The command line gives it:
// the probe's tests import the facade, which imports this package.
type Prober func(ctx context.Context, target, token string, allowWrites bool, rate float64, maxRequests int) (report any, table string, err error)

// ProbeInput is what the probe tool checks and how gently.
type ProbeInput struct {
	Target      string  `json:"target" jsonschema:"the API's base URL up to and including /api/v1"`
	Token       string  `json:"token,omitempty" jsonschema:"sent as Authorization: Bearer TOKEN; never echoed back"`
	AllowWrites bool    `json:"allow_writes,omitempty" jsonschema:"also run the rules that PATCH the settings (put back at the end); only for a sandbox account"`
	Rate        float64 `json:"rate,omitempty" jsonschema:"the most requests a second (default the probe's)"`
	MaxRequests int     `json:"max_requests,omitempty" jsonschema:"the most requests in all (default the probe's)"`
}

// ProbeAnswer is the probe's report: the rule table, rule by rule.
type ProbeAnswer struct {
	Report any `json:"report" jsonschema:"the probe's report, as replymock probe --format json writes it"`
}

// probeTool checks a server that claims to be the API against the
// contract's rules, read-only unless allow_writes. It sends requests to
// a URL the caller gives, so it is not offered under --read-only, nor
// without a Prober.
var probeTool = tool{name: "probe", reads: false,
	about: "Check a server that claims to be the API against the contract's rules, read-only unless allow_writes (replymock probe).",
	add: func(s *Server, t *sdk.Tool) {
		if s.cfg.Probe == nil {
			return
		}
		sdk.AddTool(s.sdk, t, func(ctx context.Context, _ *sdk.CallToolRequest, in ProbeInput) (*sdk.CallToolResult, ProbeAnswer, error) {
			rep, table, err := s.cfg.Probe(ctx, in.Target, in.Token, in.AllowWrites, in.Rate, in.MaxRequests)
			if err != nil {
				return nil, ProbeAnswer{}, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: table}}}, ProbeAnswer{Report: rep}, nil
		})
	}}
