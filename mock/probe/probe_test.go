package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// Against replymock itself, every rule holds: the probe and the mock
// read the contract the same way.
func TestReplymockHolds(t *testing.T) {
	for _, writes := range []bool{false, true} {
		t.Run(fmt.Sprintf("writes=%v", writes), func(t *testing.T) {
			s := newMock(t, mock.Options{})
			before := settingsOf(t, s)
			c := &counter{h: s}
			rep, err := run(t, serve(t, c), func(cfg *probe.Config) { cfg.AllowWrites = writes })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if want := probe.RuleCount(writes); len(rep.Results) != want {
				t.Errorf("%d results, want %d", len(rep.Results), want)
			}
			allHold(t, rep)
			if got := c.n.Load(); got != int64(rep.Requests) || got > probe.DefaultMaxRequests {
				t.Errorf("the server saw %d requests, the report says %d (budget %d)", got, rep.Requests, probe.DefaultMaxRequests)
			}
			if after := settingsOf(t, s); after != before {
				t.Errorf("settings changed:\nbefore %s\nafter  %s", before, after)
			}
			if t.Failed() {
				t.Log(table(rep))
			}
		})
	}
}

// A review whose answer moderation rejected keeps its answer_text and
// is unanswered again: the probe reads it so, as replymock serves it.
func TestReplymockHoldsWithRejectedAnswers(t *testing.T) {
	s := newMock(t, mock.Options{})
	rejected, sent, open := "rejected", "sent", "new"
	recs := []mock.SeedReview{
		{ProductValuation: 2, Text: "Крышка треснула", AnswerText: "Жаль, что так вышло", AnswerState: &rejected, State: &open},
		{ProductValuation: 1, Text: "Не пришёл", AnswerText: "Разберёмся", AnswerState: &rejected, State: &open},
		{ProductValuation: 5, Text: "Отлично", AnswerText: "Спасибо!", AnswerState: &sent},
	}
	if _, err := s.SeedReviews(mock.DefaultSession, "", "replace", recs); err != nil {
		t.Fatal(err)
	}
	rep, err := run(t, serve(t, s), nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	allHold(t, rep)
	if res := result(t, rep, "filter.answered"); !strings.Contains(res.Detail, "answered=1: 1, answered=0: 2") {
		t.Errorf("filter.answered: %s; want 1 answered and 2 unanswered", res.Detail)
	}
	if t.Failed() {
		t.Log(table(rep))
	}
}

// Other shipped scenarios: other data, no data, a token, a big shop. No
// rule differs; what cannot be checked says why.
func TestReplymockScenarios(t *testing.T) {
	for _, tc := range []struct {
		scenario   string
		token      string
		notChecked []string // rules that cannot be checked on this data
		detail     map[string]string
	}{
		{scenario: "en-shop", detail: map[string]string{"filter.search": "no Cyrillic word"}},
		{scenario: "all-unanswered"},
		{scenario: "unauthorized", token: "demo-token"},
		{scenario: "empty-shop", notChecked: []string{
			"shape.records", "list.order", "list.stable", "list.walk", "filter.answered", "filter.rating", "filter.nm_id",
			"filter.dates", "filter.search", "filter.combined", "counts.match-list", "counts.sum", "counts.params",
		}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			s := newMock(t, mock.Options{Scenario: tc.scenario})
			rep, err := run(t, serve(t, s), func(cfg *probe.Config) { cfg.Token, cfg.AllowWrites = tc.token, true })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, res := range rep.Results {
				want := probe.Holds
				for _, r := range tc.notChecked {
					if r == res.Rule {
						want = probe.NotChecked
					}
				}
				if res.Status != want {
					t.Errorf("%s: %s, want %s: %s", res.Rule, res.Status, want, res.Detail)
				}
				if d, ok := tc.detail[res.Rule]; ok && !strings.Contains(res.Detail, d) {
					t.Errorf("%s: detail %q, want it to say %q", res.Rule, res.Detail, d)
				}
				if res.Status == probe.NotChecked && !strings.Contains(res.Detail, "no reviews") {
					t.Errorf("%s: detail %q, want it to say the shop has no reviews", res.Rule, res.Detail)
				}
			}
			if t.Failed() {
				t.Log(table(rep))
			}
		})
	}
}

// However small the budget, the probe sends no more than it, and the
// settings are put back whenever it wrote.
func TestMaxRequestsNeverExceeded(t *testing.T) {
	for _, writes := range []bool{false, true} {
		for _, budget := range []int{1, 2, 4, 40, 100, 115} {
			t.Run(fmt.Sprintf("writes=%v/max=%d", writes, budget), func(t *testing.T) {
				t.Parallel()
				s := newMock(t, mock.Options{})
				before := settingsOf(t, s)
				c := &counter{h: s}
				rep, err := run(t, serve(t, c), func(cfg *probe.Config) { cfg.MaxRequests, cfg.AllowWrites = budget, writes })
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got := c.n.Load(); got > int64(budget) || got != int64(rep.Requests) {
					t.Errorf("the server saw %d requests, the report says %d; budget %d", got, rep.Requests, budget)
				}
				for _, res := range rep.Results {
					if res.Status == probe.Differs {
						t.Errorf("%s differs: %s", res.Rule, res.Detail)
					}
					if res.Status == probe.NotChecked && !strings.Contains(res.Detail, "budget") {
						t.Errorf("%s: not checked for another reason than the budget: %s", res.Rule, res.Detail)
					}
				}
				if after := settingsOf(t, s); after != before {
					t.Errorf("settings were not restored:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// A server that refuses every PATCH (403): the write rules cannot be
// checked, and there is nothing to restore.
func TestReadOnlyTarget(t *testing.T) {
	rep, err := run(t, serve(t, newMock(t, mock.Options{ReadOnly: true})), func(cfg *probe.Config) { cfg.AllowWrites = true })
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		want, detail := probe.Holds, ""
		switch res.Rule {
		case "writes.round-trip", "writes.unified", "writes.atomic":
			want, detail = probe.NotChecked, "answered 403 forbidden: the token may not change the settings"
		case "writes.restored":
			detail = "nothing to restore"
		}
		if res.Status != want || !strings.Contains(res.Detail, detail) {
			t.Errorf("%s: %s: %s; want %s: %s", res.Rule, res.Status, res.Detail, want, detail)
		}
	}
}

// A walk that would spend more than the budget allows walks a sample,
// and says so.
func TestWalkSample(t *testing.T) {
	rep, err := run(t, serve(t, newMock(t, mock.Options{})), func(cfg *probe.Config) { cfg.MaxRequests = 100 })
	if err != nil {
		t.Fatal(err)
	}
	res := result(t, rep, "list.walk")
	if res.Status != probe.Holds || !strings.Contains(res.Detail, "a sample") || !strings.Contains(res.Detail, "of 11 pages and the last one") {
		t.Errorf("list.walk: %s: %s", res.Status, res.Detail)
	}
	if rep.Requests > 100 {
		t.Errorf("%d requests, budget 100", rep.Requests)
	}
}

// Cancelling the run in the middle of the writes still restores the
// settings, and the run says it was interrupted.
func TestInterruptRestoresSettings(t *testing.T) {
	s := newMock(t, mock.Options{})
	before := settingsOf(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	patches := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r)
		// The cancel comes once the third PATCH is made: cancelled
		// before, the server could make it after the probe's restore,
		// on a machine slow enough.
		if r.Method == "PATCH" && r.URL.Path == "/api/v1/settings/ai" {
			if patches++; patches == 3 {
				cancel()
			}
		}
	})
	rep, err := probe.Run(ctx, probe.Config{Target: serve(t, h), Rate: fastRate, AllowWrites: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	checkReport(t, rep)
	if res := result(t, rep, "writes.restored"); res.Status != probe.Holds {
		t.Errorf("writes.restored: %s: %s", res.Status, res.Detail)
	}
	if res := result(t, rep, "writes.atomic"); res.Status != probe.NotChecked || !strings.Contains(res.Detail, "interrupted") {
		t.Errorf("writes.atomic: %s: %s, want not checked, interrupted", res.Status, res.Detail)
	}
	if after := settingsOf(t, s); after != before {
		t.Errorf("settings were not restored:\nbefore %s\nafter  %s", before, after)
	}
}

// The JSON and JUnit reports decode, and say what the table says.
func TestReportFormats(t *testing.T) {
	s := newMock(t, mock.Options{})
	rep, err := run(t, serve(t, overlappingPages(s)), nil)
	if err != nil {
		t.Fatal(err)
	}

	var b bytes.Buffer
	if err := rep.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Target   string `json:"target"`
		Requests int    `json:"requests"`
		Summary  struct {
			Holds, Differs, NotChecked int
		} `json:"summary"`
		Rules []struct {
			Rule     string           `json:"rule"`
			Status   string           `json:"status"`
			Detail   string           `json:"detail"`
			Evidence []probe.Evidence `json:"evidence"`
		} `json:"rules"`
	}
	var raw map[string]any
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, b.String())
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	if js.Target != rep.Target || js.Requests != rep.Requests || len(js.Rules) != len(rep.Results) {
		t.Errorf("JSON report: target %q, %d requests, %d rules; want %q, %d, %d", js.Target, js.Requests, len(js.Rules), rep.Target, rep.Requests, len(rep.Results))
	}
	sum := raw["summary"].(map[string]any)
	if sum["differs"] != 1.0 || sum["holds"] != float64(len(rep.Results)-1) || sum["could_not_check"] != 0.0 {
		t.Errorf("JSON summary %v", sum)
	}
	for i, r := range js.Rules {
		if r.Rule != rep.Results[i].Rule || r.Status != string(rep.Results[i].Status) || r.Detail != rep.Results[i].Detail {
			t.Errorf("JSON rule %d: %+v, want %+v", i, r, rep.Results[i])
		}
		if r.Rule == "list.walk" && (len(r.Evidence) == 0 || !strings.HasPrefix(r.Evidence[0].Request, "GET /feedbacks?")) {
			t.Errorf("JSON list.walk evidence %+v", r.Evidence)
		}
	}

	b.Reset()
	if err := rep.Write(&b, "junit"); err != nil {
		t.Fatal(err)
	}
	var ju struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &ju); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, b.String())
	}
	if ju.Tests != len(rep.Results) || ju.Failures != 1 || len(ju.Suites) != 1 || len(ju.Suites[0].Cases) != len(rep.Results) {
		t.Fatalf("JUnit report: tests %d, failures %d, suites %d\n%s", ju.Tests, ju.Failures, len(ju.Suites), b.String())
	}
	for _, c := range ju.Suites[0].Cases {
		failed := c.Failure != nil
		if failed != (c.Name == "list.walk") || c.Skipped != nil {
			t.Errorf("JUnit case %s: failure %v, skipped %v", c.Name, c.Failure, c.Skipped)
		}
		if failed && !strings.Contains(c.Failure.Text, "> GET /feedbacks?") {
			t.Errorf("JUnit failure of %s shows no request: %s", c.Name, c.Failure.Text)
		}
		if !strings.HasPrefix(c.Classname, "probe.") {
			t.Errorf("JUnit case %s: classname %q", c.Name, c.Classname)
		}
	}

	b.Reset()
	if err := rep.Write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	tab := b.String()
	for _, want := range []string{"RULE", "list.walk             differs", "> GET /feedbacks?limit=100&offset=", "1 differ"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	if err := rep.Write(&b, "yaml"); err == nil {
		t.Error(`Write(w, "yaml"): no error`)
	}
}

func TestMainCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in the usage error
	}{
		{"no target", nil, "--target is required"},
		{"bad target", []string{"--target", "ftp://x/api/v1"}, "want an http or https URL"},
		{"target with query", []string{"--target", "http://x/api/v1?a=1"}, "without a query"},
		{"bad format", []string{"--target", "http://x/api/v1", "--format", "xml"}, "--format must be"},
		{"zero rate", []string{"--target", "http://x/api/v1", "--rate", "0"}, "--rate must be"},
		{"NaN rate", []string{"--target", "http://x/api/v1", "--rate", "NaN"}, "--rate must be"},
		{"zero budget", []string{"--target", "http://x/api/v1", "--max-requests", "0"}, "--max-requests must be"},
		{"zero timeout", []string{"--target", "http://x/api/v1", "--timeout", "0s"}, "--timeout must be"},
		{"argument", []string{"--target", "http://x/api/v1", "extra"}, "takes no arguments"},
		{"unknown flag", []string{"--nope"}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := probe.Main(context.Background(), tc.args, &stdout, &stderr)
			var ue *probe.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Main(%q) = %v, want a *UsageError saying %q", tc.args, err, tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}

	t.Run("help", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		err := probe.Main(context.Background(), []string{"-h"}, &stdout, &stderr)
		var ue *probe.UsageError
		if !errors.Is(err, flag.ErrHelp) || !errors.As(err, &ue) {
			t.Errorf("Main(-h) = %v, want a *UsageError wrapping flag.ErrHelp", err)
		}
		for _, f := range []string{"--target", "-token TOKEN", "-format", "-rate", "-max-requests", "-timeout", "-allow-writes", "-allow-unchecked", "-quiet", "exit status:"} {
			if !strings.Contains(stdout.String(), f) {
				t.Errorf("the help on stdout does not mention %s:\n%s", f, stdout.String())
			}
		}
		if stderr.Len() > 0 {
			t.Errorf("help asked for, yet stderr: %q", stderr.String())
		}
	})

	fast := []string{"--rate", "1000000"}
	t.Run("holds", func(t *testing.T) {
		target := serve(t, newMock(t, mock.Options{}))
		var stdout, stderr bytes.Buffer
		if err := probe.Main(context.Background(), append([]string{"--target", target}, fast...), &stdout, &stderr); err != nil {
			t.Fatalf("Main: %v\n%s", err, stdout.String())
		}
		if !strings.Contains(stdout.String(), "22 rules: 22 hold, 0 differ") {
			t.Errorf("stdout:\n%s", stdout.String())
		}
		if !strings.Contains(stderr.String(), "budget: at most 400 requests") {
			t.Errorf("stderr does not announce the budget:\n%s", stderr.String())
		}
	})

	t.Run("quiet json differs", func(t *testing.T) {
		target := serve(t, countsDisagree(newMock(t, mock.Options{})))
		var stdout, stderr bytes.Buffer
		err := probe.Main(context.Background(), append([]string{"--target", target, "--quiet", "--format", "json"}, fast...), &stdout, &stderr)
		var de *probe.DiffersError
		if !errors.As(err, &de) || len(de.Rules) != 1 || de.Rules[0] != "counts.match-list" {
			t.Errorf("Main = %v, want a *DiffersError for counts.match-list", err)
		}
		if stderr.Len() > 0 {
			t.Errorf("--quiet, yet stderr: %q", stderr.String())
		}
		if !json.Valid(stdout.Bytes()) {
			t.Errorf("stdout is not JSON:\n%s", stdout.String())
		}
	})

	t.Run("token from the environment", func(t *testing.T) {
		target := serve(t, newMock(t, mock.Options{Scenario: "unauthorized"}))
		t.Setenv("REPLYMOCK_PROBE_TOKEN", "demo-token")
		var stdout, stderr bytes.Buffer
		if err := probe.Main(context.Background(), append([]string{"--target", target, "--quiet"}, fast...), &stdout, &stderr); err != nil {
			t.Errorf("Main: %v", err)
		}
	})

	t.Run("wrong token", func(t *testing.T) {
		c := &counter{h: newMock(t, mock.Options{Scenario: "unauthorized"})}
		target := serve(t, c)
		var stdout, stderr bytes.Buffer
		err := probe.Main(context.Background(), append([]string{"--target", target, "--token", "nope", "--quiet"}, fast...), &stdout, &stderr)
		var ae *probe.AuthError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "refused the token") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Main = %v, want one line: an *AuthError saying the token was refused", err)
		}
		if stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("output beside the error:\nstdout %s\nstderr %s", stdout.String(), stderr.String())
		}
		if n := c.n.Load(); n != 1 {
			t.Errorf("%d requests sent after a 401, want 1", n)
		}
	})

	t.Run("not this API", func(t *testing.T) {
		target := serve(t, htmlSite())
		var stdout, stderr bytes.Buffer
		err := probe.Main(context.Background(), append([]string{"--target", target, "--quiet"}, fast...), &stdout, &stderr)
		var de *probe.DiffersError
		var ue *probe.UsageError
		if err == nil || errors.As(err, &de) || errors.As(err, &ue) || !strings.Contains(err.Error(), "nothing was checked") {
			t.Errorf("Main = %v, want an error saying nothing was checked", err)
		}
		if !strings.Contains(stdout.String(), "could not check") {
			t.Errorf("stdout:\n%s", stdout.String())
		}
	})
}
