package upstream

import (
	"context"
	"time"
)

// Clock tells the time and waits. Tests give the client a fake one, so
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
