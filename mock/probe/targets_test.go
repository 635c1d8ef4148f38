package probe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// Targets that are not this API, or not answering as one: every rule is
// "could not check" with the same one-line diagnosis, after the first
// two requests; nothing panics.
func TestTargetsThatAreNotTheAPI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.Handler
		target  func(base string) string // from the server's /api/v1 URL
		timeout time.Duration
		want    string
	}{
		{name: "a web site", handler: htmlSite(), want: "answered HTML (text/html), not JSON"},
		{name: "malformed JSON", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"success":true,"data":{"feedbacks":[{"id":1,`)
		}), want: "the answer is not valid JSON (it ends after"},
		{name: "JSON that is not the envelope", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[1,2,3]`)
		}), want: "the answer is an array, not a JSON object"},
		{name: "a redirect to a login page", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/login", http.StatusFound)
		}), want: `redirected (302) to "/login"`},
		{name: "hanging", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}), timeout: 50 * time.Millisecond, want: "no answer within 50ms"},
		{name: "the base without /api/v1", handler: newMock(t, mock.Options{}), target: func(base string) string {
			return strings.TrimSuffix(base, "/api/v1")
		}, want: "answered 404 not_found, want 200"},
		{name: "answers cut short", handler: newMock(t, mock.Options{Scenario: "broken-json"}), want: "was cut short"},
		{name: "down", handler: newMock(t, mock.Options{Scenario: "down"}), want: "the target did not answer: GET /settings/ai and /feedbacks: answered 503 service_unavailable"},
		{name: "connections dropped", handler: newMock(t, mock.Options{Scenario: "connection-drops"}), want: "the target did not answer: GET /settings/ai and /feedbacks: the connection closed with no answer"},
		{name: "nobody listening", target: func(string) string { return closedPort(t) + "/api/v1" }, want: "cannot connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := ""
			var c *counter
			if tc.handler != nil {
				c = &counter{h: tc.handler}
				target = serve(t, c)
			}
			if tc.target != nil {
				target = tc.target(target)
			}
			rep, err := run(t, target, func(cfg *probe.Config) { cfg.Timeout, cfg.AllowWrites = tc.timeout, true })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !strings.Contains(rep.Aborted, tc.want) {
				t.Errorf("Aborted = %q, want it to say %q", rep.Aborted, tc.want)
			}
			for _, res := range rep.Results {
				if res.Status != probe.NotChecked || res.Detail != rep.Aborted {
					t.Errorf("%s: %s: %s", res.Rule, res.Status, res.Detail)
				}
			}
			if c != nil && c.n.Load() > 2 {
				t.Errorf("%d requests, want at most 2 for a target that is not the API", c.n.Load())
			}
		})
	}
}

// closedPort is the URL of a loopback port nobody listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// A 401 stops the run at the first request, with one message.
func TestUnauthorizedStops(t *testing.T) {
	for _, token := range []string{"", "wrong"} {
		c := &counter{h: newMock(t, mock.Options{Scenario: "unauthorized"})}
		_, err := run(t, serve(t, c), func(cfg *probe.Config) { cfg.Token = token })
		var ae *probe.AuthError
		if !errors.As(err, &ae) || ae.HasToken != (token != "") || ae.Request != "GET /settings/ai" {
			t.Errorf("token %q: Run = %#v, want an *AuthError for GET /settings/ai", token, err)
		}
		if n := c.n.Load(); n != 1 {
			t.Errorf("token %q: %d requests, want 1", token, n)
		}
	}
}

// A server that answers the settings but not the list: each rule that
// needs the list says why in one line; the others are checked.
func TestTargetWithoutTheList(t *testing.T) {
	s := newMock(t, mock.Options{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/feedbacks" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "<html><body><h1>404 Not Found</h1><hr>nginx</body></html>")
			return
		}
		s.ServeHTTP(w, r)
	})
	rep, err := run(t, serve(t, h), nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Aborted != "" {
		t.Errorf("Aborted = %q, want the run to go on", rep.Aborted)
	}
	got := statuses(rep)
	if got["shape.settings"] != probe.Holds || got["errors.unknown-path"] != probe.Holds {
		t.Errorf("rules that need no list: %v", got)
	}
	res := result(t, rep, "filter.rating")
	if res.Status != probe.NotChecked || !strings.Contains(res.Detail, "GET /feedbacks?limit=100: answered 404 with HTML, want 200") {
		t.Errorf("filter.rating: %s: %s", res.Status, res.Detail)
	}
	if t.Failed() {
		t.Log(table(rep))
	}
}

// A 429 is waited out (here it asks for no wait) and retried; the
// retries count against the budget, and every rule still holds.
func TestRateLimitedRetries(t *testing.T) {
	s := newMock(t, mock.Options{})
	n := 0
	h := &counter{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n++; n%4 == 0 {
			w.Header().Set("X-Ratelimit-Retry", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		s.ServeHTTP(w, r)
	})}
	rep, err := run(t, serve(t, h), nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	allHold(t, rep)
	if got := h.n.Load(); got != int64(rep.Requests) {
		t.Errorf("the server saw %d requests, the report says %d", got, rep.Requests)
	}
}

// The report of a target that differs shows the request and the answer.
func TestEvidence(t *testing.T) {
	rep, err := run(t, serve(t, limit500(newMock(t, mock.Options{}))), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := result(t, rep, "list.limit-bounds")
	if len(res.Evidence) != 1 {
		t.Fatalf("evidence %+v", res.Evidence)
	}
	ev := res.Evidence[0]
	if ev.Request != "GET /feedbacks?limit=101" || ev.Status != 200 || !strings.HasPrefix(ev.Answer, `{"data":{"feedbacks":[{`) || !strings.HasSuffix(ev.Answer, "bytes in all)") {
		t.Errorf("evidence %+v", ev)
	}
}

// A target whose answers are replymock's with random values swapped for
// values of other types, some cut short: the probe reports, never panics.
func TestChaosTarget(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			s := newMock(t, mock.Options{})
			rng := rand.New(rand.NewPCG(seed, 42))
			var mu sync.Mutex // guards rng
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, r)
				var v any
				dec := json.NewDecoder(rec.Body)
				dec.UseNumber()
				if dec.Decode(&v) != nil {
					copyAnswer(w, rec)
					return
				}
				mu.Lock()
				v = mutate(rng, v, 40*int(seed+1)*int(seed+1)*int(seed+1))
				cut := rng.IntN(20) == 0
				mu.Unlock()
				b, _ := json.Marshal(v)
				if cut {
					b = b[:len(b)/2]
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(rec.Code)
				w.Write(b)
			})
			rep, err := run(t, serve(t, h), func(cfg *probe.Config) { cfg.MaxRequests, cfg.AllowWrites = 150, true })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, res := range rep.Results {
				if strings.Contains(res.Detail, "a bug") {
					t.Errorf("%s: %s", res.Rule, res.Detail)
				}
			}
			t.Logf("%d hold, %d differ, %d not checked", rep.Count(probe.Holds), rep.Count(probe.Differs), rep.Count(probe.NotChecked))
		})
	}
}

// mutate swaps, one time in n, a value in v for one of another type.
func mutate(rng *rand.Rand, v any, n int) any {
	if rng.IntN(n) == 0 {
		others := []any{nil, "x", json.Number("-1"), json.Number("1.5"), []any{}, map[string]any{}, true}
		return others[rng.IntN(len(others))]
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = mutate(rng, x, n)
		}
	case []any:
		for i, x := range v {
			v[i] = mutate(rng, x, n)
		}
	}
	return v
}
