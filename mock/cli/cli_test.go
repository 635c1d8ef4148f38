package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

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
		{[]string{"--max-state-disk", "lots"}, nil, 2, "want a size such as 1GiB"},
		{[]string{"--max-new-sessions", "-1"}, nil, 2, "--max-new-sessions must be >= 0"},
		{[]string{"--public-scenarios", " ,"}, nil, 2, "--public-scenarios is empty"},
		{[]string{"--public-scenarios", "nope", "--addr", "127.0.0.1:0"}, nil, 1, `no scenario "nope"`},
		{nil, map[string]string{"REPLYMOCK_MAX_STATE_DISK": "0"}, 2, "REPLYMOCK_MAX_STATE_DISK"},
		{[]string{"--scenarios", "/no/such/folder"}, nil, 2, "--scenarios"},
		{[]string{"--fixtures", "/no/such/folder"}, nil, 2, "--fixtures"},
		{[]string{"--scenarios-only"}, nil, 2, "--scenarios-only needs --scenarios DIR"},
		{nil, map[string]string{"REPLYMOCK_SCENARIOS_ONLY": "true"}, 2, "--scenarios-only needs --scenarios DIR"},
		{nil, map[string]string{"REPLYMOCK_SCENARIO": "nope", "REPLYMOCK_ADDR": "127.0.0.1:0"}, 2, `scenario "nope" not found`},
		{[]string{"--scenario", "flakey", "--addr", "127.0.0.1:0"}, nil, 2, `not found in the shipped scenarios: did you mean flaky?`},
		{[]string{"--scenario", "Flaky", "--addr", "127.0.0.1:0"}, nil, 2, `use lower-case letters, digits, '-' and '_': did you mean flaky?`},
		{[]string{"--addr", "8080"}, nil, 2, "--addr 8080 has no host: did you mean --addr 127.0.0.1:8080 (this machine) or --addr :8080 (every interface)?"},
		{[]string{"--addr", ":99999"}, nil, 2, "the port must be a number from 0 to 65535"},
		{[]string{"--addr", "localhost"}, nil, 2, `--addr "localhost" is not HOST:PORT`},
		{[]string{"--admin-addr", "9090"}, nil, 2, "did you mean --admin-addr 127.0.0.1:9090"},
		{[]string{"--port", "8080"}, nil, 2, "did you mean --addr :PORT"},
		{[]string{"--scenerio", "flaky"}, nil, 2, "did you mean --scenario?"},
		{[]string{"--min-body-rate", "1KiB"}, nil, 2, "it was removed"},
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
	out.Reset()
	if err := run(context.Background(), []string{"--help"}, env(nil), &out, io.Discard); err != nil || !strings.Contains(out.String(), "-max-shop-memory") {
		t.Errorf("--help: %v, %q", err, out.String())
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

// replymock probe, through Main: 0 when every rule holds, 1 when one
// differs, 2 for bad flags, 3 when rules could not be checked (unless
// --allow-unchecked, and then only when one held).
func TestProbeExitCodes(t *testing.T) {
	srv, err := mock.New(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	locked, err := mock.New(mock.Options{Scenario: "unauthorized"})
	if err != nil {
		t.Fatal(err)
	}
	target := func(h http.HandlerFunc) string {
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL + "/api/v1"
	}
	good := target(srv.ServeHTTP)
	// A target whose counts disagree with its list.
	broken := target(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("counts_only") == "1" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"success":true,"data":{"total":1,"unanswered":1,"answered":0}}`)
			return
		}
		srv.ServeHTTP(w, r)
	})
	html := target(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><p>a shop")
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string // on stderr
	}{
		{"every rule holds", []string{"--target", good}, 0, ""},
		{"a rule differs", []string{"--target", broken}, 1, "differ: counts.match-list"},
		{"bad flags", []string{"--target", good, "--format", "yaml"}, 2, "--format must be"},
		{"no target", nil, 2, "--target is required"},
		// The budget runs out before the last rules.
		{"rules unchecked", []string{"--target", good, "--max-requests", "40"}, 3, "rules could not be checked: "},
		{"rules unchecked, allowed", []string{"--target", good, "--max-requests", "40", "--allow-unchecked"}, 0, ""},
		{"nothing checked, allowed", []string{"--target", html, "--allow-unchecked"}, 3, "nothing was checked: the target does not answer as this API"},
		{"token refused", []string{"--target", target(locked.ServeHTTP), "--token", "nope", "--allow-unchecked"}, 3, "refused the token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"probe", "--rate", "1000000", "--quiet"}, tc.args...)
			stdout, stderr, code := replymock(t, args)
			if code != tc.code || !strings.Contains(stderr, tc.says) || tc.code == 0 && stderr != "" {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q\n%s", code, stderr, tc.code, tc.says, stdout)
			}
		})
	}
}
