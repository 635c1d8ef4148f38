package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

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

// --redact adds names, each use one or several, REPLYMOCK_REDACT's
// comma-separated ones too; a name that is not one is a usage error.
func TestRedactFlagAndEnv(t *testing.T) {
	parse := func(args []string, vars map[string]string) ([]string, error) {
		var cfg config
		fsys := cfg.flagSet("serve", io.Discard)
		if err := applyEnv(fsys, env(vars)); err != nil {
			return nil, err
		}
		if err := fsys.Parse(args); err != nil {
			return nil, err
		}
		return cfg.options(0, io.Discard).Redact, nil
	}
	got, err := parse([]string{"--redact", "X-Extra", "--redact", "y,z"}, map[string]string{"REPLYMOCK_REDACT": "X-Tenant, customer_ref"})
	if err != nil || strings.Join(got, " ") != "X-Tenant customer_ref X-Extra y z" {
		t.Errorf("Redact = %q, %v", got, err)
	}
	if got, err := parse(nil, nil); err != nil || got != nil {
		t.Errorf("no --redact: %q, %v", got, err)
	}
	for _, c := range []struct {
		args []string
		vars map[string]string
	}{
		{[]string{"--redact", "a b"}, nil},
		{[]string{"--redact", ""}, nil},
		{[]string{"--redact", ","}, nil},
		{nil, map[string]string{"REPLYMOCK_REDACT": "ok,x:y"}},
	} {
		if _, err := parse(c.args, c.vars); err == nil {
			t.Errorf("%q %v: no error", c.args, c.vars)
		}
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"--redact", "a b"}, env(nil), io.Discard, &stderr); !errors.As(err, new(usageError)) {
		t.Errorf("--redact 'a b': %v, want a usage error", err)
	}
}
