package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/session"
)

// TestLockAllWaitsWithoutReadingTheKeyspace: every session's lock waits
// for the sessions' writes under way, and asks whether any is held in
// one step whatever else Redis keeps: no SCAN (nor KEYS), however many
// keys.
func TestLockAllWaitsWithoutReadingTheKeyspace(t *testing.T) {
	_, s := open(t)
	ctx := context.Background()
	for i := range 20 { // other keys: the sessions' documents, the journal's, ...
		cmd := s.client.B().Mset().KeyValue()
		for j := range 500 {
			cmd = cmd.KeyValue(s.key(fmt.Sprintf("s:k%d-%d", i, j)), "x")
		}
		if err := s.client.Do(ctx, cmd.Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	resetStats(t, s)
	unlockA, err := s.lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	unlockB, err := s.lock(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	var unlockAll func()
	go func() {
		var err error
		unlockAll, err = s.lock(ctx, session.All)
		got <- err
	}()
	unlockA()
	select {
	case err := <-got:
		t.Fatalf("every session's lock taken while session b's is held (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlockB()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Held: a session's write waits for it.
	lctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if _, err := s.lock(lctx, "a"); err == nil {
		t.Fatal("session a's lock taken while every session's is held")
	}
	cancel()
	unlockAll()
	for _, cmd := range []string{"scan", "keys"} {
		if n := calls(t, s, cmd); n != 0 {
			t.Errorf("the locks ran %s %d times", cmd, n)
		}
	}
}

// TestLockOfAKilledReplica: a session's lock counts for every session's
// as long as its replica renews it, past its TTL; a replica killed while
// holding it holds it no longer than the TTL.
func TestLockOfAKilledReplica(t *testing.T) {
	t.Parallel()
	rs, a := open(t)
	b := openOn(t, rs)
	ctx := context.Background()
	unlock, err := a.lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// Renewed: still held after its TTL.
	wctx, cancel := context.WithTimeout(ctx, lockTTL+time.Second)
	defer cancel()
	if _, err := b.lock(wctx, session.All); err == nil {
		t.Fatal("every session's lock taken while a renewed session's lock is held")
	}
	a.Close()                                  // killed: no renewal, no unlock
	unlockAll, err := b.lock(ctx, session.All) // within lockWait, past the TTL
	if err != nil {
		t.Fatalf("every session's lock after the killed replica's TTL: %v", err)
	}
	unlockAll()
}
