package mock_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// get sends a GET with headers to the handler.
func get(t testing.TB, h http.Handler, target string, header ...string) response {
	t.Helper()
	return do(t, h, http.MethodGet, target, "", header...)
}

func counts(t testing.TB, h http.Handler, header ...string) countsData {
	t.Helper()
	var c countsData
	decodeOK(t, "counts", get(t, h, "/api/v1/feedbacks?counts_only=1", header...), &c)
	return c
}

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
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
			if r := get(t, h, "/api/v1/feedbacks", "Authorization", "Bearer demo-token"); r.status != 200 {
				t.Errorf("with the token: %d", r.status)
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
			ts := httptest.NewServer(h)
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
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

func TestRateLimitWindow(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{Scenario: "rate-limited", Now: clock.now})
	for range 5 {
		get(t, h, "/api/v1/feedbacks?limit=1")
	}
	clock.add(7 * time.Second)
	r := get(t, h, "/api/v1/feedbacks?limit=1")
	if r.status != 429 || r.header.Get("Retry-After") != "3" {
		t.Errorf("7s into the window: %d, Retry-After %q; want 429, 3", r.status, r.header.Get("Retry-After"))
	}
	clock.add(3 * time.Second)
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.status != 200 {
		t.Errorf("in a new window: %d, want 200", r.status)
	}
}

// X-Mock-Scenario picks a scenario for one request; an unknown one is a 400.
func TestScenarioHeader(t *testing.T) {
	h := newServer(t, mock.Options{})
	if c := counts(t, h, "X-Mock-Scenario", "empty-shop"); c.Total != 0 {
		t.Errorf("empty-shop via header: total %d", c.Total)
	}
	if c := counts(t, h); c.Total != 1009 {
		t.Errorf("without the header: total %d", c.Total)
	}
	checkError(t, "unknown scenario", get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "nope"), 400, mock.CodeInvalidParameter, "X-Mock-Scenario")
	checkError(t, "bad session", get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "white space"), 400, mock.CodeInvalidParameter, "X-Mock-Session")
	checkError(t, "path escape", get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "../default"), 400, mock.CodeInvalidParameter, "X-Mock-Scenario")
}

// Parallel sessions never see each other's settings, counters or journal.
func TestSessionsAreIsolated(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "first-calls-fail"})
	var wg sync.WaitGroup
	var failures atomic.Int32
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid := fmt.Sprintf("s%d", i)
			hdr := []string{"X-Mock-Session", sid}
			for range 2 { // this scenario fails each session's first two calls
				if r := get(t, h, "/api/v1/settings/ai", hdr...); r.status != 500 {
					failures.Add(1)
				}
			}
			tone := fmt.Sprintf("tone-%d", i)
			r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"tone":"`+tone+`"}]}`,
				"Content-Type", "application/json", "X-Mock-Session", sid)
			if r.status != 200 {
				failures.Add(1)
				return
			}
			for range 20 {
				var s mock.Settings
				r := get(t, h, "/api/v1/settings/ai", hdr...)
				if r.status != 200 || decodeQuiet(r.body, &s) != nil || s.Feedback[1].Tone != tone {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d requests saw another session's state", n)
	}
	m := h
	for i := range 12 {
		sid := fmt.Sprintf("s%d", i)
		reqs := m.Requests(mock.JournalFilter{Session: sid})
		if len(reqs) != 23 {
			t.Errorf("session %s journal has %d entries, want 23", sid, len(reqs))
		}
		for _, e := range reqs {
			if e.Session != sid {
				t.Errorf("session %s journal holds an entry of %s", sid, e.Session)
			}
		}
	}
	get(t, h, "/api/v1/settings/ai") // the default session's two failures
	get(t, h, "/api/v1/settings/ai")
	if got := getSettings(t, h); got.Feedback[1].Tone == "" || strings.HasPrefix(got.Feedback[1].Tone, "tone-") {
		t.Errorf("the default session sees tone %q", got.Feedback[1].Tone)
	}
}
