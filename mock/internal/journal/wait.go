package journal

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// MaxWait is the longest a request may wait on the journal (wait=).
const MaxWait = 30 * time.Second

// MaxWaiters bounds the requests waiting on the journal at once, of all
// sessions together; one more is answered 503 with Retry-After.
const MaxWaiters = 256

// ErrTooManyWaiters refuses a wait past MaxWaiters.
var ErrTooManyWaiters = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
	Message: fmt.Sprintf("%d requests are already waiting on the journal; try again, or ask without wait", MaxWaiters)}

// Await returns once at least n entries in p's scope newer than its
// since match p, or with ctx's error when it ends first. It wakes on
// each new entry, never by polling: Record closes j.wake. Each wake
// looks only at the entries that came since the last look. Past
// MaxWaiters waiting at once, it answers ErrTooManyWaiters.
func (j *Journals) Await(ctx context.Context, p *Pattern, n int) error {
	seen, cursor, waiting := 0, p.since, false
	defer func() {
		if waiting {
			j.mu.Lock()
			j.waiting--
			j.mu.Unlock()
		}
	}()
	for {
		// Take the channel before looking: an entry recorded after this
		// closes it, and one recorded before is in the journal already
		// (Record holds j.mu until its entry is in).
		j.mu.Lock()
		if j.wake == nil {
			j.wake = make(chan struct{})
		}
		wake, upto := j.wake, j.seq
		j.mu.Unlock()
		sc := newScan() // each look is bounded
		recs, err := j.gather(p.scope, p, cursor, 0, sc)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.Seq <= upto && p.matches(r, sc) {
				seen++
			}
			if sc.over() {
				return ErrScanTooLarge
			}
		}
		if seen >= n {
			return nil
		}
		cursor = upto // later entries are counted on a later wake
		if !waiting {
			j.mu.Lock()
			if j.waiting >= MaxWaiters {
				j.mu.Unlock()
				return ErrTooManyWaiters
			}
			j.waiting++
			waiting = true
			j.mu.Unlock()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wakeWaiters tells the requests waiting on the journal that an entry
// came; the caller holds j.mu.
func (j *Journals) wakeWaiters() {
	if j.wake != nil {
		close(j.wake)
		j.wake = nil
	}
}

// Waiters is how many requests wait on the journal now.
func (j *Journals) Waiters() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.waiting
}
