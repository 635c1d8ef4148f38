package upstream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock moves only when something sleeps on it.
type fakeClock struct {
	mu    sync.Mutex // guards now and slept: servers read it from their goroutines
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slept = append(f.slept, d)
	f.now = f.now.Add(d)
	return ctx.Err()
}

func (f *fakeClock) sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.slept)
}

func TestRateSpacesRequests(t *testing.T) {
	clk := newFakeClock()
	c := NewClient("http://localhost", "", 2, 10, time.Second, nil)
	c.SetClock(clk)
	ctx := context.Background()
	for range 3 {
		if err := c.wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := clk.sleeps(), []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("sleeps %v, want %v", got, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.wait(cancelled); err == nil {
		t.Error("wait on a cancelled context: no error")
	}
}

// A 429 is waited out as Retry-After or X-Ratelimit-Retry say, within
// bounds; past the bound the request is given up, not waited for.
func TestRetryAfter429(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		method   string
		header   http.Header
		wantWait time.Duration
		giveUp   string // the error, when the request is given up
	}{
		{"Retry-After seconds", 429, "GET", http.Header{"Retry-After": {"2"}}, 2 * time.Second, ""},
		{"X-Ratelimit-Retry", 429, "GET", http.Header{"X-Ratelimit-Retry": {"1.5"}}, 1500 * time.Millisecond, ""},
		{"Retry-After date", 429, "GET", http.Header{"Retry-After": {"Sun, 15 Nov 2026 12:00:04 GMT"}}, 4 * time.Second, ""},
		{"no header", 429, "GET", http.Header{}, time.Second, ""},
		{"a PATCH too", 429, "PATCH", http.Header{"Retry-After": {"3"}}, 3 * time.Second, ""},
		{"too long", 429, "GET", http.Header{"Retry-After": {"120"}}, 0, "asks to wait 2m0s, more than the 30s"},
		{"503 to a GET", 503, "GET", http.Header{"Retry-After": {"5"}}, 5 * time.Second, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n++; n == 1 {
					for k, v := range tc.header {
						w.Header()[k] = v
					}
					w.WriteHeader(tc.status)
					return
				}
				w.Write([]byte(`{"success":true,"data":{}}`))
			}))
			defer srv.Close()
			clk := newFakeClock()
			c := NewClient(srv.URL, "", 1e6, 10, 5*time.Second, srv.Client())
			c.SetClock(clk)
			ex, err := c.Do(context.Background(), tc.method, "/x", nil)
			if tc.giveUp != "" {
				if err == nil || !strings.Contains(err.Error(), tc.giveUp) || c.sent != 1 {
					t.Errorf("err %v after %d requests, want one request and %q", err, c.sent, tc.giveUp)
				}
				return
			}
			if err != nil || ex.Status != 200 || c.sent != 2 {
				t.Fatalf("do: %v, status %d, %d requests", err, ex.Status, c.sent)
			}
			var waited time.Duration
			for _, d := range clk.sleeps() {
				waited += d
			}
			if waited < tc.wantWait || waited > tc.wantWait+time.Millisecond {
				t.Errorf("waited %s, want %s", waited, tc.wantWait)
			}
		})
	}
}

// A 503 to a PATCH is not sent again: it may have been applied.
func TestNoRetryOfWrites(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	clk := newFakeClock()
	c := NewClient(srv.URL, "", 1e6, 10, 5*time.Second, srv.Client())
	c.SetClock(clk)
	ex, err := c.Do(context.Background(), http.MethodPatch, "/x", []byte("{}"))
	if err != nil || ex.Status != 503 || n != 1 {
		t.Errorf("do: %v, %d requests, want the 503 after one", err, n)
	}
}

func TestTrimAnswer(t *testing.T) {
	got := Trim([]byte("ёёёёё\n\t ёё"), 5)
	if got != "ёё… (17 bytes in all)" {
		t.Errorf("Trim = %q", got)
	}
	if got := Trim([]byte("a\xffb"), 10); got != "a\uFFFDb" {
		t.Errorf("Trim of bad UTF-8 = %q", got)
	}
}

func TestAuthorization(t *testing.T) {
	for in, want := range map[string]string{"": "", "abc": "Bearer abc", " abc ": "Bearer abc", "Token abc": "Token abc"} {
		if got := authorization(in); got != want {
			t.Errorf("authorization(%q) = %q, want %q", in, got, want)
		}
	}
}
