package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/session"
)

// A write request holds its session's lock in Redis (lock:ID) from
// before it reads the fleet's state until its change is kept, so that
// two writes of one session on two replicas come one after the other:
// the second reads the first's document and keeps both changes. A write
// about every session (a reset of all, a fault or overrides for all, the
// server's pick) holds lock-all, which waits for the sessions' writes
// under way and holds new ones back. Only a replica that holds a
// session's lock writes its document: what requests that only read
// changed (fault counters, whose fleet counts are Redis's own, a shop
// forked by a read) stays on the replica, and never overwrites another
// replica's answered write.

// lockTTL is how long a lock outlives a replica killed while holding it;
// a replica that holds one renews it every lockTTL/3.
const lockTTL = 5 * time.Second

// lockWait bounds the wait for a lock: past it, the write answers 503.
const lockWait = 10 * time.Second

// unlockScript deletes a lock if the token still holds it.
var unlockScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// lockScript takes a session's lock (KEYS[1]) for a token unless it or
// every session's (KEYS[2]) is held: 1 if taken.
var lockScript = rueidis.NewLuaScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`)

// renewScript extends a lock if the token still holds it.
var renewScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// held are the locks this replica holds, by session (and every
// session's); the keeping writes only what they cover.
type held struct {
	mu  sync.Mutex
	ids map[string]int
	all int
}

// covers reports whether the replica holds the lock of session id, or
// every session's.
func (h *held) covers(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.all > 0 || h.ids[id] > 0
}

// coversAll reports whether the replica holds every session's lock.
func (h *held) coversAll() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.all > 0
}

func (h *held) add(id string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id == session.All {
		h.all += n
		return
	}
	if h.ids == nil {
		h.ids = make(map[string]int)
	}
	if h.ids[id] += n; h.ids[id] <= 0 {
		delete(h.ids, id)
	}
}

// Lock takes the lock of session sid (every session's for session.All)
// for a write request, and returns what gives it back. Call it before
// Fresh; the error is the 503 to answer (Redis out of reach, or the lock
// held too long by others).
func (s *Store) Lock(ctx context.Context, sid string) (unlock func(), err error) {
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
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
				return nil, lockTimeout()
			}
			s.failed(err)
			return nil, ErrUnavailable()
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return nil, lockTimeout()
		case <-time.After(wait):
		}
	}
	s.reached()
	s.held.add(sid, 1)
	stop := make(chan struct{})
	go s.renew(key, token, stop)
	return sync.OnceFunc(func() {
		close(stop)
		s.held.add(sid, -1)
		go func() { // the answer is not held for it: a write elsewhere waits a moment at most
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			unlockScript.Exec(ctx, s.client, []string{key}, []string{token})
		}()
	}), nil
}

// lockTimeout is the answer to a write whose lock did not come.
func lockTimeout() error {
	e := ErrUnavailable()
	e.Message = "other writes of this session held it for " + lockWait.String() + ": nothing changed; send it again"
	return e
}

// tryLock tries once to take key for token; a session's lock is not
// kept while every session's is held, and every session's waits until
// the sessions' writes under way are done.
func (s *Store) tryLock(ctx context.Context, key, token, sid string) (bool, error) {
	ttl := strconv.FormatInt(lockTTL.Milliseconds(), 10)
	if sid != session.All {
		n, err := lockScript.Exec(ctx, s.client, []string{key, s.key("lock-all")}, []string{token, ttl}).AsInt64()
		return n == 1, err
	}
	err := s.client.Do(ctx, s.client.B().Set().Key(key).Value(token).Nx().Px(lockTTL).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil // held by another
	}
	if err != nil {
		return false, err
	}
	// Every session's: held now, so no new session's write begins; wait
	// for those under way.
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		busy, err := s.sessionsLocked(ctx)
		if err == nil && !busy {
			return true, nil
		}
		if err == nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
				continue
			}
		}
		unlockScript.Exec(context.WithoutCancel(ctx), s.client, []string{key}, []string{token})
		return false, errors.Join(err, ctx.Err())
	}
}

// sessionsLocked reports whether a session's lock is held, by anyone.
func (s *Store) sessionsLocked(ctx context.Context) (bool, error) {
	var cursor uint64
	for {
		e, err := s.client.Do(ctx, s.client.B().Scan().Cursor(cursor).Match(s.key("lock:*")).Count(1000).Build()).AsScanEntry()
		if err != nil || len(e.Elements) > 0 {
			return err == nil, err
		}
		if cursor = e.Cursor; cursor == 0 {
			return false, nil
		}
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
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			renewScript.Exec(ctx, s.client, []string{key}, []string{token, strconv.FormatInt(lockTTL.Milliseconds(), 10)})
			cancel()
		}
	}
}
