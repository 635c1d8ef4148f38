package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// serveMCP is the mcp command: MCP on in and out, over an in-process
// mock, or bridged to a running server's MCP endpoint (--url).
func serveMCP(ctx context.Context, cfg config, opts mock.Options, in io.ReadCloser, out io.WriteCloser) error {
	stdio := &sdk.IOTransport{Reader: in, Writer: out}
	if cfg.mcpURL == "" {
		srv, err := mock.New(opts)
		if err != nil {
			return err
		}
		defer srv.Close()
		return srv.MCPServer().Run(ctx, stdio)
	}
	endpoint, err := mcpEndpoint(cfg.mcpURL)
	if err != nil {
		return usageError{err}
	}
	client := &http.Client{Transport: tokenTransport{token: cfg.adminToken}}
	remote, err := (&sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, DisableStandaloneSSE: true}).Connect(ctx)
	if err != nil {
		return err
	}
	defer remote.Close()
	local, err := stdio.Connect(ctx)
	if err != nil {
		return err
	}
	defer local.Close()
	errs := make(chan error, 2)
	pass := func(from, to sdk.Connection) {
		for {
			msg, err := from.Read(ctx)
			if err == nil {
				err = to.Write(ctx, msg)
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}
	go pass(local, remote)
	go pass(remote, local)
	if err := <-errs; !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("mcp bridge: %w", err)
	}
	return nil
}

// mcpEndpoint is the MCP endpoint of a server's base URL, or the URL
// itself when it names a path.
func mcpEndpoint(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--url %q: want a server's http(s) URL, such as http://127.0.0.1:8080", raw)
	}
	if strings.TrimSuffix(u.Path, "/") == "" {
		u.Path = mock.MCPPath
	}
	return u.String(), nil
}

// tokenTransport sends the admin token, when there is one, with every
// request to the server.
type tokenTransport struct{ token string }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("X-Mock-Admin-Token", t.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// nopCloser is a writer the MCP transport may close: standard output
// stays open for the logs' last lines.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// runProbe is the MCP server's probe tool: the probe's Run, its report
// and rule table.
func runProbe(ctx context.Context, target, token string, allowWrites bool, rate float64, maxRequests int) (any, string, error) {
	rep, err := probe.Run(ctx, probe.Config{Target: target, Token: token, AllowWrites: allowWrites, Rate: rate, MaxRequests: maxRequests})
	if err != nil {
		return nil, "", err
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		return nil, "", err
	}
	return rep, table.String(), nil
}
