package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/statedir"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Keys, under the prefix: anchor (the data's present), sv and server
// (the server's version and state), v:ID and s:ID (a session's version
// and snapshot document, both expiring after the TTL but the default
// session's), ids (a sorted set of the sessions, scored by their last
// write: the least recent go first past MaxSessions); lock:ID,
// lock-all and locks, the writes' locks (lock.go); c:ID and counted, the
// sessions' counts (counts.go); j:..., the journal (journal.go).

// sessionScript writes one session: its document (or, for "", its
// absence: reset to nothing, or dropped), its version INCR'd in the same
// step, so that a version names one document; then the sessions past
// the TTL or the limit go. It returns the new version.
var sessionScript = rueidis.NewLuaScript(`
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local v = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now * 1000)
redis.call('SET', KEYS[1], string.format('%d', v))
if ARGV[1] == '' then
  redis.call('DEL', KEYS[2])
  redis.call('ZREM', KEYS[3], ARGV[5])
else
  redis.call('SET', KEYS[2], ARGV[1])
  if ARGV[7] == '1' then
    redis.call('ZADD', KEYS[3], '+inf', ARGV[5])
  else
    redis.call('ZADD', KEYS[3], now, ARGV[5])
  end
end
if ARGV[7] ~= '1' then
  redis.call('PEXPIRE', KEYS[1], ttl)
  if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[2], ttl) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - ttl))
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if over > 0 then
  for _, o in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
    redis.call('ZREM', KEYS[3], o)
    redis.call('DEL', ARGV[6] .. 's:' .. o)
    redis.call('INCR', ARGV[6] .. 'v:' .. o)
    redis.call('PEXPIRE', ARGV[6] .. 'v:' .. o, ttl)
  end
end
return v
`)

// serverScript writes the server's own state and moves its version on.
// A version is never below the writer's clock in µs: a Redis that lost
// its data (restarted without persistence) never hands out a version a
// replica already holds.
var serverScript = rueidis.NewLuaScript(`
redis.call('SET', KEYS[2], ARGV[1])
local v = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, tonumber(ARGV[2]) * 1000)
redis.call('SET', KEYS[1], string.format('%d', v))
return v
`)

// ErrUnavailable is the answer to a write while Redis is out of reach.
func ErrUnavailable() *wire.APIError {
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeStoreUnavailable, RetryAfter: time.Second,
		Message: "the shared store (--store) is out of reach: nothing changed; send it again once it is back"}
}

// write is one script run of a keeping, and what it is about.
type write struct {
	id     string // "" for the server's state
	sum    [32]byte
	key    journal.Key // the copy the session's document was taken from
	exec   rueidis.LuaExec
	script *rueidis.Lua
}

// keep is the state's Keeper: the server's state, if server, and each
// session of ids as it is now, in Redis before the writes that changed
// them are answered. A session gone from this replica to make room is
// left as Redis has it (another replica may use it); one reset to
// nothing or dropped is written gone.
func (s *Store) keep(ctx context.Context, ids []string, server bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ws []write
	var errs []error
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if server {
		if w, ok, err := s.serverWrite(); err != nil {
			errs = append(errs, err)
		} else if ok {
			ws = append(ws, w)
		}
	}
	for _, id := range ids {
		w, ok, err := s.sessionWrite(id, now)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			ws = append(ws, w)
		}
	}
	for i := range ws {
		if ws[i].id == "" {
			ws[i].exec.Args = append(ws[i].exec.Args, now)
		}
	}
	if len(ws) > 0 {
		errs = append(errs, s.run(ctx, ws))
	}
	return errors.Join(errs...)
}

// run runs ws in one pipeline and notes the versions they made; a
// failure leaves the replica's copies to be reloaded at their next
// request (what Redis holds is the truth), and is the 503 the write
// answers.
func (s *Store) run(ctx context.Context, ws []write) error {
	res := make([]rueidis.RedisResult, len(ws))
	failed := s.exchange(ctx, func(ctx context.Context) error {
		// The two scripts go as two pipelines at most, each in order.
		var sess []rueidis.LuaExec
		var sessAt []int
		for i, w := range ws {
			if w.script == serverScript {
				res[i] = serverScript.Exec(ctx, s.client, w.exec.Keys, w.exec.Args)
				continue
			}
			sess, sessAt = append(sess, w.exec), append(sessAt, i)
		}
		if len(sess) > 0 {
			for j, r := range sessionScript.ExecMulti(ctx, s.client, sess...) {
				res[sessAt[j]] = r
			}
		}
		for _, r := range res {
			if err := r.Error(); err != nil {
				return err
			}
		}
		return nil
	})
	s.vmu.Lock()
	defer s.vmu.Unlock()
	for i, w := range ws {
		v, err := res[i].AsInt64()
		if w.id == "" {
			if err != nil {
				s.sv = -1
			} else {
				s.sv, s.serverSum = v, w.sum
			}
		} else {
			e := s.entry(w.id)
			if err != nil {
				e.version = -1
			} else {
				e.version, e.sum, e.touched, e.key = v, w.sum, time.Now(), w.key
			}
		}
		if err != nil && failed == nil {
			failed = err
		}
	}
	if failed != nil {
		return ErrUnavailable()
	}
	return nil
}

// entry is id's entry in known, made if missing; the caller holds vmu.
func (s *Store) entry(id string) *entry {
	e := s.known[id]
	if e == nil {
		e = &entry{}
		s.known[id] = e
	}
	return e
}

// serverWrite is the write of the server's state, unless Redis holds it
// already (or the replica's copy is to be reloaded: a refused write is
// not made by a later one).
func (s *Store) serverWrite() (write, bool, error) {
	doc, sum, err := s.takeServer()
	if err != nil {
		return write{}, false, err
	}
	s.vmu.RLock()
	skip := s.sv < 0 || sum == s.serverSum || !s.held.coversAll() // only a write about every session writes it
	s.vmu.RUnlock()
	if skip {
		return write{}, false, nil
	}
	return write{sum: sum, script: serverScript,
		exec: rueidis.LuaExec{Keys: []string{s.key("sv"), s.key("server")}, Args: []string{string(doc)}}}, true, nil
}

// takeServer is the server's state as the keeping writes it, and its
// hash; the zero hash with an error.
func (s *Store) takeServer() ([]byte, [32]byte, error) {
	doc, err := json.Marshal(statedir.TakeServer(s.st, s.anchor))
	if err != nil {
		return nil, [32]byte{}, err
	}
	return doc, sha256.Sum256(doc), nil
}

// sessionWrite is the write of session id as it is now (now is the time
// in ms), unless Redis holds it already.
func (s *Store) sessionWrite(id, now string) (write, bool, error) {
	known, isKnown := s.knownOf(id)
	ss, found := s.st.Sessions().Find(id)
	evicted := !found && s.st.Evicted(id) // asked once each time it went, whatever follows
	if evicted || !found && known.sum == goneSum {
		// Before the lock's test: the flag is spent here, and an entry
		// not forgotten now never is. Another replica may use it; this one
		// asks Redis at its next request.
		s.vmu.Lock()
		delete(s.known, id)
		s.vmu.Unlock()
		return write{}, false, nil
	}
	if isKnown && known.version < 0 || !s.held.covers(id) {
		// To be reloaded (a refused write is not made by a later one), or
		// changed by reads only: stays on this replica.
		return write{}, false, nil
	}
	doc, sum := "", goneSum
	if found {
		snap, err := s.k.TakeToKeep(id)
		if err != nil {
			return write{}, false, err
		}
		if sum, err = snap.Sum(); err != nil {
			return write{}, false, err
		}
		if isKnown && sum == known.sum {
			return write{}, false, nil
		}
		body, err := json.Marshal(snap) // with its taken_at, which the sum leaves out
		if err != nil {
			return write{}, false, err
		}
		if len(body) > MaxSessionBytes {
			return write{}, false, fmt.Errorf("session %s: its state is %d bytes, more than the store keeps of one (%d)", id, len(body), MaxSessionBytes)
		}
		doc = string(body)
	}
	def := "0"
	if id == session.Default {
		def = "1"
	}
	var key journal.Key
	if found {
		key = ss.Key()
	}
	return write{id: id, sum: sum, key: key, script: sessionScript, exec: rueidis.LuaExec{
		Keys: []string{s.key("v:" + id), s.key("s:" + id), s.key("ids")},
		Args: []string{doc, strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10), now, strconv.Itoa(s.cfg.MaxSessions), id, s.cfg.Prefix, def},
	}}, true, nil
}
