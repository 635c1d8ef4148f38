package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/statedir"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Keys, under the prefix: anchor (the data's present), sv and server
// (the server's version and state), v:ID and s:ID (a session's version
// and snapshot document, both expiring after the TTL but the default
// session's), ids (a sorted set of the sessions, scored by their last
// write or touch: the least recent go first past MaxSessions or
// MaxBytes), sizes and bytes (each document's bytes, and their sum);
// lock:ID, lock-all and locks, the writes' locks (lock.go); c:ID and
// counted, the sessions' counts (counts.go); j:..., the journal
// (journal.go).

// sessionScript writes one session: its document (or, for "", its
// absence: reset to nothing, or dropped), its version INCR'd in the same
// step, so that a version names one document; then the sessions past
// the TTL go, and the least recently used past the count (ARGV[4]) or
// the bytes (ARGV[8]) the documents may keep together, never the one
// written, the default session (ARGV[9]) nor one whose lock another
// write holds (lock:ID, ARGV[6] the prefix); a session going has its
// document deleted and its version moved on (a replica holding a copy
// reads it again, and finds none). It returns the new version, or -1,
// changing nothing, when the document with the default session's alone
// would pass the bytes: no eviction makes room for it.
var sessionScript = rueidis.NewLuaScript(`
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local budget = tonumber(ARGV[8])
local id = ARGV[5]
local size = string.len(ARGV[1])
local def = 0
if ARGV[7] ~= '1' then def = tonumber(redis.call('HGET', KEYS[4], ARGV[9]) or '0') end
if size + def > budget then return -1 end
local function forget(o)
  local n = redis.call('HGET', KEYS[4], o)
  if n then
    redis.call('HDEL', KEYS[4], o)
    redis.call('DECRBY', KEYS[5], n)
  end
end
local function evict(o)
  redis.call('ZREM', KEYS[3], o)
  redis.call('DEL', ARGV[6] .. 's:' .. o)
  redis.call('INCR', ARGV[6] .. 'v:' .. o)
  redis.call('PEXPIRE', ARGV[6] .. 'v:' .. o, ttl)
  forget(o)
end
local v = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now * 1000)
redis.call('SET', KEYS[1], string.format('%d', v))
forget(id)
if ARGV[1] == '' then
  redis.call('DEL', KEYS[2])
  redis.call('ZREM', KEYS[3], id)
else
  redis.call('SET', KEYS[2], ARGV[1])
  redis.call('HSET', KEYS[4], id, size)
  redis.call('INCRBY', KEYS[5], size)
  if ARGV[7] == '1' then
    redis.call('ZADD', KEYS[3], '+inf', id)
  else
    redis.call('ZADD', KEYS[3], now, id)
  end
end
if ARGV[7] ~= '1' then
  redis.call('PEXPIRE', KEYS[1], ttl)
  if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[2], ttl) end
end
for _, o in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - ttl))) do
  if o ~= id then evict(o) end
end
-- a session another write holds the lock of is not taken from it
local function spare(o)
  return o ~= id and o ~= ARGV[9] and redis.call('EXISTS', ARGV[6] .. 'lock:' .. o) == 0
end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if over > 0 then
  local n = over
  for _, o in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if n <= 0 then break end
    if spare(o) then
      evict(o)
      n = n - 1
    end
  end
end
if tonumber(redis.call('GET', KEYS[5]) or '0') > budget then
  for _, o in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if tonumber(redis.call('GET', KEYS[5]) or '0') <= budget then break end
    if spare(o) then evict(o) end
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

// errUnavailable is the answer to a write while Redis is out of reach.
func errUnavailable() *wire.APIError {
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeStoreUnavailable, RetryAfter: time.Second,
		Message: "the shared store (--store) is out of reach: nothing changed; send it again once it is back"}
}

// write is one script run of a keeping, and what it is about.
type write struct {
	id     string // "" for the server's state
	size   int    // the session's document's bytes
	sum    [32]byte
	key    journal.Key // the copy the session's document was taken from
	exec   rueidis.LuaExec
	script *rueidis.Lua
}

// keep is the state's Keeper: the server's state, if server, and each
// session of ids as it is now, in Redis before the writes that changed
// them are answered. A session gone from this replica to make room is
// left as Redis has it (another replica may use it); one reset to
// nothing or dropped is written gone. A session the store does not
// keep (its document too big) fails its own writes only (shared.Unkept);
// Redis out of reach fails them all.
func (s *Store) keep(ctx context.Context, ids []string, server bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ws []write
	unkept := &shared.Unkept{Sessions: make(map[string]error)}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if server {
		if w, ok, err := s.serverWrite(); err != nil {
			unkept.Server = err
		} else if ok {
			ws = append(ws, w)
		}
	}
	for _, id := range ids {
		w, ok, err := s.sessionWrite(id, now)
		if err != nil {
			unkept.Sessions[id] = err
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
		if err := s.run(ctx, ws, unkept); err != nil {
			return err
		}
	}
	if unkept.Server == nil && len(unkept.Sessions) == 0 {
		return nil
	}
	return unkept
}

// run runs ws in one pipeline and notes the versions they made; a
// failure leaves the replica's copies to be reloaded at their next
// request (what Redis holds is the truth), and is the 503 the write
// answers. A session's document the script refused (past MaxBytes) is
// noted in unkept, its copy to be reloaded too.
func (s *Store) run(ctx context.Context, ws []write, unkept *shared.Unkept) error {
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
	if _, refused := refusal(failed); refused {
		failed = nil // Redis answered: each write's own error says what it refused
	}
	for i, w := range ws {
		v, err := res[i].AsInt64()
		re, refused := refusal(err)
		switch {
		case err == nil && v < 0: // past MaxBytes: nothing written
			unkept.Sessions[w.id] = tooBig(w.id, w.size, s.cfg.MaxBytes, "all sessions together (--max-store-memory)")
		case refused && w.id == "":
			unkept.Server = errRefused(re)
		case refused:
			unkept.Sessions[w.id] = errRefused(re)
		case err != nil && failed == nil:
			failed = err
		}
		if w.id == "" {
			if err != nil {
				s.sv = -1
			} else {
				s.sv, s.serverSum = v, w.sum
			}
		} else {
			e := s.entry(w.id)
			if err != nil || v < 0 {
				e.version = -1
			} else {
				e.version, e.sum, e.touched, e.key = v, w.sum, time.Now(), w.key
			}
		}
	}
	if failed != nil {
		return unavailable(failed)
	}
	return nil
}

// unavailable is the answer to a write whose exchange with Redis
// failed with err: refused by Redis (errRefused), or out of reach.
func unavailable(err error) *wire.APIError {
	if re, ok := refusal(err); ok {
		return errRefused(re)
	}
	return errUnavailable()
}

// errRefused is the answer to a write Redis answered with an error (a
// Redis full, past its maxmemory with no eviction, says OOM): what it
// said, which names no key or value.
func errRefused(re *rueidis.RedisError) *wire.APIError {
	msg := "the shared store (--store) refused the write: nothing changed (Redis: " + wire.Clip(re.Error()) + ")"
	if strings.HasPrefix(re.Error(), "OOM") {
		msg += "; a Redis full needs a maxmemory above --max-store-memory and the journal's bytes"
	}
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeStoreUnavailable, RetryAfter: time.Second, Message: msg}
}

// copyLost is sessionWrite's answer when a write of session id under
// way here lost the copy it changed: evicted to make room (or found so
// by a read, which made it anew). What it changed is not kept, and it
// answers so (errCopyLost); the entry stays, to be read again, so that
// no later keeping takes the session for one Redis holds none of (and
// writes it gone). The first keeping once the write is over forgets it.
func (s *Store) copyLost(id string) (write, bool, error) {
	s.reloadLater(id)
	return write{}, false, errCopyLost(id)
}

// reloadLater makes the replica's copy of session id go back to what
// Redis holds at its next request: a change made here was not kept.
func (s *Store) reloadLater(id string) {
	s.vmu.Lock()
	s.entry(id).version = -1
	s.vmu.Unlock()
}

// errCopyLost is the answer to a write of session id whose copy this
// replica lost while it ran (evicted, though a session being written is
// not, or read again): nothing of it is kept.
func errCopyLost(id string) *wire.APIError {
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
		Message: "this replica lost the copy of session " + id + " the write changed while it ran (evicted to make room for others, --max-sessions, or read again from the store): nothing changed; send it again"}
}

// tooBig is the answer to a write that would make session id's
// document size bytes, past max, what the store keeps of what: nothing
// changed (the replica's copy is read again from Redis).
func tooBig(id string, size int, max int64, what string) *wire.APIError {
	return &wire.APIError{Status: http.StatusRequestEntityTooLarge, Code: wire.CodePayloadTooLarge,
		Message: fmt.Sprintf("session %s would keep %d bytes in the shared store, more than it keeps of %s (%d): nothing changed", id, size, what, max)}
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
	doc, sum, err := s.serverDoc()
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

// serverDoc is the server's state as the keeping writes it, and its
// hash; the zero hash with an error.
func (s *Store) serverDoc() ([]byte, [32]byte, error) {
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
	if s.held.holdsOwn(id) && (evicted || isKnown && known.version < 0) {
		return s.copyLost(id)
	}
	if evicted || !found && (known.sum == goneSum || isKnown && known.version < 0) {
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
		if now, ok := s.st.Sessions().Find(id); !ok || now != ss || ss.Dropped() {
			// Evicted while it was taken: what was taken may be its
			// emptied state, never to be written.
			if s.held.holdsOwn(id) {
				return s.copyLost(id)
			}
			return write{}, false, nil
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
			s.reloadLater(id)
			return write{}, false, tooBig(id, len(body), MaxSessionBytes, "one session")
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
	return write{id: id, size: len(doc), sum: sum, key: key, script: sessionScript, exec: rueidis.LuaExec{
		Keys: []string{s.key("v:" + id), s.key("s:" + id), s.key("ids"), s.key("sizes"), s.key("bytes")},
		Args: []string{doc, strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10), now, strconv.Itoa(s.cfg.MaxSessions), id, s.cfg.Prefix, def,
			strconv.FormatInt(s.cfg.MaxBytes, 10), session.Default},
	}}, true, nil
}
