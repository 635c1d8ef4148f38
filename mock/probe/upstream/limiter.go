package upstream

import (
	"context"
	"time"
)

// Clock tells the time and waits; tests give the client a fake one so
// that no test depends on the wall clock.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limiter spaces requests at least interval apart: at most 1/interval
// requests a second, with no burst (stricter than the upstream's bucket
// of 6, so a client never spends a shared account's burst). pause pushes
// the next slot later, for a 429's Retry-After. Not safe for concurrent
// use: the client sends one request at a time.
type limiter struct {
	clock    Clock
	interval time.Duration
	next     time.Time // the earliest moment the next request may start
}

func newLimiter(c Clock, perSecond float64) *limiter {
	return &limiter{clock: c, interval: time.Duration(float64(time.Second) / perSecond)}
}

// wait blocks until the next request may start and books that slot.
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := l.clock.Now()
	start := l.next
	if start.Before(now) {
		start = now
	}
	l.next = start.Add(l.interval)
	if d := start.Sub(now); d > 0 {
		return l.clock.Sleep(ctx, d)
	}
	return nil
}

// pause keeps every request from starting before until.
func (l *limiter) pause(until time.Time) {
	if until.After(l.next) {
		l.next = until
	}
}
