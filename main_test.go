package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
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
		{[]string{"--admin-token", ""}, nil, 2, "--admin-token (or REPLYMOCK_ADMIN_TOKEN) is empty"},
		{[]string{"--admin-token", " \n"}, nil, 2, "is empty"},
		{nil, map[string]string{"REPLYMOCK_ADMIN_TOKEN": "\t"}, 2, "is empty"},
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
	out.Reset()
	if err := run(context.Background(), []string{"--version"}, env(nil), &out, &out); err != nil || !strings.HasPrefix(out.String(), "replymock devel") {
		t.Errorf("--version: %q, %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"--log-level", "loud"}, env(nil), &out, &out); exitCode(err) != 2 {
		t.Errorf("--log-level loud: %v", err)
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

// startServe runs serve with cfg on free loopback ports and returns the
// base URLs (API, then admin if asked) and a stop function that returns
// serve's error.
func startServe(t *testing.T, cfg config, opts mock.Options, withAdmin bool) (string, string, func() error) {
	t.Helper()
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	cfg.addr = free()
	if withAdmin {
		cfg.adminAddr = free()
	}
	if cfg.timeouts == (timeouts{}) {
		cfg.timeouts = defaultTimeouts
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, opts) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + cfg.addr + "/__mock/health")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server never answered: %v", err)
		}
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("serve did not return")
		}
	}
	t.Cleanup(func() { stop() })
	admin := ""
	if withAdmin {
		admin = "http://" + cfg.adminAddr
	}
	return "http://" + cfg.addr, admin, stop
}

// A client that never finishes its header is cut off after the
// read-header timeout.
func TestSlowClientIsCutOff(t *testing.T) {
	cfg := config{timeouts: defaultTimeouts}
	cfg.timeouts.readHeader = 300 * time.Millisecond
	base, _, _ := startServe(t, cfg, mock.Options{}, false)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("GET /api/v1/feedbacks HTTP/1.1\r\nHost: x\r\n")) // and never the blank line
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the server kept a slow client's connection open for 10 s")
			}
			break // closed by the server, perhaps after a 408
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cut off after %v, want about the 300ms read-header timeout", d)
	}
}

// A header over the limit gets 431 from net/http.
func TestHeaderTooLarge(t *testing.T) {
	base, _, _ := startServe(t, config{}, mock.Options{}, false)
	req, _ := http.NewRequest("GET", base+"/api/v1/feedbacks", nil)
	req.Header.Set("X-Big", strings.Repeat("a", maxHeaderBytes+8192)) // net/http allows 4 KiB over the limit
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("status %d, want 431", resp.StatusCode)
	}
}

// Shutdown drains requests in flight, even one waiting out an injected delay.
func TestShutdownDrainsDelayedRequest(t *testing.T) {
	base, _, stop := startServe(t, config{}, mock.Options{}, false)
	body := strings.NewReader(`{"latency":{"fixed":"2s"}}`)
	resp, err := http.Post(base+"/__mock/faults", "application/json", body)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("add fault: %v %v", resp, err)
	}
	resp.Body.Close()
	got := make(chan int, 1)
	go func() {
		resp, err := http.Get(base + "/api/v1/feedbacks?limit=1")
		if err != nil {
			got <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	time.Sleep(600 * time.Millisecond) // the request is now waiting out its delay
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	if status := <-got; status != 200 {
		t.Errorf("the request in flight got %d, want 200 after the drain", status)
	}
}

// With --admin-addr the admin API is only on its own listener.
func TestAdminAddr(t *testing.T) {
	api, adm, _ := startServe(t, config{}, mock.Options{}, true)
	for url, want := range map[string]int{
		api + "/api/v1/feedbacks?limit=1": 200, api + "/__mock/health": 200, api + "/__mock/scenarios": 404,
		adm + "/__mock/scenarios": 200, adm + "/__mock/health": 200, adm + "/api/v1/feedbacks?limit=1": 200,
	} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", url, resp.StatusCode, want)
		}
	}
}

// syncBuffer is a stderr for run that tests may read while it writes,
// counting the writes it gets.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Writes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.writes
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitHealthy waits until a server started by run answers at addr.
func waitHealthy(t *testing.T, addr string, done <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/__mock/health")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case err := <-done:
			t.Fatalf("server stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never answered: %v", err)
		}
	}
}

// The log goes to stderr through a buffer: after run returns, every line
// is there, in the order logged, and the requests' lines did not cost a
// write each.
func TestLogsReachStderrInOrderOnShutdown(t *testing.T) {
	// A context canceled at once: start-up and shutdown lines, in order.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	logs := &syncBuffer{}
	if err := run(ctx, []string{"--addr", freeAddr(t)}, env(nil), io.Discard, logs); err != nil {
		t.Fatalf("run: %v", err)
	}
	serving, shutdown := strings.Index(logs.String(), "msg=\"replymock serving\""), strings.Index(logs.String(), "msg=\"replymock shutting down")
	if serving < 0 || shutdown < serving {
		t.Errorf("after run, stderr is %q; want the start-up line, then the shutdown line", logs.String())
	}

	// Requests one after another, then shutdown: all their lines, in order.
	addr := freeAddr(t)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	logs = &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", addr}, env(nil), io.Discard, logs) }()
	waitHealthy(t, addr, done)
	const n = 200
	for i := range n {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/feedbacks?limit=1", nil)
		req.Header.Set("X-Request-Id", fmt.Sprintf("order-%03d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
	if len(lines) != n+2 {
		t.Fatalf("stderr has %d lines, want %d (start-up, %d requests, shutdown):\n%s", len(lines), n+2, n, logs.String())
	}
	if !strings.Contains(lines[0], `msg="replymock serving"`) || !strings.Contains(lines[n+1], `msg="replymock shutting down`) {
		t.Errorf("first and last lines: %q, %q; want start-up and shutdown", lines[0], lines[n+1])
	}
	for i, line := range lines[1 : n+1] {
		if !strings.Contains(line, "msg=request ") || !strings.Contains(line, fmt.Sprintf(" request_id=order-%03d ", i)) {
			t.Fatalf("line %d is %q; want the request line of order-%03d", i+2, line, i)
		}
	}
	if w := logs.Writes(); w > len(lines)/2 {
		t.Errorf("%d lines took %d writes to stderr; want them written in blocks", len(lines), w)
	}
}

// Without a shutdown, what is logged reaches stderr within the flush
// interval.
func TestLogFlushedWithinInterval(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", addr}, env(nil), io.Discard, logs) }()
	waitHealthy(t, addr, done)
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/feedbacks?limit=1", nil)
	req.Header.Set("X-Request-Id", "flush-me")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	answered := time.Now()
	// The interval, and slack for a loaded machine.
	for !strings.Contains(logs.String(), "request_id=flush-me ") {
		if time.Since(answered) > logFlushInterval+2*time.Second {
			t.Fatalf("the request's line did not reach stderr within %v: %q", logFlushInterval, logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `msg="replymock serving"`) {
		t.Errorf("the start-up line is not on stderr: %q", logs.String())
	}
	select {
	case err := <-done:
		t.Fatalf("run returned before the check: %v", err)
	default:
	}
}

// The writer itself: a write is buffered, not written; the buffer goes
// out after the interval; lines from many goroutines keep each one's
// order, a block never splits a line, and Close writes the rest.
func TestLogWriter(t *testing.T) {
	out := &syncBuffer{}
	w := newLogWriter(out, 50*time.Millisecond, 1024)
	start := time.Now()
	w.Write([]byte("first\n"))
	if out.Writes() != 0 && time.Since(start) < 50*time.Millisecond {
		t.Fatal("a line was written at once, not buffered")
	}
	for out.String() != "first\n" {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the buffered line was not written after the interval: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("written after %v, before the interval", d)
	}

	const writers, each = 8, 500
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf("g%d line %04d %s\n", g, i, strings.Repeat("x", i%50))
				if i%97 == 0 {
					line = fmt.Sprintf("g%d line %04d %s\n", g, i, strings.Repeat("y", 2000)) // over the buffer
				}
				w.Write([]byte(line))
			}
		})
	}
	wg.Wait()
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1+writers*each {
		t.Fatalf("%d lines, want %d", len(lines), 1+writers*each)
	}
	next := make([]int, writers)
	for _, line := range lines[1:] {
		var g, i int
		if _, err := fmt.Sscanf(line, "g%d line %d", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("garbled line %q", line)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d after line %d", g, i, next[g]-1)
		}
		next[g]++
	}
	if w := out.Writes(); w >= writers*each/4 {
		t.Errorf("%d lines took %d writes", writers*each, w)
	}
	w.Write([]byte("after close\n"))
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Error("a write after Close was buffered")
	}
}

// An admin token given with a trailing newline (as from a file or an env
// file) is trimmed: the admin API takes the token itself, and the start-up
// log says the admin API is locked.
func TestAdminTokenTrimmed(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", addr}, env(map[string]string{"REPLYMOCK_ADMIN_TOKEN": "s3cret\n"}), &bytes.Buffer{}, logs)
	}()
	waitHealthy(t, addr, done)
	status := func(token string) int {
		req, err := http.NewRequest("GET", "http://"+addr+"/__mock/scenarios", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Mock-Admin-Token", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("s3cret"); got != 200 {
		t.Errorf("the token without the newline: %d, want 200", got)
	}
	if got := status("wrong"); got != 401 {
		t.Errorf("a wrong token: %d, want 401", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `admin="locked by token"`) {
		t.Errorf("start-up log does not say the admin API is locked:\n%s", logs.String())
	}
}
