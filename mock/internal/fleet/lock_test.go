package fleet

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

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
	_, unlockA, err := s.lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	_, unlockB, err := s.lock(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	var unlockAll func()
	go func() {
		var err error
		_, unlockAll, err = s.lock(ctx, session.All)
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
	if _, _, err := s.lock(lctx, "a"); err == nil {
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
	_, unlock, err := a.lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// Renewed: still held after its TTL.
	wctx, cancel := context.WithTimeout(ctx, lockTTL+time.Second)
	defer cancel()
	if _, _, err := b.lock(wctx, session.All); err == nil {
		t.Fatal("every session's lock taken while a renewed session's lock is held")
	}
	a.Close()                                     // killed: no renewal, no unlock
	_, unlockAll, err := b.lock(ctx, session.All) // within lockWait, past the TTL
	if err != nil {
		t.Fatalf("every session's lock after the killed replica's TTL: %v", err)
	}
	unlockAll()
}

// TestWritesAreFenced: Redis takes a session's document, or the
// server's state, only from the token that holds its lock (or
// lock-all). A replica that paused past its lock's TTL, while another
// took the lock and wrote, writes nothing when it wakes.
func TestWritesAreFenced(t *testing.T) {
	rs, a := open(t)
	b := openOn(t, rs)
	ctx := context.Background()
	get := func(key string) string {
		v, _ := a.client.Do(ctx, a.client.B().Get().Key(a.key(key)).Build()).ToString()
		return v
	}
	writeSession := func(s *Store, token, doc string) int64 {
		t.Helper()
		keys := []string{s.key("v:k"), s.key("s:k"), s.key("ids"), s.key("sizes"), s.key("bytes"), s.key("lock:k"), s.key("lock-all")}
		args := []string{doc, "3600000", strconv.FormatInt(time.Now().UnixMilli(), 10), "1000", "k", s.cfg.Prefix, "0", "1000000", session.Default, token}
		v, err := sessionScript.Exec(ctx, s.client, keys, args).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// a holds k's lock, pauses past its TTL; b takes it and writes.
	tokenA, unlockA, err := a.lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	a.client.Do(ctx, a.client.B().Del().Key(a.key("lock:k")).Build()) // the TTL ran out
	tokenB, unlockB, err := b.lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if v := writeSession(b, tokenB, `{"by":"b"}`); v <= 0 {
		t.Fatalf("the lock's holder did not write: %d", v)
	}
	version := get("v:k")
	if v := writeSession(a, tokenA, `{"by":"a"}`); v != lockLost {
		t.Errorf("a write whose lock ran out returned %d, want %d", v, lockLost)
	}
	if got := get("s:k"); got != `{"by":"b"}` || get("v:k") != version {
		t.Errorf("a write whose lock ran out wrote over the holder's: %s (version %s, was %s)", got, get("v:k"), version)
	}
	unlockB()
	unlockA()

	// Every session's lock fences a session's write and the server's.
	tokenAll, unlockAll, err := b.lock(ctx, session.All)
	if err != nil {
		t.Fatal(err)
	}
	defer unlockAll()
	if v := writeSession(b, tokenAll, `{"by":"all"}`); v <= 0 {
		t.Errorf("lock-all's holder did not write a session: %d", v)
	}
	writeServer := func(token string) int64 {
		t.Helper()
		v, err := serverScript.Exec(ctx, b.client, []string{b.key("sv"), b.key("server"), b.key("lock-all")},
			[]string{`{"by":"` + token + `"}`, strconv.FormatInt(time.Now().UnixMilli(), 10), token}).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := writeServer(tokenA); v != lockLost || get("server") != "" {
		t.Errorf("the server's state written by a token not holding lock-all: %d, %q", v, get("server"))
	}
	if v := writeServer(tokenAll); v <= 0 || get("server") != `{"by":"`+tokenAll+`"}` {
		t.Errorf("lock-all's holder did not write the server's state: %d, %q", v, get("server"))
	}
}

// Redis remembers at most maxEvictions evictions for the sessions' next
// requests: past it, the oldest go, and each is taken once.
func TestEvictionsAreBounded(t *testing.T) {
	_, s := open(t)
	ctx := context.Background()
	limit, _ := strconv.Atoi(maxEvictions)
	n := limit + 50
	// Every write under one token of lock-all, which evicts nothing.
	if err := s.client.Do(ctx, s.client.B().Set().Key(s.key("lock-all")).Value("all").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	execs := make([]rueidis.LuaExec, n)
	for i := range execs {
		id := "e" + strconv.Itoa(i)
		// One session at most: each write evicts the one before.
		execs[i] = rueidis.LuaExec{
			Keys: []string{s.key("v:" + id), s.key("s:" + id), s.key("ids"), s.key("sizes"), s.key("bytes"), s.key("lock:" + id), s.key("lock-all")},
			Args: []string{`{}`, "3600000", strconv.FormatInt(time.Now().UnixMilli(), 10), "1", id, s.cfg.Prefix, "0", "1000000", session.Default, "all"},
		}
	}
	// In batches: one pipeline of them all may outlast the client's
	// write timeout (opTimeout) on a loaded machine.
	for batch := range slices.Chunk(execs, 500) {
		for _, res := range sessionScript.ExecMulti(ctx, s.client, batch...) {
			if v, err := res.AsInt64(); err != nil || v < 0 {
				t.Fatalf("a write: %d %v", v, err)
			}
		}
	}
	kept, err := s.client.Do(ctx, s.client.B().Hlen().Key(s.key("evicted")).Build()).AsInt64()
	if err != nil || kept != int64(limit) {
		t.Fatalf("Redis remembers %d evictions (%v), want the newest %d", kept, err, limit)
	}
	take := func(id string) string {
		e, _ := evictedScript.Exec(ctx, s.client, []string{s.key("evicted"), s.key("evictedq"), s.key("ids")}, []string{id, "0", "3600000"}).ToString()
		return e
	}
	if e := take("e0"); e != "" {
		t.Errorf("the oldest eviction is still remembered: %q", e)
	}
	last := "e" + strconv.Itoa(n-2) // the last one written stays
	if e := take(last); !strings.HasSuffix(e, " sessions") {
		t.Errorf("%s's eviction: %q, want its time and 'sessions'", last, e)
	}
	if e := take(last); e != "" {
		t.Errorf("%s's eviction taken twice: %q", last, e)
	}
}
