package mock_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
	"unicode"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

func TestShippedScenariosLoad(t *testing.T) {
	results, err := mock.ValidateScenarios(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(scenarios.FS, "*.yaml")
	if len(results) != len(names) || len(results) == 0 {
		t.Fatalf("validated %d scenarios, the folder has %d", len(results), len(names))
	}
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("scenario %s: %v", r.Name, r.Err)
		}
	}
}

func TestShippedFixturesValid(t *testing.T) {
	n := 0
	err := fs.WalkDir(fixtures.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		n++
		data, err := fs.ReadFile(fixtures.FS, path)
		if err != nil {
			return err
		}
		if err := mock.ValidateFile(mock.Options{}, "fixtures/"+path, data); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 4 {
		t.Errorf("checked %d fixture files; expected the settings, reviews and phrase banks", n)
	}
}

// Each invalid file's problems, with file:line:col and field, are golden.
func TestInvalidFilesGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no files under testdata/invalid")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			err = mock.ValidateFile(mock.Options{}, f, data)
			if err == nil {
				t.Fatal("ValidateFile accepted an invalid file")
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, f+":") {
					t.Errorf("problem %q does not start with the file name", line)
				}
			}
			golden(t, "invalid/"+strings.TrimSuffix(filepath.Base(f), ".yaml")+".err", []byte(err.Error()+"\n"))
		})
	}
}

func TestNewRejectsBadScenario(t *testing.T) {
	tests := []struct {
		name, scenario, want string
		files                fstest.MapFS
	}{
		{"unknown scenario", "nope", `scenario "nope" not found in the scenarios folder; have: ok`, fstest.MapFS{"ok.yaml": {Data: []byte("description: x\nseed: 1\nsettings: settings/default.yaml\n")}}},
		{"another file is broken", "ok", "scenarios/broken.yaml:1:1: file is empty", fstest.MapFS{"ok.yaml": {Data: []byte("description: x\nseed: 1\nsettings: settings/default.yaml\n")}, "broken.yaml": {}}},
		{"path escape", "../default", `scenario name "../default"`, nil},
		{"upper case", "Default", `scenario name "Default"`, nil},
		{"bad file", "bad", "scenarios/bad.yaml:2:7: seed: ", fstest.MapFS{"bad.yaml": {Data: []byte("description: x\nseed: 0\nsettings: settings/default.yaml\n")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := mock.Options{Scenario: tc.scenario}
			if tc.files != nil {
				opts.Scenarios = tc.files
			}
			_, err := mock.New(opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("mock.New: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

// Two servers never share state: a PATCH on one is not seen by the other.
func TestServersAreIndependent(t *testing.T) {
	a, b := newServer(t, mock.Options{}), newServer(t, mock.Options{})
	decodeOK(t, "PATCH a", patch(t, a, `{"feedback":[{"rating":1,"tone":"calm"}]}`), new(mock.Settings))
	if got := getSettings(t, b).Feedback[0].Tone; got == "calm" {
		t.Error("server b sees server a's PATCH")
	}
}

func TestEnglishLocale(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "en-shop"})
	all := fetchAll(t, h, "", 100)
	if len(all) != 300 {
		t.Fatalf("en-shop has %d reviews, want 300", len(all))
	}
	latin := 0
	for _, f := range all {
		for _, s := range []string{f.Text, f.AnswerText, f.ProductName, f.UserName} {
			if strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
				t.Fatalf("%s: Cyrillic in an English shop: %q", f.FeedbackID, s)
			}
		}
		if f.Text != "" {
			latin++
		}
	}
	if latin < 150 {
		t.Errorf("only %d of 300 reviews have text", latin)
	}
}

// Dates before 1970 fall on their own day in the date filter.
func TestDateFilterBefore1970(t *testing.T) {
	reviews := `kind: reviews
reviews:
  - {feedback_id: a, nm_id: 1, product_name: P, product_valuation: 5, created_date: "1969-12-31 12:00:00"}
  - {feedback_id: b, nm_id: 1, product_name: P, product_valuation: 5, created_date: "1969-12-30 23:59:59"}
  - {feedback_id: c, nm_id: 1, product_name: P, product_valuation: 5, created_date: "1970-01-01 00:00:00"}
`
	h := newServer(t, mock.Options{
		Scenarios: fstest.MapFS{"old.yaml": {Data: []byte("description: x\nseed: 1\nsettings: settings/default.yaml\ndata: {fixtures: [reviews/old.yaml]}\n")}},
		Scenario:  "old",
		Fixtures:  fstest.MapFS{"reviews/old.yaml": {Data: []byte(reviews)}, "settings/default.yaml": {Data: mustRead(t, fixtures.FS, "settings/default.yaml")}},
	})
	for day, want := range map[string]string{"1969-12-30": "b", "1969-12-31": "a", "1970-01-01": "c"} {
		d := list(t, h, "date_from="+day+"&date_to="+day)
		if len(d.Feedbacks) != 1 || d.Feedbacks[0].FeedbackID != want {
			t.Errorf("date %s: got %v, want only %s", day, d.Feedbacks, want)
		}
	}
}

func mustRead(t *testing.T, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExtends(t *testing.T) {
	def := mustRead(t, scenarios.FS, "default.yaml")
	files := fstest.MapFS{
		"default.yaml":  {Data: def},
		"child.yaml":    {Data: []byte("extends: default\ndescription: child\nfaults: [{path: /settings/ai, error: {status: 503}}]\n")},
		"reseeded.yaml": {Data: []byte("extends: child\ndescription: grandchild with its own seed\nseed: 77\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files})
	parent := list(t, h, "limit=100")
	r := get(t, h, "/api/v1/feedbacks?limit=100", "X-Mock-Scenario", "child")
	var fromChild listData
	decodeOK(t, "child", r, &fromChild)
	if fromChild.Total != parent.Total || !sameIDs(parent.Feedbacks, fromChild.Feedbacks) || fromChild.Feedbacks[0].FeedbackID != parent.Feedbacks[0].FeedbackID {
		t.Error("a child without data serves other data than its parent")
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", "child"); r.status != 503 {
		t.Errorf("child's own fault: %d", r.status)
	}
	var grand listData
	decodeOK(t, "grandchild", get(t, h, "/api/v1/feedbacks?limit=100", "X-Mock-Scenario", "reseeded"), &grand)
	if grand.Total != parent.Total || grand.Feedbacks[0].FeedbackID == parent.Feedbacks[0].FeedbackID {
		t.Error("a child with its own seed should have as many, but other, generated reviews")
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", "reseeded"); r.status != 503 {
		t.Errorf("grandchild inherits the child's fault: got %d", r.status)
	}

	loop := fstest.MapFS{
		"a.yaml": {Data: []byte("extends: b\ndescription: a\n")},
		"b.yaml": {Data: []byte("extends: a\ndescription: b\nseed: 1\nsettings: settings/default.yaml\n")},
	}
	_, err := mock.New(mock.Options{Scenarios: loop, Scenario: "a"})
	if err == nil || !strings.Contains(err.Error(), "extends loop: a -> b -> a") {
		t.Errorf("extends loop: %v", err)
	}
}

// Every shipped scenario does what its description says. A new scenario
// needs a case here.
func TestShippedScenariosBehave(t *testing.T) {
	tests := map[string]func(t *testing.T, h http.Handler){
		"default": func(t *testing.T, h http.Handler) {
			if c := counts(t, h); c.Total != 1009 {
				t.Errorf("total %d, want 1009", c.Total)
			}
		},
		"en-shop": func(t *testing.T, h http.Handler) {
			if c := counts(t, h); c.Total != 300 {
				t.Errorf("total %d, want 300", c.Total)
			}
		},
		"empty-shop": func(t *testing.T, h http.Handler) {
			if c := counts(t, h); c != (countsData{}) {
				t.Errorf("counts %+v, want zeros", c)
			}
			for _, q := range []string{"rating=5", "answered=1", "search=a", "search=a&rating=2", "nm_id=5&counts_only=1", "date_from=2026-01-01"} {
				if d := get(t, h, "/api/v1/feedbacks?"+q); d.status != 200 || strings.Contains(string(d.body), `"total":1`) {
					t.Errorf("%s: %d %s", q, d.status, d.body)
				}
			}
			if r := get(t, h, "/api/v1/feedbacks"); !strings.Contains(string(r.body), `"feedbacks":[],"total":0`) {
				t.Errorf("list %s", r.body)
			}
		},
		"big-shop": func(t *testing.T, h http.Handler) {
			if c := counts(t, h); c.Total != 100000 {
				t.Errorf("total %d, want 100000", c.Total)
			}
		},
		"all-unanswered": func(t *testing.T, h http.Handler) {
			if c := counts(t, h); c.Total != 500 || c.Answered != 0 {
				t.Errorf("counts %+v, want 500 unanswered", c)
			}
			// Filters whose posting lists are empty match nothing, not everything.
			for _, q := range []string{"answered=1", "answered=1&rating=5", "answered=1&search=%D1%82", "answered=0&nm_id=1"} {
				if d := list(t, h, q); d.Total != 0 {
					t.Errorf("%s: total %d, want 0", q, d.Total)
				}
			}
			if d := list(t, h, "answered=0&search=%D1%82"); d.Total == 0 {
				t.Error("search over unanswered reviews found nothing")
			}
		},
		"slow": func(t *testing.T, h http.Handler) {
			start := time.Now()
			get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "slow-1")
			// The session's draws are fixed by the seed; the first is well above this.
			if d := time.Since(start); d < 50*time.Millisecond {
				t.Errorf("request took %v, want a log-normal delay around 400ms", d)
			}
		},
		"flaky": func(t *testing.T, h http.Handler) {
			failed := 0
			for range 60 {
				switch r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "flaky-1"); r.status {
				case 503:
					failed++
				case 200:
				default:
					t.Fatalf("status %d", r.status)
				}
			}
			if failed < 5 || failed > 20 {
				t.Errorf("%d of 60 failed, want about 20%%", failed)
			}
			if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Session", "flaky-1"); r.status != 200 {
				t.Errorf("settings: %d; only the list is flaky", r.status)
			}
		},
		"first-calls-fail": func(t *testing.T, h http.Handler) {
			for _, session := range []string{"a", "b"} {
				var got []int
				for range 4 {
					got = append(got, get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", session).status)
				}
				if fmt.Sprint(got) != "[500 500 200 200]" {
					t.Errorf("session %s: %v, want [500 500 200 200]", session, got)
				}
			}
		},
		"rate-limited": func(t *testing.T, h http.Handler) {
			for i := range 5 {
				if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.status != 200 {
					t.Fatalf("request %d: %d", i+1, r.status)
				}
			}
			r := get(t, h, "/api/v1/feedbacks?limit=1")
			checkError(t, "6th request", r, 429, mock.CodeRateLimited, "")
			if ra := r.header.Get("Retry-After"); ra != "10" {
				t.Errorf("Retry-After = %q, want 10 (the fake clock stands still)", ra)
			}
			if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "other"); r.status != 200 {
				t.Errorf("another session is limited too: %d", r.status)
			}
		},
		"unauthorized": func(t *testing.T, h http.Handler) {
			r := get(t, h, "/api/v1/feedbacks")
			checkError(t, "no token", r, 401, mock.CodeUnauthorized, "")
			if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
			}
			checkError(t, "wrong token", get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-tokens"), 401, mock.CodeUnauthorized, "")
			checkError(t, "basic auth", get(t, h, "/api/v1/feedbacks", "Authorization", "Basic ZGVtbzp0b2tlbg=="), 401, mock.CodeUnauthorized, "")
			checkError(t, "no token after the scheme", get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer "), 401, mock.CodeUnauthorized, "")
			checkError(t, "the token glued to the scheme", get(t, h, "/api/v1/feedbacks", "Authorization", "Bearerdemo-token"), 401, mock.CodeUnauthorized, "")
			// The scheme is case-insensitive (RFC 9110, 11.1).
			for _, auth := range []string{"Bearer demo-token", "bearer demo-token", "BEARER demo-token", "Bearer   demo-token"} {
				if r := get(t, h, "/api/v1/feedbacks", "Authorization", auth); r.status != 200 {
					t.Errorf("with %q: %d", auth, r.status)
				}
			}
			if r := get(t, h, "/__mock/health"); r.status != 200 {
				t.Errorf("health needs no API token: %d", r.status)
			}
		},
		"down": func(t *testing.T, h http.Handler) {
			for _, target := range []string{"/api/v1/feedbacks", "/api/v1/settings/ai", "/api/v1/nope"} {
				r := get(t, h, target)
				checkError(t, target, r, 503, mock.CodeServiceUnavailable, "")
				if r.header.Get("Retry-After") != "30" {
					t.Errorf("%s: Retry-After = %q", target, r.header.Get("Retry-After"))
				}
			}
		},
		"broken-json": func(t *testing.T, h http.Handler) {
			ts := httptest.NewServer(h)
			defer ts.Close()
			resp, err := ts.Client().Get(ts.URL + "/api/v1/feedbacks")
			if err != nil {
				t.Fatalf("headers should arrive: %v", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) || resp.StatusCode != 200 {
				t.Errorf("status %d, read %d bytes, err %v; want 200 and an unexpected EOF", resp.StatusCode, len(body), err)
			}
		},
		"connection-drops": func(t *testing.T, h http.Handler) {
			ts := httptest.NewServer(h)
			defer ts.Close()
			resp, err := ts.Client().Get(ts.URL + "/api/v1/feedbacks")
			if err == nil {
				resp.Body.Close()
				t.Fatalf("got status %d, want a connection error", resp.StatusCode)
			}
		},
		"gateway-timeout": func(t *testing.T, h http.Handler) {
			// Five seconds is long for a test: the client gives up, and the
			// server's delay ends with it.
			// The client leaves once the server has its request (however
			// long a loaded machine takes to get there), not at a set time.
			ts := httptest.NewUnstartedServer(h)
			active := make(chan struct{})
			var once sync.Once
			ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateActive {
					once.Do(func() { close(active) })
				}
			}
			ts.Start()
			defer ts.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-active
				time.Sleep(50 * time.Millisecond)
				cancel()
			}()
			req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/feedbacks", nil)
			req.Header.Set("X-Mock-Session", "gw")
			if resp, err := ts.Client().Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("status %d before the delay ended", resp.StatusCode)
			}
			m := h.(*mock.Server)
			deadline := time.Now().Add(3 * time.Second)
			for {
				reqs := m.Requests(mock.JournalFilter{Session: "gw"})
				if len(reqs) == 1 && strings.Contains(reqs[0].Fault, "gateway-timeout: latency error 504 (client gone)") {
					if reqs[0].DurationMS >= 5000 {
						t.Fatalf("the request took %.0f ms: it waited out the delay though its client left", reqs[0].DurationMS)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("journal %+v: want the request ended when the client left", reqs)
				}
				time.Sleep(10 * time.Millisecond)
			}
		},
		"settings-save-fails": func(t *testing.T, h http.Handler) {
			checkError(t, "PATCH", patch(t, h, `{}`), 500, mock.CodeInternal, "")
			if r := get(t, h, "/api/v1/settings/ai"); r.status != 200 {
				t.Errorf("GET: %d", r.status)
			}
		},
		"demo": func(t *testing.T, h http.Handler) {
			// Real clock: a test moves it an hour ahead; 30 reviews arrive.
			before := counts(t, h).Total
			decodeOK(t, "advance", admin(t, h, "POST", "/__mock/clock", `{"advance":"1h"}`), new(mock.Clock))
			if got := counts(t, h).Total; got != before+30 {
				t.Errorf("total %d after an hour, want %d", got, before+30)
			}
		},
		"demo-frozen": func(t *testing.T, h http.Handler) {
			before := counts(t, h)
			decodeOK(t, "turn on auto", patch(t, h, `{"feedback":[{"rating":5,"reply_mode":"auto"}]}`), new(mock.Settings))
			if c := counts(t, h); c != before {
				t.Errorf("a frozen clock moved by itself: %+v -> %+v", before, c)
			}
			decodeOK(t, "advance", admin(t, h, "POST", "/__mock/clock", `{"advance":"1h"}`), new(mock.Clock))
			if c := counts(t, h); c.Total != before.Total+30 || c.Answered <= before.Answered {
				t.Errorf("after an hour: %+v, want 30 more reviews and more answered than %d", c, before.Answered)
			}
		},
		"strict-tones": func(t *testing.T, h http.Handler) {
			checkError(t, "tone", patch(t, h, `{"feedback":[{"rating":1,"tone":"sarcastic"}]}`), 400, mock.CodeInvalidBody, "feedback[0].tone")
			decodeOK(t, "tone", patch(t, h, `{"feedback":[{"rating":1,"tone":"neutral"}]}`), new(mock.Settings))
		},
	}
	names, _ := fs.Glob(scenarios.FS, "*.yaml")
	for _, file := range names {
		name := strings.TrimSuffix(file, ".yaml")
		test, ok := tests[name]
		if !ok {
			t.Errorf("scenario %s has no behaviour test", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
			h := newServer(t, mock.Options{Scenario: name, Now: clock.now})
			test(t, h)
		})
	}
}

// The same session sees the same flaky sequence on every run.
func TestFlakyIsDeterministic(t *testing.T) {
	seq := func() string {
		h := newServer(t, mock.Options{Scenario: "flaky"})
		var b strings.Builder
		for range 40 {
			fmt.Fprintf(&b, "%d ", get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "ci-run").status)
		}
		return b.String()
	}
	a, b := seq(), seq()
	if a != b {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
	if !strings.Contains(a, "503") || !strings.Contains(a, "200") {
		t.Errorf("sequence %s: want both 200 and 503", a)
	}
}

// A problem quotes no more of a value than the line of the file it starts
// on, and at most 120 characters of it: a file that is not what it should
// be (secrets linked in by mistake) must not end up in the logs.
func TestProblemsQuoteOneLine(t *testing.T) {
	const secret = "SECRET-on-another-line"
	long := strings.Repeat("9x", 150)
	tests := []struct {
		name, file, want string
	}{
		{"a file of KEY=value lines", "API_HOST=example.test\nAPI_TOKEN=" + secret + "\n",
			`must be a mapping, got "API_HOST=example.test…"`},
		{"a plain value over two lines", "description: x\nseed: 12ab\n  " + secret + "\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "12ab…"`},
		{"a quoted value over two lines", "description: x\nseed: \"12ab\n  " + secret + "\"\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "12ab…"`},
		{"a literal block", "description: x\nseed: |\n  12ab\n  " + secret + "\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "12ab…"`},
		{"a folded block", "description: x\nseed: >\n  12ab\n  " + secret + "\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "12ab…"`},
		{"a duration", "description: x\nseed: 1\nsettings: settings/default.yaml\nfaults:\n  - latency:\n      min: 10x\n        " + secret + "\n",
			`faults[0].latency.min: must be a duration such as "250ms" or "2s", got "10x…"`},
		{"a checked value", "description: x\nseed: 1\nsettings: settings/default.yaml\ndata:\n  locale: xx\n    " + secret + "\n",
			`data.locale: must be one of ru, en, got "xx…"`},
		{"after other characters on its line", "description: x\nseed: 1\nsettings: settings/default.yaml\ndata: {fixtures: [ёж.txt], locale: xx\n  " + secret + "}\n",
			`data.locale: must be one of ru, en, got "xx…"`},
		{"a fixture's value", "kind: reviews\nreviews:\n  - feedback_id: a\n    nm_id: 1\n    product_valuation: 5\n    product_name: p\n    created_date: 2026-01-01\n      " + secret + "\n",
			`reviews[0].created_date: must be a timestamp YYYY-MM-DD HH:MM:SS, got "2026-01-01…"`},
		{"a long line", "description: x\nseed: " + long + "\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "` + long[:120] + `…"`},
		{"a value after an anchor, whole", "description: x\nseed: &n 12ab # a note\nsettings: settings/default.yaml\n",
			`seed: must be an integer, got "12ab"`},
		{"a quoted value on one line, whole", "description: x\nseed: 1\nsettings: settings/default.yaml\ndata: {locale: \"a\\\"b\"}\n",
			`data.locale: must be one of ru, en, got "a\"b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := mock.ValidateFile(mock.Options{}, "x.yaml", []byte(tc.file))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("problems:\n%v\nwant one with %s", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), long[:121]) {
				t.Errorf("problems quote more than a line:\n%v", err)
			}
		})
	}
}

// A scenario's descriptions in other languages are listed with it; a
// scenario that extends it keeps them only with its description: one of
// its own drops the parent's translations.
func TestScenarioDescriptions(t *testing.T) {
	files := fstest.MapFS{
		"parent.yaml": {Data: []byte("description: Магазин\ndescriptions:\n  en: A shop\nseed: 1\nsettings: settings/default.yaml\n")},
		"same.yaml":   {Data: []byte("extends: parent\n")},
		"own.yaml":    {Data: []byte("extends: parent\ndescription: Другой магазин\n")},
	}
	s, err := mock.New(mock.Options{Scenarios: files, Scenario: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sc := range s.Scenarios(mock.DefaultSession) {
		got[sc.Name] = sc.Description + " | " + sc.Descriptions["en"]
	}
	want := map[string]string{"parent": "Магазин | A shop", "same": "Магазин | A shop", "own": "Другой магазин | "}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	r := admin(t, s, "GET", "/__mock/scenarios", "")
	if !strings.Contains(string(r.body), `"descriptions":{"en":"A shop"}`) {
		t.Errorf("GET /__mock/scenarios: %s", r.body)
	}
}
