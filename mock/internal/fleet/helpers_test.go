package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/redistest"
)

// open is a store on its own redis-server, closed when the test ends.
func open(t testing.TB) (*redistest.Server, *Store) {
	t.Helper()
	rs := redistest.Start(t)
	return rs, openOn(t, rs)
}

// openOn is one more store (a replica) on rs.
func openOn(t testing.TB, rs *redistest.Server) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, Config{URL: rs.URL(), TTL: time.Hour, MaxSessions: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// calls is how many times Redis ran cmd (from its scripts too) since its
// statistics were last reset.
func calls(t testing.TB, s *Store, cmd string) int {
	t.Helper()
	info, err := s.client.Do(context.Background(), s.client.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	return redistest.CommandCalls(info)[cmd]
}

// resetStats resets Redis's command statistics.
func resetStats(t testing.TB, s *Store) {
	t.Helper()
	if err := s.client.Do(context.Background(), s.client.B().ConfigResetstat().Build()).Error(); err != nil {
		t.Fatal(err)
	}
}

// hooked is a client whose every exchange runs through a hook, which
// runs it with do.
type hooked struct {
	rueidis.Client
	hook func(ctx context.Context, do func())
}

func (h hooked) Do(ctx context.Context, cmd rueidis.Completed) (res rueidis.RedisResult) {
	h.hook(ctx, func() { res = h.Client.Do(ctx, cmd) })
	return res
}

func (h hooked) DoMulti(ctx context.Context, cmds ...rueidis.Completed) (res []rueidis.RedisResult) {
	h.hook(ctx, func() { res = h.Client.DoMulti(ctx, cmds...) })
	return res
}
