package shared

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/replymock/replymock/mock/internal/session"
)

// Without a Keeper nothing is marked and Sync returns at once; with one,
// Sync hands it what was marked since the last keeping, once, and a
// failed keeping leaves its changes marked for the next.
func TestChangesKeptOnce(t *testing.T) {
	var c changes
	c.session("a")
	if err := c.sync(context.Background(), session.All); err != nil || len(c.sessions) != 0 || c.marked != 0 {
		t.Fatalf("without a keeper: %v, %d marked", err, c.marked)
	}
	var calls [][]string
	var servers []bool
	fail := errors.New("disk full")
	var failNext bool
	c.keep = func(_ context.Context, ids []string, server bool) error {
		calls, servers = append(calls, ids), append(servers, server)
		if failNext {
			failNext = false
			return fail
		}
		return nil
	}
	c.session("b")
	c.session("a")
	c.session("b")
	c.mark(true)
	if err := c.sync(context.Background(), session.All); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || !slices.Equal(calls[0], []string{"a", "b"}) || !servers[0] {
		t.Fatalf("kept %v %v, want [a b] and the server once", calls, servers)
	}
	if err := c.sync(context.Background(), session.All); err != nil || len(calls) != 1 {
		t.Fatalf("nothing changed, yet kept again: %v %v", calls, err)
	}
	failNext = true
	c.session("c")
	if err := c.sync(context.Background(), session.All); !errors.Is(err, fail) {
		t.Fatalf("a failed keeping: %v", err)
	}
	if err := c.sync(context.Background(), session.All); err != nil || len(calls) != 3 || !slices.Equal(calls[2], []string{"c"}) {
		t.Fatalf("what a failed keeping left is kept by the next: %v %v", calls, err)
	}
}

// Writes that sync together are kept together: while one keeping runs,
// the others wait for it and then one more keeping takes all their
// changes; each Sync returns only after a keeping that began after its
// change.
func TestChangesGroupCommit(t *testing.T) {
	var c changes
	release := make(chan struct{})
	var mu sync.Mutex
	var calls [][]string
	kept := map[string]bool{}
	c.keep = func(_ context.Context, ids []string, _ bool) error {
		mu.Lock()
		first := len(calls) == 0
		calls = append(calls, ids)
		mu.Unlock()
		if first {
			<-release
		}
		mu.Lock()
		for _, id := range ids {
			kept[id] = true
		}
		mu.Unlock()
		return nil
	}
	c.session("first")
	firstDone := make(chan error)
	go func() { firstDone <- c.sync(context.Background(), session.All) }()
	untilRunning(&c) // the first keeping is under way
	const writers = 20
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("w%02d", i)
			c.session(id)
			if err := c.sync(context.Background(), session.All); err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !kept[id] {
				t.Errorf("%s: Sync returned before its change was kept", id)
			}
		}()
	}
	for { // every writer has marked its change and waits
		c.mu.Lock()
		n := len(c.sessions)
		c.mu.Unlock()
		if n == writers {
			break
		}
		runtime.Gosched()
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if len(calls) != 2 || len(calls[1]) != writers {
		t.Errorf("%d keepings (%v); want the first, then one with all %d writers' changes", len(calls), calls, writers)
	}
}

// A Keeper that panics fails that keeping, not every one after it.
func TestChangesKeeperPanic(t *testing.T) {
	var c changes
	panicNext := true
	c.keep = func(context.Context, []string, bool) error {
		if panicNext {
			panicNext = false
			panic("disk on fire")
		}
		return nil
	}
	c.session("a")
	if err := c.sync(context.Background(), session.All); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("a panicking keeping: %v", err)
	}
	if c.running != nil {
		t.Fatal("the keeping that panicked is still running")
	}
	if err := c.sync(context.Background(), session.All); err != nil || len(c.sessions) != 0 {
		t.Fatalf("the next keeping: %v, %d left marked", err, len(c.sessions))
	}
}

// A session whose file could not be written fails only the writes of
// that session (and those of every session), not the others kept in
// the same keeping; it stays marked, and once kept, its writes succeed.
func TestChangesUnkeptFailsItsOwn(t *testing.T) {
	var c changes
	release := make(chan struct{})
	broken := map[string]bool{"bad": true}
	var mu sync.Mutex
	calls := 0
	c.keep = func(_ context.Context, ids []string, _ bool) error {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			<-release
		}
		un := &Unkept{Sessions: map[string]error{}}
		for _, id := range ids {
			if broken[id] {
				un.Sessions[id] = errors.New("is a directory")
			}
		}
		if len(un.Sessions) == 0 {
			return nil
		}
		return un
	}
	c.session("first")
	firstDone := make(chan error)
	go func() { firstDone <- c.sync(context.Background(), "first") }()
	untilRunning(&c) // the first keeping is under way
	// good and bad are marked while the first keeping runs, so one
	// keeping takes them both.
	results := map[string]chan error{"good": make(chan error, 1), "bad": make(chan error, 1), session.All: make(chan error, 1)}
	c.session("good")
	c.session("bad")
	for sid, ch := range results {
		go func() { ch <- c.sync(context.Background(), sid) }()
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if err := <-results["good"]; err != nil {
		t.Errorf("good, kept beside bad: %v", err)
	}
	if err := <-results["bad"]; err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("bad, not kept: %v", err)
	}
	if err := <-results[session.All]; err == nil || !strings.Contains(err.Error(), `session "bad"`) {
		t.Errorf("every session's write, with bad not kept: %v", err)
	}
	c.session("good")
	if err := c.sync(context.Background(), "good"); err != nil {
		t.Errorf("good again, bad retried beside it: %v", err)
	}
	c.mu.Lock()
	_, marked := c.sessions["bad"]
	c.mu.Unlock()
	if !marked {
		t.Error("bad is no longer marked, though it was never kept")
	}
	delete(broken, "bad")
	c.session("other")
	if err := c.sync(context.Background(), session.All); err != nil {
		t.Errorf("bad kept at last: %v", err)
	}
}

// untilRunning waits until a keeping of c is under way.
func untilRunning(c *changes) {
	for {
		c.mu.Lock()
		running := c.running != nil
		c.mu.Unlock()
		if running {
			return
		}
		runtime.Gosched()
	}
}

// A keeping that refuses a session's change rolls the session back, so
// a write marked before the refusal was noted fails too, though the
// keeping that takes it succeeds (nothing left to keep); a write
// marked after succeeds.
func TestRefusedKeepingFailsWritesItUndid(t *testing.T) {
	var c changes
	started, release := make(chan struct{}), make(chan struct{})
	refused := errors.New("the state folder is full")
	calls := 0
	c.keep = func(_ context.Context, ids []string, _ bool) error {
		if calls++; calls == 1 {
			close(started)
			<-release
			return &Unkept{Sessions: map[string]error{"s": refused}}
		}
		return nil
	}
	c.session("s")
	first := make(chan error)
	go func() { first <- c.sync(context.Background(), "s") }()
	<-started
	c.session("s") // a second write, made before the refusal rolled it back
	second := make(chan error)
	go func() { second <- c.sync(context.Background(), "s") }()
	for waiting := 0; waiting < 2; runtime.Gosched() {
		c.mu.Lock()
		waiting = c.waiting
		c.mu.Unlock()
	}
	close(release)
	if err := <-first; !errors.Is(err, refused) {
		t.Errorf("the refused write: %v", err)
	}
	if err := <-second; !errors.Is(err, refused) {
		t.Errorf("a write rolled back with it: %v, want the refusal", err)
	}
	c.session("s")
	if err := c.sync(context.Background(), "s"); err != nil || calls < 2 {
		t.Errorf("a write after the refusal: %v (%d keepings)", err, calls)
	}
	if c.undone != nil {
		t.Errorf("with no sync waiting, the refusals are still held: %v", c.undone)
	}
}
