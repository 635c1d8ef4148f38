package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

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
