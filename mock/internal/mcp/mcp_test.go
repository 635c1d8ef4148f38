package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConnectionsAreBounded opens more connections over HTTP than the
// bound: the one past it is refused with 503, and one closed makes room.
func TestConnectionsAreBounded(t *testing.T) {
	s := New(Config{Handler: http.NotFoundHandler(), MaxConnections: 2})
	hs := httptest.NewServer(s.HTTPHandler())
	defer hs.Close()
	connect := func() (*sdk.ClientSession, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	}
	var open []*sdk.ClientSession
	var refused error
	for range 5 {
		cs, err := connect()
		if err != nil {
			refused = err
			break
		}
		open = append(open, cs)
	}
	if len(open) == 0 || len(open) > 2 || refused == nil || !strings.Contains(refused.Error(), "Service Unavailable") {
		t.Fatalf("%d connections open, then %v; want 1 or 2 (a connecting client may count twice a moment), then 503", len(open), refused)
	}
	// The open ones still work at the bound.
	if _, err := open[0].ListTools(context.Background(), nil); err != nil {
		t.Errorf("an open connection at the bound: %v", err)
	}
	for _, cs := range open {
		cs.Close()
	}
	cs, err := connect()
	if err != nil {
		t.Fatalf("after they closed: %v", err)
	}
	cs.Close()
}
