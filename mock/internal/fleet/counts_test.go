package fleet

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// TestForgetCounts: a reset of one session forgets its counts only; a
// reset of every session forgets every session's, in one step whatever
// else Redis keeps (no SCAN), and leaves another fleet's (prefix) be.
func TestForgetCounts(t *testing.T) {
	rs, s := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	other, err := Open(ctx, Config{URL: rs.URL(), TTL: time.Hour, Prefix: "other:"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	f := &fault.Fault{ID: "f1"}
	rl := &access.RateLimit{Requests: 1, Window: wire.Duration(time.Hour)}
	count := func(s *Store, sid string) int {
		t.Helper()
		n, err := s.FaultCounter(sid).Count(f, "matched", 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	admit := func(sid string) bool {
		t.Helper()
		_, ok, err := s.CountRequest(sid, "demo", rl)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	sids := []string{"a", "b", session.Default}
	for _, sid := range sids {
		count(s, sid)
		count(s, sid)
		if !admit(sid) || admit(sid) {
			t.Fatalf("session %s: the rate limit's first request is not the only one admitted", sid)
		}
	}
	count(other, "a")
	s.Forget("a")
	if n := count(s, "a"); n != 1 {
		t.Errorf("session a's count after its reset: %d, want 1", n)
	}
	if n := count(s, "b"); n != 3 {
		t.Errorf("session b's count after session a's reset: %d, want 3", n)
	}
	resetStats(t, s)
	s.Forget(session.All)
	for _, sid := range sids {
		if n := count(s, sid); n != 1 {
			t.Errorf("session %s's count after a reset of every session: %d, want 1", sid, n)
		}
		if !admit(sid) {
			t.Errorf("session %s: a request refused by the rate limit after a reset of every session", sid)
		}
	}
	if n := count(other, "a"); n != 2 {
		t.Errorf("another fleet's count after this one's reset: %d, want 2", n)
	}
	for _, cmd := range []string{"scan", "keys"} {
		if n := calls(t, s, cmd); n != 0 {
			t.Errorf("the counts ran %s %d times", cmd, n)
		}
	}
}

// TestCountedForgetsExpiredSessions: the set of the sessions with counts
// does not keep those whose counts expired.
func TestCountedForgetsExpiredSessions(t *testing.T) {
	rs, _ := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, Config{URL: rs.URL(), TTL: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := &fault.Fault{ID: "f1"}
	for _, sid := range []string{"x", session.Default} {
		if _, err := s.FaultCounter(sid).Count(f, "hit", 0); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // x's counts expire
	if _, err := s.FaultCounter("y").Count(f, "hit", 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.client.Do(ctx, s.client.B().Zrange().Key(s.key("counted")).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{session.Default, "y"}; !slices.Equal(got, want) {
		t.Errorf("the sessions with counts: %q, want %q", got, want)
	}
}

// TestExchangesWhileDownAreShort: while Redis is known to be out of
// reach, each exchange of the counts, the locks and the keeping is
// bounded by downTimeout, not opTimeout: a request does not wait long
// for a Redis that does not answer.
func TestExchangesWhileDownAreShort(t *testing.T) {
	_, s := open(t)
	var mu sync.Mutex
	var left []time.Duration // what each exchange had left of its time as it began
	s.client = hooked{Client: s.client, hook: func(ctx context.Context, do func()) {
		mu.Lock()
		d, ok := ctx.Deadline()
		if !ok {
			d = time.Now().Add(time.Hour)
		}
		left = append(left, time.Until(d))
		mu.Unlock()
		do()
	}}
	f := &fault.Fault{ID: "f1"}
	ops := []struct {
		name string
		run  func()
	}{
		{"Count", func() { s.FaultCounter("a").Count(f, "hit", 0) }},
		{"CountRequest", func() {
			s.CountRequest("a", "demo", &access.RateLimit{Requests: 1, Window: wire.Duration(time.Second)})
		}},
		{"Forget", func() { s.Forget("a") }},
		{"Forget(All)", func() { s.Forget(session.All) }},
		{"Lock", func() {
			if _, unlock, err := s.lock(context.Background(), "a"); err == nil {
				unlock()
			}
		}},
		{"Lock(All)", func() {
			if _, unlock, err := s.lock(context.Background(), session.All); err == nil {
				unlock()
			}
		}},
		{"touch", func() { s.touch("a") }},
		{"keep", func() {
			s.run(context.Background(), []write{{id: "a", exec: rueidis.LuaExec{
				Keys: []string{s.key("v:a"), s.key("s:a"), s.key("ids"), s.key("sizes"), s.key("bytes")},
				Args: []string{"{}", "3600000", "1", "10", "a", s.cfg.Prefix, "0", "1000", "default"},
			}}}, &shared.Unkept{Sessions: map[string]error{}})
		}},
	}
	for _, op := range ops {
		mu.Lock()
		left = nil
		mu.Unlock()
		s.failed(errors.New("down, for the test"))
		op.run()
		time.Sleep(10 * time.Millisecond) // an unlock goes on after the answer
		mu.Lock()
		if len(left) == 0 {
			t.Errorf("%s: no exchange with Redis", op.name)
		}
		// The first: once Redis answered, it is known to be back.
		if len(left) > 0 && left[0] > downTimeout {
			t.Errorf("%s: an exchange while Redis is down may take %v (downTimeout %v)", op.name, left[0].Round(time.Millisecond), downTimeout)
		}
		mu.Unlock()
	}
}
