package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// fakeClock moves only when something sleeps on it.
type fakeClock struct {
	mu  sync.Mutex // guards now: servers read it from their goroutines
	now time.Time
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
	f.now = f.now.Add(d)
	return ctx.Err()
}

// A whole run against replymock on the fake clock: no two requests
// reach the server closer than 1/rate apart.
func TestRunRespectsRate(t *testing.T) {
	s, err := mock.New(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	var mu sync.Mutex // guards times
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, clk.Now())
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rep, err := Run(context.Background(), Config{Target: srv.URL + "/api/v1", Rate: 3, AllowWrites: true, clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(Holds) != len(rep.Results) {
		t.Errorf("%d of %d rules hold", rep.Count(Holds), len(rep.Results))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(times) != rep.Requests {
		t.Errorf("%d requests seen, %d reported", len(times), rep.Requests)
	}
	min := time.Second / 3
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < min {
			t.Fatalf("requests %d and %d are %s apart, less than 1/3 s", i-1, i, gap)
		}
	}
	if want := time.Duration(rep.Requests-1) * min; rep.Duration < want {
		t.Errorf("the run took %s on the clock, want at least %s", rep.Duration, want)
	}
}
