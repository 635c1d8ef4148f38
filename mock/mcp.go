package mock

import (
	_ "embed"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/internal/mcp"
)

// MCPPath is where the server serves MCP over streamable HTTP, behind
// the admin API's guard.
const MCPPath = AdminPrefix + "/mcp"

//go:embed API.md
var apiMD string

// contractAssumptions is API.md's section of that name.
func contractAssumptions() string {
	_, sec, _ := strings.Cut(apiMD, "\n## Contract assumptions\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	return "# Contract assumptions\n" + sec
}

// MCPServer is the server's MCP server, whose tools call the server
// in-process; run it over a transport (sdk.StdioTransport, say).
func (s *Server) MCPServer() *sdk.Server {
	srv, _ := s.mcp()
	return srv.SDK()
}

// handleMCP serves MCPPath.
func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) {
	_, h := s.mcp()
	h.ServeHTTP(w, r)
}

// newMCP returns what makes the MCP server and its HTTP handler on first
// use, as the router is made by New.
func (s *Server) newMCP(prober Prober) func() (*mcp.Server, http.Handler) {
	return sync.OnceValues(func() (*mcp.Server, http.Handler) {
		m := mcp.New(mcp.Config{
			Handler:  http.HandlerFunc(s.ServeHTTP),
			Token:    s.admin.Token,
			ReadOnly: s.admin.ReadOnly,
			Probe:    prober,
			Version:  s.admin.Version,
			Log:      s.log,
			Resources: []mcp.Resource{
				{URI: "replymock://openapi.yaml", Name: "openapi.yaml", MIME: "application/yaml",
					About: "the OpenAPI document of the API as replymock serves it", Text: openAPIYAML},
				{URI: "replymock://admin-openapi.yaml", Name: "admin-openapi.yaml", MIME: "application/yaml",
					About: "the OpenAPI document of the admin API under /__mock", Text: adminOpenAPIYAML},
				{URI: "replymock://contract-assumptions.md", Name: "contract-assumptions.md", MIME: "text/markdown",
					About: "what replymock assumes of the real service where its documents are silent", Text: []byte(contractAssumptions())},
			},
		})
		return m, m.HTTPHandler()
	})
}

// Prober runs the contract's probe for the MCP server's probe tool:
// against target, returning the report and its rule table. The command
// line gives probe.Run; package mock may not import the probe.
type Prober = mcp.Prober
