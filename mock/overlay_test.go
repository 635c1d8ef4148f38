package mock_test

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// A user's own scenarios, as written next to the shipped ones.
const (
	mineYAML      = "extends: default\ndescription: mine\nfaults: [{path: /settings/*, error: {status: 502}}]\n"
	ownDefault    = "description: own default\nseed: 5\nsettings: settings/default.yaml\ndata: {fixtures: [reviews/edge-cases.yaml], generate: {count: 20, products: 3}}\n"
	brokenDefault = "description: broken default\nseed: 0\nsettings: settings/default.yaml\n"
)

func overlay(files fs.FS) mock.Options {
	return mock.Options{Scenarios: files, ScenariosDir: "my-scenarios", ShippedScenarios: true}
}

func descriptions(h *mock.Server) map[string]string {
	out := map[string]string{}
	for _, sc := range h.Scenarios(mock.DefaultSession) {
		out[sc.Name] = sc.Description
	}
	return out
}

func shippedNames(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(names) < 10 {
		t.Fatalf("shipped scenarios: %v %v", names, err)
	}
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".yaml")
	}
	return names
}

// With ShippedScenarios, a user's folder adds to the shipped scenarios: a
// scenario extending default is served and listed beside them all.
func TestOverlayAddsScenarios(t *testing.T) {
	h := newServer(t, overlay(fstest.MapFS{"mine.yaml": {Data: []byte(mineYAML)}}))
	desc := descriptions(h)
	for _, n := range append(shippedNames(t), "mine") {
		if desc[n] == "" {
			t.Errorf("scenario %s is not listed: %v", n, desc)
		}
	}
	if c := counts(t, h, "X-Mock-Scenario", "mine"); c.Total != 1009 {
		t.Errorf("mine (extends default): %d reviews, want the default's 1009", c.Total)
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", "mine"); r.status != 502 {
		t.Errorf("mine's own fault: %d", r.status)
	}
	if r := get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", "flaky"); r.status != 200 {
		t.Errorf("shipped flaky: %d", r.status)
	}
}

// A user's default replaces the shipped one, for the scenarios extending
// it too, shipped or not; the others are left alone.
func TestOverlayReplacesShipped(t *testing.T) {
	h := newServer(t, overlay(fstest.MapFS{"default.yaml": {Data: []byte(ownDefault)}, "mine.yaml": {Data: []byte(mineYAML)}}))
	if d := descriptions(h)["default"]; d != "own default" {
		t.Errorf("default: %q, want the user's", d)
	}
	for _, sc := range []string{"default", "strict-tones", "mine"} {
		if c := counts(t, h, "X-Mock-Scenario", sc); c.Total != 29 {
			t.Errorf("%s: %d reviews, want the user's default's 29", sc, c.Total)
		}
	}
	if c := counts(t, h, "X-Mock-Scenario", "en-shop"); c.Total != 300 {
		t.Errorf("en-shop extends nothing: %d reviews, want 300", c.Total)
	}
}

// Without ShippedScenarios, the folder replaces the shipped scenarios (as
// before), and the message names the file by the folder's own name.
func TestScenariosOnly(t *testing.T) {
	files := fstest.MapFS{"mine.yaml": {Data: []byte(mineYAML)}}
	_, err := mock.New(mock.Options{Scenarios: files, ScenariosDir: "my-scenarios", Scenario: "mine"})
	want := `my-scenarios/mine.yaml:1:10: extends: scenario "default" not found in my-scenarios; have: mine`
	if err == nil || err.Error() != want {
		t.Errorf("mock.New: %v\nwant %s", err, want)
	}
	h := newServer(t, mock.Options{Scenarios: fstest.MapFS{"default.yaml": {Data: []byte(ownDefault)}, "mine.yaml": {Data: []byte(mineYAML)}}})
	if desc := descriptions(h); len(desc) != 2 {
		t.Errorf("listed %v, want only the folder's two", desc)
	}
}

// Problems name each file where it is: the user's by the folder's name,
// the shipped ones as "(shipped) scenarios/NAME.yaml".
func TestOverlayMessagesNameRealPaths(t *testing.T) {
	_, err := mock.New(overlay(fstest.MapFS{"default.yaml": {Data: []byte(brokenDefault)}}))
	if err == nil {
		t.Fatal("a broken default was served")
	}
	for _, want := range []string{
		"my-scenarios/default.yaml:2:7: seed: required and not 0",
		`(shipped) scenarios/flaky.yaml:3:10: extends: scenario "default" has problems (in my-scenarios/default.yaml)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems:\n%v\nwant a line with %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "\nscenarios/") || strings.HasPrefix(err.Error(), "scenarios/") {
		t.Errorf("a file is named by a folder that is not its own:\n%v", err)
	}
	results, err := mock.ValidateScenarios(overlay(fstest.MapFS{"default.yaml": {Data: []byte(brokenDefault)}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		want := "(shipped) scenarios/" + r.Name + ".yaml"
		if r.Name == "default" {
			want = "my-scenarios/default.yaml"
		}
		if r.File != want {
			t.Errorf("%s: file %q, want %q", r.Name, r.File, want)
		}
		if extendsDefault := r.Name != "en-shop"; extendsDefault != (r.Err != nil) {
			t.Errorf("%s: %v", r.Name, r.Err)
		}
	}
}

// Hot reload works on the overlay: a user's default added, broken, fixed
// and removed, and a new scenario added, each swapped in (the shipped
// default back in the end).
func TestOverlayReload(t *testing.T) {
	files := fstest.MapFS{}
	h := newServer(t, overlay(files))
	total := func(sc string) int { return counts(t, h, "X-Mock-Scenario", sc).Total }
	if total("strict-tones") != 1009 {
		t.Fatal("strict-tones does not start on the shipped default")
	}
	files["default.yaml"] = &fstest.MapFile{Data: []byte(ownDefault)}
	files["mine.yaml"] = &fstest.MapFile{Data: []byte(mineYAML)}
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	if d := descriptions(h); d["default"] != "own default" || d["mine"] != "mine" || total("strict-tones") != 29 || total("mine") != 29 {
		t.Errorf("after adding the user's default and mine: %v, strict-tones %d reviews", d, total("strict-tones"))
	}
	files["default.yaml"] = &fstest.MapFile{Data: []byte(brokenDefault)}
	err := h.Reload()
	if err == nil || !strings.Contains(err.Error(), "my-scenarios/default.yaml:2:7: seed:") {
		t.Errorf("reload of a broken default: %v", err)
	}
	if descriptions(h)["default"] != "own default" || total("strict-tones") != 29 {
		t.Error("the broken default replaced the version serving")
	}
	delete(files, "default.yaml")
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	if d := descriptions(h); d["default"] == "own default" || d["mine"] != "mine" || total("strict-tones") != 1009 || total("mine") != 1009 {
		t.Errorf("after removing the user's default: %v, strict-tones %d reviews", d, total("strict-tones"))
	}
}

// Fixtures overlay the shipped ones the same way: a user's fixture adds
// to them or replaces the one at its path; a missing one is looked for in
// both, and a broken one is named where it is.
func TestOverlayFixtures(t *testing.T) {
	settings, err := fs.ReadFile(fixtures.FS, "settings/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ownSettings := strings.ReplaceAll(string(settings), "команда «Уютный дом»", "команда «Свой дом»")
	review := "kind: reviews\nreviews:\n  - {feedback_id: Own1, nm_id: 7, product_name: Своё, product_valuation: 4, created_date: \"2026-03-01 10:00:00\"}\n"
	scenario := "extends: default\ndescription: own data\ndata: {fixtures: [reviews/own.yaml, reviews/edge-cases.yaml]}\n"
	fx := fstest.MapFS{"reviews/own.yaml": {Data: []byte(review)}, "settings/default.yaml": {Data: []byte(ownSettings)}}
	opts := mock.Options{Scenarios: fstest.MapFS{"own.yaml": {Data: []byte(scenario)}}, ScenariosDir: "sc", ShippedScenarios: true,
		Fixtures: fx, FixturesDir: "my-fixtures", ShippedFixtures: true, Scenario: "own"}
	h := newServer(t, opts)
	if c := counts(t, h); c.Total != 10 {
		t.Errorf("own: %d reviews, want the user's one and the shipped 9", c.Total)
	}
	if sig := getSettings(t, h).Feedback[0].Signature; !strings.Contains(sig, "Свой дом") {
		t.Errorf("signature %q: the user's settings/default.yaml does not replace the shipped one", sig)
	}

	for _, tc := range []struct {
		name    string
		fx      fstest.MapFS
		shipped bool
		want    string
	}{
		{"missing in both", fstest.MapFS{}, true, "sc/own.yaml:3:19: data.fixtures[0]: no such file in my-fixtures or the shipped fixtures"},
		{"missing without the shipped", fstest.MapFS{"reviews/own.yaml": {Data: []byte(review)}}, false, "sc/own.yaml:3:37: data.fixtures[1]: no such file in my-fixtures"},
		{"broken", fstest.MapFS{"reviews/own.yaml": {Data: []byte("kind: reviews\nreviews: [{nm_id: x}]\n")}}, true, "my-fixtures/reviews/own.yaml:2:19: reviews[0].nm_id: must be an integer"},
	} {
		opts := opts
		opts.Fixtures, opts.ShippedFixtures = tc.fx, tc.shipped
		_, err := mock.New(opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant a line with %s", tc.name, err, tc.want)
		}
	}
}

// ValidateFiles resolves extends among the files given first, then the
// folder and the shipped scenarios, and reports every problem of every
// file, each once, by the path it was given.
func TestValidateFilesTogether(t *testing.T) {
	files := []mock.SourceFile{
		{Path: "team/base.yaml", Data: []byte("extends: default\ndescription: team base\nrate_limit: {requests: 5, window: 10s}\n")},
		{Path: "other/child.yaml", Data: []byte("extends: base\ndescription: a child of a file given\n")},
	}
	if err := mock.ValidateFiles(mock.Options{}, files); err != nil {
		t.Errorf("extends among the files given: %v", err)
	}
	files = []mock.SourceFile{
		{Path: "team/base.yaml", Data: []byte("extends: default\ndescription: team base\nrate_limit: {requests: 0, window: 0s}\ncolour: red\n")},
		{Path: "other/child.yaml", Data: []byte("extends: base\ndescription: ''\nfaults: [{drop: true, truncate: true}]\n")},
		{Path: "other/Bad Name.yaml", Data: []byte("extends: default\ndescription: x\n")},
		{Path: "fx/reviews.yaml", Data: []byte("kind: reviews\nreviews: [{nm_id: -1, product_valuation: 0}]\n")},
	}
	err := mock.ValidateFiles(mock.Options{}, files)
	want := []string{
		"team/base.yaml:3:24: rate_limit.requests: must be at least 1, got 0",
		"team/base.yaml:3:35: rate_limit.window: must be from 1ms to 24h, got 0s",
		"team/base.yaml:4:1: colour: unknown field",
		`other/child.yaml:1:10: extends: scenario "base" has problems (in team/base.yaml)`,
		"other/child.yaml:2:14: description: required: one line saying what the scenario is for",
		"other/child.yaml:3:10: faults[0]: give at most one of error, drop and truncate",
		`other/Bad Name.yaml: a scenario is served by its file name, NAME.yaml, NAME of lower-case letters, digits, '-' and '_'; got "Bad Name.yaml"`,
		"fx/reviews.yaml:2:11: reviews[0].feedback_id: required",
		"fx/reviews.yaml:2:19: reviews[0].nm_id: required: a positive integer",
		"fx/reviews.yaml:2:42: reviews[0].product_valuation: must be 1 to 5, got 0",
	}
	if err == nil {
		t.Fatal("no problems found")
	}
	got := strings.Split(err.Error(), "\n")
	for _, w := range want {
		n := 0
		for _, g := range got {
			if g == w {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q reported %d times, want once; all:\n%v", w, n, err)
		}
	}
}
