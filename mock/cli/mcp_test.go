package cli

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock"
)

// runMCP runs the mcp command on pipes and connects the SDK's client to
// it; the command's error comes on the channel when the client closes.
func runMCP(t *testing.T, cfg config, opts mock.Options) (*sdk.ClientSession, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveMCP(ctx, cfg, opts, inR, outW); outW.Close() }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, done
}

func TestMCPCommandServesAnInProcessMock(t *testing.T) {
	cs, done := runMCP(t, config{}, mock.Options{Scenario: "demo"})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "move_clock", Arguments: map[string]any{"advance": "1h"}})
	if err != nil || res.IsError {
		t.Fatalf("move_clock on demo: %v %+v", err, res)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("mcp after the client closed: %v", err)
	}
}

func TestMCPCommandBridgesToAServer(t *testing.T) {
	srv, err := mock.New(mock.Options{AdminToken: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cs, done := runMCP(t, config{mcpURL: hs.URL, adminToken: "s3cret"}, mock.Options{})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "add_fault", Arguments: map[string]any{"drop": true, "name": "bridged"}})
	if err != nil || res.IsError {
		t.Fatalf("add_fault through the bridge: %v %+v", err, res)
	}
	sid, _ := res.StructuredContent.(map[string]any)["session"].(string)
	if f := srv.Faults(sid); len(f) != 1 || f[0].Name != "bridged" || !strings.HasPrefix(sid, "mcp-") {
		t.Errorf("the server's faults of session %q: %+v, want the bridged one", sid, f)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("bridge after the client closed: %v", err)
	}
}

func TestMCPCommandRefusesABadURL(t *testing.T) {
	for _, u := range []string{"ftp://x", "127.0.0.1:8080", "http://"} {
		err := serveMCP(context.Background(), config{mcpURL: u}, mock.Options{}, io.NopCloser(strings.NewReader("")), nopCloser{io.Discard})
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), "--url") {
			t.Errorf("--url %s: %v, want a usage error naming --url", u, err)
		}
	}
}

func TestMCPCommandBridgeWithoutTheTokenFails(t *testing.T) {
	srv, err := mock.New(mock.Options{AdminToken: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveMCP(ctx, config{mcpURL: hs.URL}, mock.Options{}, inR, outW); outW.Close() }()
	if _, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil); err == nil {
		t.Error("connected through the bridge without the admin token")
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("bridge without the token: %v, want it to say Unauthorized", err)
	}
}
