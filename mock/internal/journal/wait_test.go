package journal

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// waiter is an Await running in a goroutine of its own.
type waiter struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

func await(j *Journals, p *Pattern, n int) *waiter { return awaitFrom(j, "", p, n) }

// awaitFrom is await for a client.
func awaitFrom(j *Journals, client string, p *Pattern, n int) *waiter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &waiter{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(w.done)
		w.err = j.Await(ctx, client, p, n)
	}()
	return w
}

// finished reports whether the waiter has returned, without waiting.
func (w *waiter) finished() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// wait returns the waiter's error once it returns; the test fails if it
// takes more than 10 s.
func (w *waiter) wait(t *testing.T, what string) error {
	t.Helper()
	select {
	case <-w.done:
		return w.err
	case <-time.After(10 * time.Second):
		w.cancel()
		t.Fatalf("%s: not returned after 10 s", what)
		return nil
	}
}

// eventually polls cond until it holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// rearmed reports whether a waiter has taken a wake channel since the
// last Record closed it.
func rearmed(j *Journals) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.wake != nil
}

// lookedOn returns once the one waiter has looked at every entry
// recorded so far and gone on waiting, or has returned. A waiter takes
// its channel before it looks; so it is taken again after a Record
// closed it (rearmed), the waiter went on from its look before that.
// Two entries no one waits for, each waited for in turn, make sure.
func lookedOn(t *testing.T, j *Journals, w *waiter) {
	t.Helper()
	for range 2 {
		j.Record(j.Open("noise"), get("/noise", ""))
		eventually(t, "the waiter looked", func() bool { return rearmed(j) || w.finished() })
	}
}

func get(path, query string) Record {
	return Record{Entry: Entry{Method: "GET", Path: path, Query: query}}
}

// A waiter returns once a matching entry comes, not for one that does
// not match (another path, another value, another session, or one
// before its since), each of which it looked at.
func TestAwaitWakesOnMatch(t *testing.T) {
	j := New(DefaultSize, 1<<30, 1000)
	ss := newSessions(j)
	j.Record(ss.key("lp"), get("/api/v1/feedbacks", "answered=0")) // seq 1: before since
	p := mustCompile(t, Filter{Session: "lp", Since: 1, Path: "/api/v1/feedbacks", Query: map[string]string{"answered": "0"}})
	w := await(j, p, 1)
	eventually(t, "the waiter waits", func() bool { return j.Waiters() == 1 })
	for _, r := range []struct{ sid, path, query string }{
		{"lp", "/api/v1/settings/ai", ""},            // another path
		{"lp", "/api/v1/feedbacks", "answered=1"},    // another value
		{"other", "/api/v1/feedbacks", "answered=0"}, // another session
	} {
		j.Record(ss.key(r.sid), get(r.path, r.query))
		lookedOn(t, j, w)
		if w.finished() {
			t.Fatalf("returned for %s %s?%s, which does not match: %v", r.sid, r.path, r.query, w.err)
		}
	}
	j.Record(ss.key("lp"), get("/api/v1/feedbacks", "answered=0"))
	if err := w.wait(t, "await"); err != nil {
		t.Errorf("after a match: %v", err)
	}
	eventually(t, "the waiter is gone", func() bool { return j.Waiters() == 0 })

	// A match already there returns at once, taking no place.
	if err := await(j, mustCompile(t, Filter{Session: "lp", Path: "/api/v1/feedbacks"}), 2).wait(t, "await"); err != nil {
		t.Errorf("with matches already there: %v", err)
	}
}

// Waiting for n entries, a waiter counts the matches across its wakes:
// one of two does not end it.
func TestAwaitCountsAcrossWakes(t *testing.T) {
	j := New(DefaultSize, 1<<30, 1000)
	k := j.Open("vw")
	w := await(j, mustCompile(t, Filter{Session: "vw", Method: "GET"}), 2)
	eventually(t, "the waiter waits", func() bool { return j.Waiters() == 1 })
	j.Record(k, get("/api/v1/feedbacks", ""))
	lookedOn(t, j, w)
	if w.finished() {
		t.Fatalf("returned after one of two: %v", w.err)
	}
	j.Record(k, get("/api/v1/settings/ai", ""))
	if err := w.wait(t, "await"); err != nil {
		t.Errorf("after two: %v", err)
	}
	if v, err := j.Verify(mustCompile(t, Filter{Session: "vw", Method: "GET"}), AtLeast(2)); err != nil || !v.OK || fmt.Sprint(v.Seqs) != "[1 4]" {
		t.Errorf("verify: %+v, %v", v, err)
	}
}

// A waiter whose context ends frees its place; past MaxWaiters waiting,
// one more is refused at once; once all are gone no place is held, and
// the next Record closes the wake channel they left.
func TestAwaitCapAndCancel(t *testing.T) {
	j := New(DefaultSize, 1<<30, 1000)
	k := j.Open("w0")
	nothing := mustCompile(t, Filter{Path: "/never"})
	for round := range 3 {
		var ws []*waiter
		for range MaxWaiters {
			ws = append(ws, await(j, nothing, 1))
		}
		eventually(t, "all wait", func() bool { return j.Waiters() == MaxWaiters })
		if err := await(j, nothing, 1).wait(t, "one too many"); err != ErrTooManyWaiters {
			t.Errorf("round %d: past the cap: %v, want ErrTooManyWaiters", round, err)
		}
		if err := await(j, nothing, 0).wait(t, "nothing to wait for"); err != nil {
			t.Errorf("round %d: waiting for none past the cap: %v", round, err)
		}
		ws[0].cancel()
		if err := ws[0].wait(t, "cancelled"); err != context.Canceled {
			t.Errorf("round %d: cancelled: %v", round, err)
		}
		eventually(t, "a place is free", func() bool { return j.Waiters() == MaxWaiters-1 })
		last := await(j, nothing, 1)
		eventually(t, "the freed place is taken", func() bool { return j.Waiters() == MaxWaiters })
		for _, w := range append(ws[1:], last) {
			w.cancel()
		}
		for _, w := range append(ws, last) {
			w.wait(t, "cancelled")
		}
		if n := j.Waiters(); n != 0 {
			t.Fatalf("round %d: %d waiters left after every one left", round, n)
		}
	}
	j.mu.Lock()
	wake := j.wake
	j.mu.Unlock()
	if wake == nil {
		t.Fatal("the waiters left no wake channel")
	}
	j.Record(k, get("/api/v1/feedbacks", ""))
	select {
	case <-wake:
	default:
		t.Error("a record left the wake channel open")
	}
}

// Recorders and waiters in many sessions at once: each waiter gets its
// entry, whatever the interleaving (run with -race).
func TestAwaitConcurrent(t *testing.T) {
	j := New(DefaultSize, 1<<30, 10_000)
	ss := newSessions(j)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			f := Filter{Session: fmt.Sprintf("c%d", i%5), Query: map[string]string{"n": fmt.Sprint(i)}}
			if i%2 == 0 {
				f.Session = ""
			}
			p := mustCompile(t, f)
			if err := j.Await(ctx, "", p, 1); err != nil {
				errs <- fmt.Errorf("waiter %d: %v", i, err)
				return
			}
			if got := j.Entries(p, 0); len(got) != 1 || got[0].Query != fmt.Sprintf("n=%d", i) {
				errs <- fmt.Errorf("waiter %d: %d entries", i, len(got))
			}
		})
		wg.Go(func() {
			for k := range 5 { // noise first, then the entry waited for
				j.Record(ss.key(fmt.Sprintf("c%d", (i+k)%5)), get("/api/v1/feedbacks", fmt.Sprintf("noise=%d", k)))
			}
			j.Record(ss.key(fmt.Sprintf("c%d", i%5)), get("/api/v1/feedbacks", fmt.Sprintf("n=%d", i)))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := j.Waiters(); n != 0 {
		t.Errorf("%d waiters left", n)
	}
}

// One client waits with at most MaxClientWaiters at once: past them it
// is refused, while another client, and code in this process, still
// find a place; one of its waits ending frees one for it.
func TestAwaitPerClient(t *testing.T) {
	j := New(DefaultSize, 1<<30, 1000)
	nothing := mustCompile(t, Filter{Path: "/never"})
	var ws []*waiter
	for range MaxClientWaiters {
		ws = append(ws, awaitFrom(j, "192.0.2.7", nothing, 1))
	}
	eventually(t, "the client's waits all wait", func() bool { return j.clientWaiters("192.0.2.7") == MaxClientWaiters })
	if err := awaitFrom(j, "192.0.2.7", nothing, 1).wait(t, "one too many"); err != ErrClientWaiters {
		t.Errorf("the client past its bound: %v, want ErrClientWaiters", err)
	}
	other, local := awaitFrom(j, "192.0.2.8", nothing, 1), await(j, nothing, 1)
	eventually(t, "another client and this process wait", func() bool { return j.Waiters() == MaxClientWaiters+2 })
	ws[0].cancel()
	ws[0].wait(t, "cancelled")
	eventually(t, "a place is free", func() bool { return j.clientWaiters("192.0.2.7") == MaxClientWaiters-1 })
	ws[0] = awaitFrom(j, "192.0.2.7", nothing, 1)
	eventually(t, "the freed place is taken", func() bool { return j.clientWaiters("192.0.2.7") == MaxClientWaiters })
	for _, w := range append(ws, other, local) {
		w.cancel()
		w.wait(t, "cancelled")
	}
	j.mu.Lock()
	left := len(j.clients)
	j.mu.Unlock()
	if n := j.Waiters(); n != 0 || left != 0 {
		t.Errorf("%d waiters and %d clients left after every one left", n, left)
	}
}
