package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheckDeadServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var out bytes.Buffer
	err = run(context.Background(), []string{"healthcheck", "--addr", addr}, env(nil), &out, &out)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "unhealthy") {
		t.Errorf("healthcheck of a dead server: %v (exit %d), want unhealthy, exit 1", err, exitCode(err))
	}
	// Something that answers, but is not replymock.
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	err = run(context.Background(), []string{"healthcheck", "--addr", strings.TrimPrefix(ts.URL, "http://")}, env(nil), &out, &out)
	if err == nil || exitCode(err) != 1 {
		t.Errorf("healthcheck of a 404 server: %v", err)
	}
	if err := run(context.Background(), []string{"healthcheck", "--addr", "nonsense"}, env(nil), &out, &out); exitCode(err) != 2 {
		t.Errorf("healthcheck --addr nonsense: %v, want a usage error", err)
	}
}
