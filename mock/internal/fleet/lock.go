package fleet

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// A write holds its session's lock in Redis (lock:ID) from before it
// reads the state until its change is kept, so two writes of one session
// on two replicas come one after the other. A write about every session
// holds lock-all, which waits for the session writes under way and holds
// new ones back. What a read changes stays on its replica.
//
// Each document write is fenced: Redis takes it only while the writer's
// token still holds the lock, so a replica that paused past the lock's
// TTL (a long GC pause, a frozen VM) cannot write over the write of the
// replica that took the lock after it.

// lockTTL is how long a lock outlives a replica killed while holding it.
// A replica renews the locks it holds every lockTTL/3.
const lockTTL = 5 * time.Second

// lockTTLArg is lockTTL in ms, as the lock scripts take it.
var lockTTLArg = strconv.FormatInt(lockTTL.Milliseconds(), 10)

// lockWait bounds the wait for a lock: past it, the write answers 503.
const lockWait = 10 * time.Second

// The session locks held are also listed in locks, scored by when each
// expires (Redis's clock, ms), so lock-all learns whether any is held
// without reading the keyspace.

// The locks' scripts; each file says what it does. now.lua, Redis's
// clock in ms, comes first where a script uses it.
var (
	unlockScript = rueidis.NewLuaScript(lua("unlock.lua"))
	lockScript   = rueidis.NewLuaScript(lua("now.lua", "lock.lua"))
	renewScript  = rueidis.NewLuaScript(lua("now.lua", "renew.lua"))
	busyScript   = rueidis.NewLuaScript(lua("now.lua", "busy.lua"))
)

// held is the tokens of the locks this replica's requests hold and may
// write under, by session (session.All for lock-all). A lock counts here
// only once its request has brought the copy up to date (Serve), so keep
// never writes a copy older than what Redis holds.
type held struct {
	mu     sync.Mutex
	tokens map[string]string
}

// token is the token a write of session id is fenced with: lock-all's,
// or its own lock's; "" when neither is held here.
func (h *held) token(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.tokens[session.All]; t != "" {
		return t
	}
	return h.tokens[id]
}

// holdsOwn reports whether a write of session id is under way here,
// holding the session's own lock.
func (h *held) holdsOwn(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tokens[id] != ""
}

// set notes that token holds the lock of session id; "" notes it
// released.
func (h *held) set(id, token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if token == "" {
		delete(h.tokens, id)
		return
	}
	if h.tokens == nil {
		h.tokens = make(map[string]string)
	}
	h.tokens[id] = token
}

// lock takes the lock of session sid, or lock-all for session.All, and
// returns its token and the function that releases it. Its error is the
// 503 to answer.
func (s *Store) lock(ctx context.Context, sid string) (token string, unlock func(), err error) {
	token = rand.Text()
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	key := s.key("lock:" + sid)
	if sid == session.All {
		key = s.key("lock-all")
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		ok, err := s.tryLock(ctx, key, token, sid)
		if err != nil {
			if ctx.Err() != nil {
				return "", nil, lockTimeout()
			}
			return "", nil, unavailable(err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return "", nil, lockTimeout()
		case <-time.After(wait):
		}
	}
	stop := make(chan struct{})
	go s.renew(key, token, stop)
	return token, sync.OnceFunc(func() {
		close(stop)
		// The answer is not held for it: a write elsewhere waits a moment at most.
		go s.exec(context.Background(), unlockScript, []string{key, s.key("locks")}, []string{token})
	}), nil
}

// lockTimeout is the answer to a write whose lock did not come.
func lockTimeout() error {
	return retryLater(wire.CodeStoreUnavailable, "other writes of this session held it for "+lockWait.String()+": nothing changed; send it again")
}

// tryLock tries once to take key for token. For lock-all, it then
// waits for the session writes under way to finish.
func (s *Store) tryLock(ctx context.Context, key, token, sid string) (bool, error) {
	if sid != session.All {
		n, err := s.exec(ctx, lockScript, []string{key, s.key("lock-all"), s.key("locks")}, []string{token, lockTTLArg}).AsInt64()
		return n == 1, err
	}
	if err := s.do(ctx, s.client.B().Set().Key(key).Value(token).Nx().Px(lockTTL).Build()).Error(); err != nil {
		if rueidis.IsRedisNil(err) {
			err = nil // held by another
		}
		return false, err
	}
	// Every session's: held now, so no new session's write begins; wait
	// for those under way.
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		n, err := s.exec(ctx, busyScript, []string{s.key("locks")}, nil).AsInt64()
		if err == nil && n == 0 {
			return true, nil
		}
		if err == nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
				continue
			}
		}
		s.exec(context.WithoutCancel(ctx), unlockScript, []string{key, s.key("locks")}, []string{token})
		return false, errors.Join(err, ctx.Err())
	}
}

// renew keeps key held for token until stop is closed.
func (s *Store) renew(key, token string, stop <-chan struct{}) {
	t := time.NewTicker(lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.exec(context.Background(), renewScript, []string{key, s.key("locks")}, []string{token, lockTTLArg})
		}
	}
}
