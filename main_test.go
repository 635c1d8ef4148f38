package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
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

// validate checks a snapshot as restoring it would: a good one passes, a
// broken one fails naming its field, and one of a scenario that is gone
// passes with a note saying what would not come back.
func TestValidateSnapshot(t *testing.T) {
	srv, err := mock.New(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, target, ctype, body string) []byte {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("X-Mock-Session", "bug-42")
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	send("PUT", "/__mock/data", "application/json", `{"mode":"append","reviews":[{"product_valuation":2,"text":"Порвалось"}]}`)
	send("PATCH", "/api/v1/settings/ai", "application/json", `{"feedback":[{"rating":2,"reply_mode":"auto"}]}`)
	doc := string(send("GET", "/__mock/snapshot", "", ""))
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", doc)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"validate", good}, env(nil), &out, &out); err != nil || out.String() != "ok: 1 file valid\n" {
		t.Fatalf("validate a good snapshot: %v, printed %q", err, out.String())
	}
	if !strings.Contains(doc, "product_valuation: 2") {
		t.Fatalf("the snapshot does not hold the seeded review:\n%s", doc)
	}
	bad := write("bad.yaml", strings.Replace(doc, "product_valuation: 2", "product_valuation: 9", 1))
	err = run(context.Background(), []string{"validate", bad}, env(nil), &out, &out)
	if want := bad + ": scenarios[0].seeded.reviews[0].product_valuation: must be 1 to 5, got 9"; err == nil || err.Error() != want || exitCode(err) != 1 {
		t.Errorf("validate a broken snapshot: %v\nwant %s", err, want)
	}
	gone := write("gone.yaml", strings.Replace(doc, "name: default", "name: retired", 1))
	out.Reset()
	if err := run(context.Background(), []string{"validate", gone}, env(nil), &out, &out); err != nil || !strings.Contains(out.String(), gone+`: note: scenario "retired": no such scenario now`) {
		t.Errorf("validate a snapshot of a scenario that is gone: %v, printed %q", err, out.String())
	}
}

// validate reports every problem of every file it is given, each once,
// by the path it was given and with its line; extends is resolved as the
// server resolves it: among the files given, then --scenarios DIR, then
// the shipped scenarios (unless --scenarios-only).
func TestValidateReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.yaml", "extends: default\ndescription: one\nseed: x\nrate_limit: {requests: 0, window: 1s}\ndata:\n  generate: {count: 10, cont: 5, answered: 2}\n")
	two := write("sub/two.yaml", "extends: one\ndescription: \"\"\nfaults:\n  - {drop: true, truncate: true}\n  - {probability: 3, error: {status: 200}}\n")
	fx := write("fx.yaml", "kind: settings\nfeedback: []\nquestion: {tone: [x]}\n")
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", one, two, fx}, env(nil), &out, &out)
	if exitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1", exitCode(err), err)
	}
	want := []string{
		one + ":3:7: seed: must be an integer, got \"x\"",
		one + ":4:24: rate_limit.requests: must be at least 1, got 0",
		one + ":6:25: data.generate.cont: unknown field",
		one + ":6:44: data.generate.answered: must be a fraction from 0 to 1, got 2",
		two + `:1:10: extends: scenario "one" has problems (in ` + one + ")",
		two + ":2:14: description: required: one line saying what the scenario is for",
		two + ":4:5: faults[0]: give at most one of error, drop and truncate",
		two + ":5:19: faults[1].probability: must be from 0 to 1, got 3",
		two + ":5:38: faults[1].error.status: must be an error status from 400 to 599, got 200",
		fx + ":2:11: feedback: must have exactly 5 elements, one per rating 1 to 5; got 0",
		fx + ":3:18: question.tone: must be a string, got a list",
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("validate printed\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}

	// A user folder with extends: default, and a user default overriding the shipped one.
	folder := filepath.Join(dir, "my-scenarios")
	mine := write("my-scenarios/mine.yaml", "extends: default\ndescription: mine\n")
	out.Reset()
	if err := run(context.Background(), []string{"validate", "--scenarios", folder}, env(nil), &out, &out); err != nil {
		t.Errorf("validate --scenarios with extends: default: %v", err)
	}
	if err := run(context.Background(), []string{"validate", "--scenarios", folder, mine}, env(nil), &out, &out); err != nil {
		t.Errorf("validate --scenarios DIR FILE: %v", err)
	}
	err = run(context.Background(), []string{"validate", "--scenarios", folder, "--scenarios-only"}, env(nil), &out, &out)
	if w := mine + `:1:10: extends: scenario "default" not found in ` + folder + "; have: mine"; err == nil || err.Error() != w {
		t.Errorf("validate --scenarios-only: %v\nwant %s", err, w)
	}
	write("my-scenarios/default.yaml", "description: own\nseed: 0\nsettings: settings/default.yaml\n")
	err = run(context.Background(), []string{"validate", "--scenarios", folder}, env(nil), &out, &out)
	for _, w := range []string{
		filepath.Join(folder, "default.yaml") + ":2:7: seed: required and not 0",
		`(shipped) scenarios/flaky.yaml:3:10: extends: scenario "default" has problems (in ` + filepath.Join(folder, "default.yaml") + ")",
		mine + `:1:10: extends: scenario "default" has problems`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("validate with a broken user default: %v\nwant a line with %s", err, w)
		}
	}
	if n := strings.Count(err.Error(), "seed: required and not 0"); n != 1 {
		t.Errorf("the default's problem reported %d times, want once:\n%v", n, err)
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
		{nil, map[string]string{"REPLYMOCK_ADMIN_TOKEN": ""}, 2, "REPLYMOCK_ADMIN_TOKEN is set but empty"},
		{[]string{"--cors-origins", ""}, nil, 2, "--cors-origins is empty"},
		{[]string{"--cors-origins", " , "}, nil, 2, "--cors-origins is empty"},
		{[]string{"--allowed-hosts", ","}, nil, 2, "--allowed-hosts is empty"},
		{[]string{"--max-conns", "0"}, nil, 2, "--max-conns must be >= 1"},
		{[]string{"--now", "yesterday"}, nil, 2, "--now (or REPLYMOCK_NOW) must be an RFC 3339 time"},
		{[]string{"--proxy", "localhost:9000"}, nil, 2, "--proxy (or REPLYMOCK_PROXY) must be an absolute http or https URL"},
		{nil, map[string]string{"REPLYMOCK_PROXY": "https://x.test/?a=1"}, 2, "--proxy (or REPLYMOCK_PROXY) must have no query"},
		{nil, map[string]string{"REPLYMOCK_NOW": "2027-03-01 12:00"}, 2, "--now (or REPLYMOCK_NOW) must be an RFC 3339 time"},
		{[]string{"--max-shop-memory", "lots"}, nil, 2, "want a size such as 1GiB"},
		{[]string{"--max-shop-memory", "0"}, nil, 2, "want a size"},
		{[]string{"--scenarios", "/no/such/folder"}, nil, 2, "--scenarios"},
		{[]string{"--fixtures", "/no/such/folder"}, nil, 2, "--fixtures"},
		{[]string{"--scenarios-only"}, nil, 2, "--scenarios-only needs --scenarios DIR"},
		{nil, map[string]string{"REPLYMOCK_SCENARIOS_ONLY": "true"}, 2, "--scenarios-only needs --scenarios DIR"},
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
	// A context canceled at once: it stops while starting, and says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	logs := &syncBuffer{}
	if err := run(ctx, []string{"--addr", freeAddr(t)}, env(nil), io.Discard, logs); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := logs.String(); !strings.Contains(got, `msg="replymock stopped while starting"`) || strings.Contains(got, "replymock serving") {
		t.Errorf("after run canceled at once, stderr is %q; want only the line saying it stopped while starting", got)
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
	if len(lines) != n+3 {
		t.Fatalf("stderr has %d lines, want %d (starting, serving, %d requests, shutdown):\n%s", len(lines), n+3, n, logs.String())
	}
	if !strings.Contains(lines[0], `msg="replymock starting"`) || !strings.Contains(lines[1], `msg="replymock serving"`) || !strings.Contains(lines[n+2], `msg="replymock shutting down`) {
		t.Errorf("lines %q, %q ... %q; want starting, serving ... shutdown", lines[0], lines[1], lines[n+2])
	}
	for i, line := range lines[2 : n+2] {
		if !strings.Contains(line, "msg=request ") || !strings.Contains(line, fmt.Sprintf(" request_id=order-%03d ", i)) {
			t.Fatalf("line %d is %q; want the request line of order-%03d", i+3, line, i)
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

// TestMain lets the test binary play other programs for the tests that
// need a process of their own: the server (to send it signals) and a
// client holding thousands of connections (each process may hold only so
// many file handles).
func TestMain(m *testing.M) {
	switch os.Getenv("REPLYMOCK_TEST_ROLE") {
	case "main":
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("REPLYMOCK_TEST_ARGS")), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{"replymock"}, args...)
		main()
		os.Exit(0)
	case "idler":
		n, _ := strconv.Atoi(os.Getenv("REPLYMOCK_TEST_CONNS"))
		idle(os.Getenv("REPLYMOCK_TEST_TARGET"), n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// idle opens n keep-alive connections to addr, each with one answered
// request, reports how many it opened and how many were answered, and
// holds them until its stdin closes.
func idle(addr string, n int) {
	var mu sync.Mutex
	var conns []net.Conn
	opened, answered := 0, 0
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 32 {
		wg.Go(func() {
			for range work {
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					continue
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "GET /__mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				ok := err == nil && resp.StatusCode == 200
				if ok {
					io.Copy(io.Discard, resp.Body)
				}
				c.SetDeadline(time.Time{})
				mu.Lock()
				opened++
				if ok {
					answered++
				}
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	fmt.Printf("opened=%d answered=%d\n", opened, answered)
	io.Copy(io.Discard, os.Stdin)
}

// child runs the test binary in role with env, its stdout piped and its
// stderr to stderr; it is killed at the end of the test.
func child(t *testing.T, role string, stderr io.Writer, env ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"REPLYMOCK_TEST_ROLE=" + role}, env...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewReader(out), in
}

// 20,000 idle keep-alive connections hold at most --max-conns handles of
// the server, and a new client still gets its answers.
func TestManyIdleConnections(t *testing.T) {
	const clients, perChild, maxConns = 2, 10_000, 2048
	base, _, _ := startServe(t, config{maxConns: maxConns}, mock.Options{}, false)
	addr := strings.TrimPrefix(base, "http://")
	type report struct{ opened, answered int }
	reports := make(chan report, clients)
	for range clients {
		_, out, _ := child(t, "idler", nil, "REPLYMOCK_TEST_TARGET="+addr, "REPLYMOCK_TEST_CONNS="+strconv.Itoa(perChild))
		go func() {
			var r report
			line, _ := out.ReadString('\n')
			fmt.Sscanf(line, "opened=%d answered=%d", &r.opened, &r.answered)
			reports <- r
		}()
	}
	opened, answered := 0, 0
	for range clients {
		select {
		case r := <-reports:
			opened += r.opened
			answered += r.answered
		case <-time.After(3 * time.Minute):
			t.Fatal("the idle clients did not finish connecting")
		}
	}
	if opened != clients*perChild || answered != opened {
		t.Errorf("%d connections opened and %d answered, want %d of each", opened, answered, clients*perChild)
	}
	// Now 20,000 connections are open on the clients' side; the server
	// keeps at most maxConns of them.
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil && len(fds) > maxConns+256 {
		t.Errorf("the server holds %d file handles with 20,000 idle connections, want at most about %d", len(fds), maxConns)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var took []time.Duration
	for range 50 {
		start := time.Now()
		resp, err := client.Get(base + "/api/v1/feedbacks?limit=1")
		if err != nil {
			t.Fatalf("a new client with 20,000 idle connections open: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("a new client: %d", resp.StatusCode)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("a new client's request with %d idle connections open: median %v, max %v", opened, took[len(took)/2], took[len(took)-1])
}

// A request with Expect: 100-continue that is refused is answered at
// once, without waiting for the body; an accepted one gets its 100.
func TestExpectContinue(t *testing.T) {
	base, _, _ := startServe(t, config{}, mock.Options{}, false)
	readOnly, _, _ := startServe(t, config{readOnly: true}, mock.Options{ReadOnly: true}, false)
	tests := []struct {
		name, base, method, path, contentType string
		want                                  int
		length                                int // the Content-Length sent; 0 for the body's
	}{
		{"not JSON", base, "PATCH", "/api/v1/settings/ai", "text/plain", 415, 0},
		{"a method the path lacks", base, "POST", "/api/v1/feedbacks", "application/json", 405, 0},
		{"read-only", readOnly, "PATCH", "/api/v1/settings/ai", "application/json", 403, 0},
		{"an unknown path", base, "PUT", "/api/v1/nope", "application/json", 404, 0},
		{"too large", base, "PATCH", "/api/v1/settings/ai", "application/json", 413, mock.MaxBodyBytes + 1},
		{"too large for the admin API", base, "POST", "/__mock/faults", "application/json", 413, mock.MaxBodyBytes + 1},
		{"accepted", base, "PATCH", "/api/v1/settings/ai", "application/json", 100, 0},
	}
	body := `{"feedback":[]}`
	for _, tc := range tests {
		c, err := net.Dial("tcp", strings.TrimPrefix(tc.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		length := len(body)
		if tc.length > 0 {
			length = tc.length
		}
		fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
			tc.method, tc.path, tc.contentType, length)
		c.SetReadDeadline(time.Now().Add(10 * time.Second)) // the read timeout is 30 s: past 10, it waited for the body
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Errorf("%s: no answer before the body was sent: %v", tc.name, err)
			continue
		}
		t.Logf("%s: %d after %v", tc.name, resp.StatusCode, time.Since(start))
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
			continue
		}
		if tc.want != 100 {
			continue
		}
		fmt.Fprint(c, body)
		if resp, err = http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
			t.Errorf("%s: after the body: %v %v", tc.name, resp, err)
		}
	}
}

// startChild runs replymock in a process of its own with args, on a free
// loopback port, and returns it and its log.
func startChild(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	js, _ := json.Marshal(append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, args...))
	logs := &syncBuffer{}
	cmd, _, _ := child(t, "main", logs, "REPLYMOCK_TEST_ARGS="+string(js))
	return cmd, logs
}

// waitLog waits until the log holds want, and returns the log.
func waitLog(t *testing.T, logs *syncBuffer, want string) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s := logs.String(); strings.Contains(s, want) {
			return s
		}
	}
	t.Fatalf("the log never said %q: %s", want, logs.String())
	return ""
}

// exited waits for cmd to end, failing the test if it is still running
// after limit (a hang, not a speed goal).
func exited(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("the process was still running %v after it was told to stop", limit)
		return nil
	}
}

// A first interrupt drains requests in flight; a second ends the process
// at once, even while an injected delay is being waited out.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	cmd, logs := startChild(t)
	var line struct{ Addr string }
	for l := range strings.SplitSeq(waitLog(t, logs, `"msg":"replymock serving"`), "\n") {
		if strings.Contains(l, `"msg":"replymock serving"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	base := "http://" + line.Addr
	resp, err := http.Post(base+"/__mock/faults", "application/json", strings.NewReader(`{"latency":{"fixed":"60s"}}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("add a delay: %v %v", resp, err)
	}
	resp.Body.Close()
	go http.Get(base + "/api/v1/feedbacks") // waits out the delay
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	waitLog(t, logs, "draining requests in flight")
	time.Sleep(500 * time.Millisecond)
	if cmd.Process.Signal(syscall.Signal(0)) != nil {
		t.Fatal("the first interrupt did not wait for the request in flight")
	}
	cmd.Process.Signal(os.Interrupt)
	err = exited(t, cmd, 10*time.Second)
	if err == nil {
		t.Error("the process exited cleanly after a second interrupt; want it ended by the signal")
	}
}

// SIGTERM while a big scenario is still being built ends the process
// without waiting for the build.
func TestSigtermDuringStartup(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "huge.yaml"), []byte(fmt.Sprintf(
		"description: huge\nseed: 1\nsettings: settings/default.yaml\ndata:\n  generate:\n    count: %d\n    end: \"2026-11-15 21:00:00\"\n    days: 365\n",
		mock.MaxGeneratedReviews)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, logs := startChild(t, "--scenarios", dir, "--scenario", "huge")
	waitLog(t, logs, `"msg":"replymock starting"`) // the signal handler is set by now
	cmd.Process.Signal(syscall.SIGTERM)
	if err := exited(t, cmd, 10*time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
	if !strings.Contains(logs.String(), "stopped while starting") {
		t.Errorf("the build finished before the signal, or it was not logged: %s", logs.String())
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "64KiB": 64 << 10, "1000": 1000, " 2 GiB ": 2 << 30} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1MiB", "1.5GiB", "1TB", "9999999999999GiB", "0"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, b)
		}
	}
	for b, want := range map[byteSize]string{1 << 30: "1GiB", 1536 << 20: "1536MiB", 1000: "1000", 3 << 10: "3KiB"} {
		if got := b.String(); got != want {
			t.Errorf("%d prints %q, want %q", b, got, want)
		}
	}
}

// Where it listens and who may steer it is in the start-up log; by
// default, it serves this machine only.
func TestStartupLogSaysWhoMayCall(t *testing.T) {
	var usage bytes.Buffer
	run(context.Background(), []string{"--help"}, env(nil), &usage, &usage)
	if !strings.Contains(usage.String(), `(default "127.0.0.1:8080")`) {
		t.Errorf("--addr does not default to loopback:\n%s", usage.String())
	}
	tests := []struct {
		addr string
		args []string
		want []string
	}{
		{"127.0.0.1:0", nil, []string{`"reach":"this machine only"`, `"admin":"open"`, `"api_origins":"any"`,
			`"admin_origins":"loopback"`, `"hosts":"loopback"`, `"max_conns":4096`}},
		{"127.0.0.1:0", []string{"--cors-origins", "https://app.test", "--allowed-hosts", "demo.test", "--admin-token", "s3cret", "--max-conns", "10"},
			[]string{`"admin":"locked by token"`, `"api_origins":"https://app.test"`, `"admin_origins":"loopback,own page,https://app.test"`,
				`"hosts":"loopback,demo.test"`, `"max_conns":10`}},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		logs := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append([]string{"--addr", tc.addr, "--log-format", "json"}, tc.args...), env(nil), io.Discard, logs)
		}()
		log := waitLog(t, logs, `"msg":"replymock serving"`)
		cancel()
		<-done
		for _, want := range tc.want {
			if !strings.Contains(log, want) {
				t.Errorf("%s %v: the start-up log lacks %s:\n%s", tc.addr, tc.args, want, log)
			}
		}
		if strings.Contains(log, "s3cret") {
			t.Errorf("the admin token is in the log:\n%s", log)
		}
		if strings.Contains(log, "the admin API is open to every machine") {
			t.Errorf("a loopback server warns of an open admin API:\n%s", log)
		}
	}
	// Without listening elsewhere (the tests keep to loopback): who can
	// reach which address.
	for addr, want := range map[string]string{"127.0.0.1:8080": "this machine only", "[::1]:8080": "this machine only",
		"0.0.0.0:8080": "every machine that can route to it", "[::]:8080": "every machine that can route to it", "192.168.1.5:8080": "every machine that can route to it"} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := reach(a); got != want {
			t.Errorf("reach(%s) = %q, want %q", addr, got, want)
		}
	}
}

// validate refuses a named pipe given as a file rather than wait on it.
func TestValidateRefusesPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"validate", fifo}, env(nil), io.Discard, io.Discard)
	}()
	select {
	case err := <-done:
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("validate of a named pipe: %v", err)
		}
	case <-time.After(10 * time.Second): // a hang detector, not a speed goal
		t.Fatal("validate blocked on a named pipe")
	}
}

// replymock probe: every rule holds against replymock, a broken target
// exits 1 naming the rule, and bad flags are a usage error.
func TestProbeCommand(t *testing.T) {
	srv, err := mock.New(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := httptest.NewServer(srv)
	defer good.Close()
	// A target whose counts disagree with its list.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("counts_only") == "1" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"success":true,"data":{"total":1,"unanswered":1,"answered":0}}`)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer broken.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"probe", "--target", good.URL + "/api/v1", "--rate", "1000", "--quiet"}, env(nil), &out, io.Discard); err != nil {
		t.Errorf("probe of replymock: %v\n%s", err, out.String())
	}
	out.Reset()
	err = run(context.Background(), []string{"probe", "--target", broken.URL + "/api/v1", "--rate", "1000", "--quiet"}, env(nil), &out, io.Discard)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "counts.match-list") {
		t.Errorf("probe of a target whose counts disagree: %v (exit %d)\n%s", err, exitCode(err), out.String())
	}
	if err := run(context.Background(), []string{"probe", "--format", "yaml"}, env(nil), io.Discard, io.Discard); exitCode(err) != 2 {
		t.Errorf("probe with bad flags: %v (exit %d), want a usage error", err, exitCode(err))
	}
}

// --strict and REPLYMOCK_STRICT answer a request with warnings 400; the
// flag wins over the environment.
func TestStrictFlagAndEnv(t *testing.T) {
	tests := []struct {
		args   []string
		env    map[string]string
		status int
	}{
		{nil, nil, 200},
		{[]string{"--strict"}, nil, 400},
		{nil, map[string]string{"REPLYMOCK_STRICT": "true"}, 400},
		{[]string{"--strict=false"}, map[string]string{"REPLYMOCK_STRICT": "true"}, 200},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		logs := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, tc.args...), env(tc.env), io.Discard, logs)
		}()
		log := waitLog(t, logs, `"msg":"replymock serving"`)
		var line struct{ Addr string }
		for l := range strings.SplitSeq(log, "\n") {
			if strings.Contains(l, `"msg":"replymock serving"`) {
				json.Unmarshal([]byte(l), &line)
			}
		}
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + line.Addr + "/api/v1/feedbacks?isAnswered=0")
		if err != nil {
			t.Fatalf("%v %v: %v", tc.args, tc.env, err)
		}
		resp.Body.Close()
		cancel()
		<-done
		if resp.StatusCode != tc.status {
			t.Errorf("%v %v: GET ?isAnswered=0: status %d, want %d", tc.args, tc.env, resp.StatusCode, tc.status)
		}
		if w := resp.Header.Get("X-Mock-Warning"); !strings.Contains(w, "isAnswered") {
			t.Errorf("%v %v: X-Mock-Warning = %q", tc.args, tc.env, w)
		}
	}
}

// Without GOMEMLIMIT, the server sets a soft memory limit of what is live
// after the build, its stores' budgets and some room; with it, none.
func TestMemoryLimit(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	debug.SetMemoryLimit(math.MaxInt64)
	opts := mock.Options{JournalBytes: 1 << 20, MaxShopBytes: 2 << 20, MaxSeedBytes: 3 << 20, MediaCacheBytes: 4 << 20}
	budget := int64(10<<20 + mock.MaxRuntimeFaultBytes)
	startServe(t, config{}, opts, false)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set (memLimit false), the limit became %d", got)
	}
	startServe(t, config{memLimit: true}, opts, false)
	got := debug.SetMemoryLimit(-1)
	if got < budget+memoryHeadroom || got > budget+memoryHeadroom+2<<30 {
		t.Errorf("memory limit %d MiB, want the budgets (%d MiB), %d MiB of room and the live heap", got>>20, budget>>20, memoryHeadroom>>20)
	}
	t.Logf("memory limit %d MiB for %d MiB of budgets", got>>20, budget>>20)
}

// servingAddr is the address a child's "replymock serving" log line names.
func servingAddr(t *testing.T, logs *syncBuffer) string {
	t.Helper()
	var line struct{ Addr string }
	for l := range strings.SplitSeq(waitLog(t, logs, `"msg":"replymock serving"`), "\n") {
		if strings.Contains(l, `"msg":"replymock serving"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	return "http://" + line.Addr
}

// --scenarios DIR adds to the shipped scenarios, and the folder is hot
// reloaded with the overlay: a user's default added later replaces the
// shipped one, for the scenarios extending it too, and goes when removed.
// --scenarios-only serves the folder alone, as before, naming the file
// at fault by its real path.
func TestServeScenariosOverlay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("extends: default\ndescription: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, logs := startChild(t, "--scenarios", dir)
	base := servingAddr(t, logs)
	type listing struct {
		Data struct {
			Scenarios []mock.ScenarioInfo `json:"scenarios"`
		} `json:"data"`
	}
	scenarios := func() map[string]string {
		resp, err := http.Get(base + "/__mock/scenarios")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var l listing
		json.NewDecoder(resp.Body).Decode(&l)
		out := map[string]string{}
		for _, sc := range l.Data.Scenarios {
			out[sc.Name] = sc.Description
		}
		return out
	}
	total := func(scenario string) int {
		req, _ := http.NewRequest("GET", base+"/api/v1/feedbacks?counts_only=1", nil)
		req.Header.Set("X-Mock-Scenario", scenario)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c struct {
			Data struct{ Total int } `json:"data"`
		}
		json.NewDecoder(resp.Body).Decode(&c)
		return c.Data.Total
	}
	if sc := scenarios(); sc["mine"] != "mine" || sc["flaky"] == "" || sc["default"] == "" {
		t.Fatalf("listed %v, want mine beside the shipped ones", sc)
	}
	if n := total("mine"); n != 1009 {
		t.Errorf("mine: %d reviews, want the shipped default's 1009", n)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never happened; logs:\n%s", what, logs.String())
			}
		}
	}
	own := filepath.Join(dir, "default.yaml")
	if err := os.WriteFile(own, []byte("description: own default\nseed: 5\nsettings: settings/default.yaml\ndata: {fixtures: [reviews/edge-cases.yaml], generate: {count: 20, products: 2}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor("the user's default swapped in", func() bool { return scenarios()["default"] == "own default" })
	if n, m := total("strict-tones"), total("mine"); n != 29 || m != 29 {
		t.Errorf("strict-tones and mine extend the user's default: %d and %d reviews, want 29", n, m)
	}
	if err := os.Remove(own); err != nil {
		t.Fatal(err)
	}
	waitFor("the shipped default back", func() bool { return scenarios()["default"] != "own default" })
	if n := total("mine"); n != 1009 {
		t.Errorf("mine after the user's default went: %d reviews", n)
	}

	cmd, logs := startChild(t, "--scenarios", dir, "--scenarios-only", "--scenario", "mine")
	err := exited(t, cmd, 30*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("--scenarios-only with extends: default: exit %v, want 1", err)
	}
	if want := filepath.Join(dir, "mine.yaml") + `:1:10: extends: scenario "default" not found in ` + dir + "; have: mine"; !strings.Contains(logs.String(), want) {
		t.Errorf("--scenarios-only: stderr\n%s\nwant %s", logs.String(), want)
	}
}

// An idle keep-alive connection is closed after the idle timeout, and the
// default timeout is at most 30 seconds, so idle clients hold no handle
// for long.
func TestIdleConnectionClosed(t *testing.T) {
	if defaultTimeouts.idle <= 0 || defaultTimeouts.idle > 30*time.Second {
		t.Errorf("the default idle timeout is %v, want at most 30s", defaultTimeouts.idle)
	}
	to := defaultTimeouts
	to.idle = 300 * time.Millisecond
	base, _, _ := startServe(t, config{timeouts: to, maxConns: defaultMaxConns}, mock.Options{}, false)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/feedbacks?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("first answer: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	// Idle now: the server closes the connection after the idle timeout,
	// well before this read's own deadline.
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("reading an idle connection: %d bytes, %v; want EOF when the server closes it", n, err)
	}
	if took := time.Since(start); took < to.idle/2 {
		t.Errorf("the idle connection was closed after %v, before the idle timeout %v", took, to.idle)
	}
}

// The folders given by --scenarios and --fixtures are read through
// os.Root: a link out of the folder is not followed, the scenario it
// names is not served, and what it points to shows nowhere.
func TestScenarioFolderLinksNotFollowed(t *testing.T) {
	const secret = "S3CRET-outside-the-folder"
	base := t.TempDir()
	scDir := filepath.Join(base, "scenarios")
	outside := filepath.Join(base, "outside.yaml")
	for _, err := range []error{
		os.Mkdir(scDir, 0o755),
		os.WriteFile(outside, []byte("description: "+secret+"\nextends: default\n"), 0o600),
		os.Symlink(outside, filepath.Join(scDir, "leak.yaml")),
		os.WriteFile(filepath.Join(scDir, "mine.yaml"), []byte("description: a folder's own\nextends: default\n"), 0o600),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", addr, "--scenarios", scDir}, env(nil), io.Discard, logs) }()
	waitHealthy(t, addr, done)
	status := func(scenario string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/feedbacks?limit=1", nil)
		req.Header.Set("X-Mock-Scenario", scenario)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := status("mine"); code != http.StatusOK {
		t.Errorf("the folder's own scenario: %d %s, want 200", code, body)
	}
	code, body := status("leak")
	if code != http.StatusBadRequest {
		t.Errorf("the scenario linked from outside the folder: %d %s, want 400 (not served)", code, body)
	}
	listing, _ := http.Get("http://" + addr + "/__mock/scenarios")
	all, _ := io.ReadAll(listing.Body)
	listing.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if strings.Contains(body, secret) || strings.Contains(string(all), secret) || strings.Contains(logs.String(), secret) {
		t.Errorf("the linked file's contents show:\n%s\n%s\n%s", body, all, logs.String())
	}
	if !strings.Contains(logs.String(), "leak.yaml") {
		t.Errorf("nothing logged names the skipped link leak.yaml:\n%s", logs.String())
	}
}

// The demo's data ends when the server starts, or at --now
// (REPLYMOCK_NOW): its newest review is within a day of that time, and
// the shop's clock runs on from it. The default scenario's data stays
// fixed, byte for byte, whatever the time.
func TestDemoDataIsCurrent(t *testing.T) {
	serveWith := func(extra map[string]string, args ...string) (string, func()) {
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append([]string{"--addr", addr}, args...), env(extra), io.Discard, io.Discard)
		}()
		waitHealthy(t, addr, done)
		return addr, func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		}
	}
	get := func(addr, scenario, path string) []byte {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Header.Set("X-Mock-Scenario", scenario)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", scenario, path, resp.StatusCode, body)
		}
		return body
	}
	newest := func(addr string) (time.Time, time.Time) {
		var list struct {
			Data struct{ Feedbacks []mock.Feedback }
		}
		json.Unmarshal(get(addr, "demo", "/api/v1/feedbacks?limit=1"), &list)
		var clock struct{ Data mock.Clock }
		json.Unmarshal(get(addr, "demo", "/__mock/clock"), &clock)
		created, err1 := time.Parse(time.DateTime, list.Data.Feedbacks[0].CreatedDate)
		now, err2 := time.Parse(time.DateTime, clock.Data.Now)
		if err1 != nil || err2 != nil {
			t.Fatalf("newest %v, clock %v: %v %v", list.Data.Feedbacks, clock.Data, err1, err2)
		}
		return created, now
	}

	// The real time.
	addr, stop := serveWith(nil)
	created, clock := newest(addr)
	real := time.Now().UTC()
	if d := real.Sub(created); d < -time.Minute || d > 24*time.Hour {
		t.Errorf("demo's newest review is %v, %v before now (%v); want within a day", created, d, real)
	}
	if d := real.Sub(clock); d < -time.Minute || d > time.Minute {
		t.Errorf("demo's clock says %v at %v", clock, real)
	}
	// The media URLs hold the server's address; the rest is the data.
	page := func(addr string) string {
		return strings.ReplaceAll(string(get(addr, "default", "/api/v1/feedbacks?limit=100&offset=200")), addr, "ADDR")
	}
	defaultPage := page(addr)
	stop()

	// Pinned, by the flag and by the environment.
	pinned := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, how := range []struct {
		env  map[string]string
		args []string
	}{{nil, []string{"--now", "2027-03-01T12:00:00Z"}}, {map[string]string{"REPLYMOCK_NOW": "2027-03-01T15:00:00+03:00"}, nil}} {
		addr, stop := serveWith(how.env, how.args...)
		created, clock := newest(addr)
		if d := pinned.Sub(created); d < 0 || d > 24*time.Hour {
			t.Errorf("%v %v: demo's newest review is %v; want within the day before %v", how.env, how.args, created, pinned)
		}
		if d := clock.Sub(pinned); d < 0 || d > time.Minute {
			t.Errorf("%v %v: demo's clock says %v; want it to run on from %v", how.env, how.args, clock, pinned)
		}
		if page(addr) != defaultPage {
			t.Errorf("%v %v: the default scenario's data changed with the time", how.env, how.args)
		}
		stop()
	}

}
