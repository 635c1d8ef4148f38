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
// sessions together.
const MaxWaiters = 256

// ErrTooManyWaiters refuses a wait past MaxWaiters.
var ErrTooManyWaiters = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
	Message: fmt.Sprintf("%d requests are already waiting on the journal; try again, or ask without wait", MaxWaiters)}

// MaxClientWaiters bounds the requests one client (a remote address)
// waits with at once, so that one client cannot take every place of
// MaxWaiters. A session is any name a request gives, so a bound per
// session would bind nothing.
const MaxClientWaiters = MaxWaiters / 4

// ErrClientWaiters refuses a client's wait past MaxClientWaiters.
var ErrClientWaiters = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
	Message: fmt.Sprintf("%d requests from this client are already waiting on the journal; try again once one ends, or ask without wait", MaxClientWaiters)}

// Await returns once at least n entries match p, or with ctx's error.
// Each new entry wakes it to look at the entries that came since.
// client names who waits, for MaxClientWaiters; "" is code in this
// process, bound only by MaxWaiters.
func (j *Journals) Await(ctx context.Context, client string, p *Pattern, n int) error {
	seen, cursor, waiting := 0, p.since, false
	defer func() {
		if waiting {
			j.leave(client)
		}
	}()
	for {
		// Take the channel before looking: an entry recorded after this
		// closes it, and one recorded before is in the journal already.
		j.mu.Lock()
		if j.wake == nil {
			j.wake = make(chan struct{})
		}
		wake, upto := j.wake, j.seq
		j.mu.Unlock()
		if j.shared != nil { // the fleet's numbering, before looking
			var err error
			if upto, err = j.shared.Seq(ctx); err != nil {
				return err
			}
		}
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
			if err := j.enter(client); err != nil {
				return err
			}
			waiting = true
		}
		if err := j.sleep(ctx, wake, upto); err != nil {
			return err
		}
	}
}

// enter counts a request of client as waiting, within MaxWaiters and
// MaxClientWaiters.
func (j *Journals) enter(client string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.waiting >= MaxWaiters:
		return ErrTooManyWaiters
	case client != "" && j.clients[client] >= MaxClientWaiters:
		return ErrClientWaiters
	}
	j.waiting++
	if client != "" {
		j.clients[client]++
	}
	return nil
}

// leave counts a request of client as no longer waiting.
func (j *Journals) leave(client string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.waiting--
	if client == "" {
		return
	}
	if j.clients[client]--; j.clients[client] == 0 {
		delete(j.clients, client)
	}
}

// sleep returns once an entry may have come, or with ctx's error. On a
// shared journal it also asks every sharedPoll whether another replica
// appended past upto.
func (j *Journals) sleep(ctx context.Context, wake <-chan struct{}, upto int64) error {
	var tick <-chan time.Time
	if j.shared != nil {
		t := time.NewTicker(sharedPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-wake:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			if seq, err := j.shared.Seq(ctx); err != nil || seq > upto {
				return err
			}
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
