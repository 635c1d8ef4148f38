package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestValidateCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"validate"}, env(nil), &out, &errOut); err != nil {
		t.Fatalf("validate of the shipped scenarios: %v", err)
	}
	if !strings.HasPrefix(out.String(), "ok: ") {
		t.Errorf("validate printed %q", out.String())
	}

	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("description: fine\nseed: 3\nsettings: settings/default.yaml\ndata:\n  generate: {count: 10}\n"), 0o644)
	os.WriteFile(bad, []byte("description: broken\nseed: 3\nsettings: settings/default.yaml\ndata:\n  generate: {count: 10, colour: red}\n"), 0o644)
	out.Reset()
	if err := run(context.Background(), []string{"validate", good}, env(nil), &out, &errOut); err != nil {
		t.Fatalf("validate %s: %v", good, err)
	}
	err := run(context.Background(), []string{"validate", good, bad}, env(nil), &out, &errOut)
	want := bad + ":5:25: data.generate.colour: unknown field"
	if err == nil || err.Error() != want {
		t.Errorf("validate bad file: %v\nwant %s", err, want)
	}
	if exitCode(err) != 1 {
		t.Errorf("exit code %d, want 1", exitCode(err))
	}
	if err := run(context.Background(), []string{"validate", filepath.Join(dir, "missing.yaml")}, env(nil), &out, &errOut); err == nil {
		t.Error("validate of a missing file succeeded")
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"--log-format", "xml"}, nil, 2, "--log-format must be text or json"},
		{[]string{"--seed", "x"}, nil, 2, "invalid value"},
		{[]string{"--no-such-flag"}, nil, 2, "not defined"},
		{nil, map[string]string{"REPLYMOCK_SEED": "many"}, 2, "REPLYMOCK_SEED"},
		{[]string{"serve", "extra"}, nil, 2, "no arguments"},
		{[]string{"--help"}, nil, 2, ""},
		{nil, map[string]string{"REPLYMOCK_SCENARIO": "nope", "REPLYMOCK_ADDR": "127.0.0.1:0"}, 1, `scenario "nope" not found`},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, env(tc.env), &out, &errOut)
		if err == nil {
			t.Errorf("run %v: no error", tc.args)
			continue
		}
		if exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %v %v: %v (exit %d); want exit %d and %q", tc.args, tc.env, err, exitCode(err), tc.code, tc.want)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, env(nil), &out, &out); err != nil || !strings.HasPrefix(out.String(), "replymock ") {
		t.Errorf("version: %q, %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"--help"}, env(nil), &out, &out); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
}

// serve answers on the address from the environment, the flag wins over
// the environment, and cancelling the context shuts it down cleanly.
func TestServeAndShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--scenario", "en-shop", "--log-format", "json"},
			env(map[string]string{"REPLYMOCK_ADDR": addr, "REPLYMOCK_SCENARIO": "nope"}), &bytes.Buffer{}, &logs)
	}()
	client := &http.Client{Timeout: 2 * time.Second}
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err = client.Get("http://" + addr + "/__mock/health")
		if err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("server stopped: %v", err)
		default:
		}
	}
	if err != nil {
		t.Fatalf("server never answered: %v", err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(body.String(), `"scenario":"en-shop"`) {
		t.Errorf("health: %d %s", resp.StatusCode, body.String())
	}
	// The image's HEALTHCHECK: the address comes from the environment.
	var hc bytes.Buffer
	if err := run(context.Background(), []string{"healthcheck"}, env(map[string]string{"REPLYMOCK_ADDR": addr}), &hc, &hc); err != nil {
		t.Errorf("healthcheck of a live server: %v", err)
	}
	_, port, _ := net.SplitHostPort(addr)
	if err := run(context.Background(), []string{"healthcheck", "--addr", ":" + port}, env(nil), &hc, &hc); err != nil {
		t.Errorf("healthcheck with a wildcard host: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not shut down")
	}
	if !strings.Contains(logs.String(), `"msg":"replymock serving"`) {
		t.Errorf("no JSON start-up log line in %q", logs.String())
	}
}

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
