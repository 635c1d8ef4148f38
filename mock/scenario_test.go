package mock_test

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"github.com/replymock/replymock/mock/internal/scenariotest"
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

// Every shipped scenario does what its description says: the checks of
// mock/internal/scenariotest (the same that mock/deploy runs through the
// nginx recipe on a fleet), on a server of the scenario in this process,
// its clock standing still. A new scenario needs a check there.
func TestShippedScenariosBehave(t *testing.T) {
	scenariotest.Run(t, func(t *testing.T, name string) scenariotest.Target {
		clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
		return inProcess{newServer(t, mock.Options{Scenario: name, Now: clock.now})}
	})
}

// inProcess is a server in this process as scenariotest's checks reach
// it: each exchange through the handler, its answer held to the OpenAPI
// documents (do), and a real connection for the checks that need one.
type inProcess struct{ h http.Handler }

func (p inProcess) Do(t testing.TB, method, target, body string, header ...string) scenariotest.Response {
	t.Helper()
	r := do(t, p.h, method, target, body, header...)
	return scenariotest.Response{Status: r.status, Header: r.header, Body: r.body}
}

// Send serves the handler on a loopback port of its own until the test
// ends; received is called once a connection has the request.
func (p inProcess) Send(t testing.TB, req *http.Request, received func()) (*http.Response, error) {
	t.Helper()
	ts := httptest.NewUnstartedServer(p.h)
	var once sync.Once
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateActive && received != nil {
			once.Do(received)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	base, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	req.URL, req.Host = base.ResolveReference(req.URL), ""
	return ts.Client().Do(req)
}

// RealClock is false: the tests give the server a fake clock.
func (inProcess) RealClock() bool { return false }

func (inProcess) Balanced() bool { return false }

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
