package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

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

// With --admin-addr the admin API is only on its own listener, and that
// listener serves only the admin API (its log line says "admin").
func TestAdminAddr(t *testing.T) {
	api, adm, _ := startServe(t, config{}, mock.Options{}, true)
	for url, want := range map[string]int{
		api + "/api/v1/feedbacks?limit=1": 200, api + "/__mock/health": 200, api + "/__mock/scenarios": 404,
		adm + "/__mock/scenarios": 200, adm + "/__mock/health": 200, adm + "/__mock/": 200,
		adm + "/api/v1/feedbacks?limit=1": 404, adm + "/api/v1/settings/ai": 404,
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

// With --admin-addr, --addr is the public listener: --max-new-sessions
// bounds the sessions a client starts there a minute, and
// --public-scenarios the scenarios X-Mock-Scenario names; the admin
// listener is bounded by neither. The serving line says both.
func TestAdminAddrBoundsVisitors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--log-format", "json",
			"--max-new-sessions", "2", "--public-scenarios", "default,demo"}, env(nil), io.Discard, logs)
	}()
	defer func() { cancel(); <-done }()
	waitLog(t, logs, `"serves":"admin"`)
	addrs := map[string]string{}
	for l := range strings.SplitSeq(logs.String(), "\n") {
		var line struct {
			Msg, Addr, Serves string
			PerMinute         string `json:"new_sessions_per_minute"`
			Open              string `json:"public_scenarios"`
		}
		if json.Unmarshal([]byte(l), &line) == nil && line.Msg == "replymock serving" {
			addrs[line.Serves] = "http://" + line.Addr
			if line.Serves == "api" && (line.PerMinute != "2" || line.Open != "default,demo") {
				t.Errorf("the public listener's line: %s", l)
			}
		}
	}
	status := func(base, session, scenario string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+"/api/v1/feedbacks?limit=1", nil)
		req.Header.Set("X-Mock-Session", session)
		if scenario != "" {
			req.Header.Set("X-Mock-Scenario", scenario)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	for i, want := range []int{200, 200, 429} {
		if got, retry := status(addrs["api"], fmt.Sprintf("v%d", i), ""); got != want || want == 429 && retry != "30" {
			t.Errorf("new session %d on the public listener: %d (Retry-After %q), want %d", i+1, got, retry, want)
		}
	}
	// The admin listener serves no API; its routes that make a session
	// (a session's fault) are not bounded.
	if got, _ := status(addrs["admin"], "a", ""); got != 404 {
		t.Errorf("the API on the admin listener: %d, want 404", got)
	}
	for i := range 5 {
		req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/__mock/faults?session=a%d", addrs["admin"], i), strings.NewReader(`{"name":"slow","latency":{"fixed":"1ms"}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("new session %d on the admin listener: %d", i+1, resp.StatusCode)
		}
	}
	for scenario, want := range map[string]int{"demo": 200, "en-shop": 403} {
		if got, _ := status(addrs["api"], "v0", scenario); got != want {
			t.Errorf("X-Mock-Scenario %s on the public listener: %d, want %d", scenario, got, want)
		}
	}
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
		{"127.0.0.1:0", nil, []string{`"reach":"this machine only"`, `"admin":"open"`, `"api_origins":"loopback,own page"`,
			`"admin_origins":"loopback,own page"`, `"hosts":"loopback,IPs,single-label"`, `"max_conns":4096`}},
		{"127.0.0.1:0", []string{"--cors-origins", "https://app.test", "--allowed-hosts", "demo.test", "--admin-token", "s3cret", "--max-conns", "10"},
			[]string{`"admin":"locked by token"`, `"api_origins":"loopback,own page,https://app.test"`, `"admin_origins":"loopback,own page,https://app.test"`,
				`"hosts":"loopback,IPs,single-label,demo.test"`, `"max_conns":10`}},
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

// Without GOMEMLIMIT, the server sets a soft memory limit of what is live
// after the build, its stores' budgets and some room; with it, none.
// Either way the collector serves at Go's default percentage.
func TestMemoryLimit(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64); debug.SetGCPercent(100) })
	opts := mock.Options{JournalBytes: 1 << 20, MaxShopBytes: 2 << 20, MaxSeedBytes: 3 << 20}
	budget := int64(6<<20 + mock.MaxRuntimeFaultBytes)
	for _, c := range []struct {
		cfg   config
		limit bool
	}{
		{config{}, false},                            // GOGC and GOMEMLIMIT set
		{config{tuneGC: true}, false},                // GOMEMLIMIT set
		{config{memLimit: true}, true},               // GOGC set
		{config{memLimit: true, tuneGC: true}, true}, // neither
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		startServe(t, c.cfg, opts, false)
		got := debug.SetMemoryLimit(-1)
		if !c.limit && got != math.MaxInt64 {
			t.Errorf("%+v: with GOMEMLIMIT set (memLimit false), the limit became %d", c.cfg, got)
		}
		if c.limit && (got < budget+memoryHeadroom || got > budget+memoryHeadroom+2<<30) {
			t.Errorf("%+v: memory limit %d MiB, want the budgets (%d MiB), %d MiB of room and the live heap", c.cfg, got>>20, budget>>20, memoryHeadroom>>20)
		}
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("%+v: the collector's percentage is %d while serving, want 100", c.cfg, p)
		}
	}
}

// A server with its default flags keeps its soft memory limit within
// what a laptop or a CI runner has to spare.
func TestDefaultMemoryLimit(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	var cfg config
	fsys := cfg.flagSet("serve", io.Discard)
	level, err := cfg.check(fsys, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	startServe(t, cfg, cfg.options(level, io.Discard), false)
	if got := debug.SetMemoryLimit(-1); got > 512<<20 {
		t.Errorf("the default soft memory limit is %d MiB, want at most 512", got>>20)
	}
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

// With --exit-on-stdin-close, the server shuts down cleanly when its
// standard input closes, as it does when the process holding the pipe's
// other end exits, killed or not; without the flag, a closed standard
// input changes nothing.
func TestExitOnStdinClose(t *testing.T) {
	start := func(args ...string) (*exec.Cmd, *syncBuffer, io.WriteCloser, string) {
		t.Helper()
		js, _ := json.Marshal(append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, args...))
		logs := &syncBuffer{}
		cmd, _, in := child(t, "main", logs, "REPLYMOCK_TEST_ARGS="+string(js))
		base := servingAddr(t, logs)
		resp, err := http.Get(base + "/__mock/health")
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		resp.Body.Close()
		return cmd, logs, in, base
	}
	const said = "standard input closed (--exit-on-stdin-close): shutting down"

	cmd, logs, in, base := start("--exit-on-stdin-close")
	in.Close()
	if err := exited(t, cmd, 30*time.Second); err != nil {
		t.Errorf("exit after standard input closed: %v; want a clean exit", err)
	}
	if !strings.Contains(logs.String(), said) || !strings.Contains(logs.String(), "draining requests in flight") {
		t.Errorf("the log does not say why the server stopped, or that it drained:\n%s", logs.String())
	}
	if resp, err := http.Get(base + "/__mock/health"); err == nil {
		resp.Body.Close()
		t.Errorf("%s still answers after the process exited", base)
	}

	cmd, logs, in, base = start()
	in.Close()
	time.Sleep(300 * time.Millisecond)
	resp, err := http.Get(base + "/__mock/health")
	if err != nil {
		t.Fatalf("without the flag, a closed standard input stopped the server: %v", err)
	}
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := exited(t, cmd, 30*time.Second); err != nil {
		t.Errorf("exit on SIGTERM: %v", err)
	}
	if strings.Contains(logs.String(), said) {
		t.Errorf("without the flag, the server watched its standard input:\n%s", logs.String())
	}
}
