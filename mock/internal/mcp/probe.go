package mcp

import (
	"context"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/probe"
)

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
	Report *probe.Report `json:"report"`
}

// probeTool checks a server that claims to be the API against the
// contract's rules, read-only unless allow_writes. It sends requests to
// a URL the caller gives, so it is not offered under --read-only.
var probeTool = tool{name: "probe", reads: false,
	about: "Check a server that claims to be the API against the contract's rules, read-only unless allow_writes (replymock probe).",
	add: func(s *Server, t *sdk.Tool) {
		sdk.AddTool(s.sdk, t, func(ctx context.Context, _ *sdk.CallToolRequest, in ProbeInput) (*sdk.CallToolResult, ProbeAnswer, error) {
			rep, err := probe.Run(ctx, probe.Config{Target: in.Target, Token: in.Token, AllowWrites: in.AllowWrites, Rate: in.Rate, MaxRequests: in.MaxRequests})
			if err != nil {
				return nil, ProbeAnswer{}, err
			}
			var table strings.Builder
			if err := rep.WriteTable(&table); err != nil {
				return nil, ProbeAnswer{}, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: table.String()}}}, ProbeAnswer{Report: rep}, nil
		})
	}}
