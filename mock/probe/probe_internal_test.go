package probe

import (
	"context"
	"errors"
	"fmt"
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

// The exit status of every kind of run: a rule that differs wins over
// all else; --allow-unchecked makes rules left unchecked a 0 only when
// the run went through and one rule holds, never an interrupted, an
// aborted or an empty one.
func TestVerdict(t *testing.T) {
	report := func(statuses ...Status) *Report {
		rep := &Report{}
		for i, s := range statuses {
			rep.Results = append(rep.Results, Result{Rule: fmt.Sprintf("r%d", i), Status: s})
		}
		return rep
	}
	aborted := report(NotChecked)
	aborted.Aborted = "not this API"
	interrupted := context.Canceled
	for _, c := range []struct {
		name  string
		rep   *Report
		err   error
		allow bool
		want  int // 0: nil
	}{
		{"every rule holds", report(Holds, Holds), nil, false, 0},
		{"one differs", report(Holds, Differs), nil, false, ExitDiffers},
		{"one differs, one unchecked, allowed", report(Differs, NotChecked), nil, true, ExitDiffers},
		{"one differs, interrupted", report(Differs, NotChecked), interrupted, true, ExitDiffers},
		{"one unchecked", report(Holds, NotChecked), nil, false, ExitUnchecked},
		{"one unchecked, allowed", report(Holds, NotChecked), nil, true, 0},
		{"none holds, allowed", report(NotChecked, NotChecked), nil, true, ExitUnchecked},
		{"interrupted, allowed", report(Holds, NotChecked), interrupted, true, ExitUnchecked},
		{"interrupted after every rule held", report(Holds), interrupted, false, ExitUnchecked},
		{"aborted, allowed", aborted, nil, true, ExitUnchecked},
	} {
		err := verdict(c.rep, c.err, c.allow)
		got := 0
		if err != nil {
			var coded interface{ ExitCode() int }
			if !errors.As(err, &coded) {
				t.Errorf("%s: %v has no exit status", c.name, err)
				continue
			}
			got = coded.ExitCode()
		}
		if got != c.want {
			t.Errorf("%s: exit status %d (%v), want %d", c.name, got, err, c.want)
		}
	}
}
