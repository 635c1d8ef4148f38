package fleet

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
)

// A session's counts live in one hash, c:ID, which expires with the
// session and a reset deletes in one step: m:FAULT and h:FAULT, a
// limited fault's matching requests and hits; s:SCENARIO and n:SCENARIO,
// the start (ms) and count of a rate limit's window. counted lists the
// sessions with a hash, scored by when it expires, so a reset of every
// session finds them without scanning the keyspace.

// countedLib defines now() (lockLib) and counted(ttl), which lists
// session ARGV[1] in counted (KEYS[2]), expiring in ttl ms (0: never),
// and drops the expired.
const countedLib = lockLib + `
local function counted(ttl)
  local t = now()
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. t)
  if ttl == 0 then
    redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
  else
    redis.call('ZADD', KEYS[2], t + ttl, ARGV[1])
  end
end
`

// countScript adds one to field ARGV[2] of a session's hash (KEYS[1])
// and returns it, never below ARGV[3]+1. ARGV[4] is the TTL in ms.
var countScript = rueidis.NewLuaScript(countedLib + `
local n = redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
local base = tonumber(ARGV[3])
if n <= base then
  n = base + 1
  redis.call('HSET', KEYS[1], ARGV[2], n)
end
local ttl = tonumber(ARGV[4])
if ttl ~= 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
counted(ttl)
return n
`)

// windowScript counts a request in a rate limit's window, by Redis's
// clock so the fleet shares one clock. It returns the count and the ms
// until the window ends.
var windowScript = rueidis.NewLuaScript(countedLib + `
local t = now()
local win = tonumber(ARGV[3])
local s = tonumber(redis.call('HGET', KEYS[1], 's:' .. ARGV[2]) or '-1')
if s < 0 or t - s >= win then
  s = t
  redis.call('HSET', KEYS[1], 's:' .. ARGV[2], s, 'n:' .. ARGV[2], 0)
end
local n = redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[2], 1)
local ttl = tonumber(ARGV[4])
if ttl ~= 0 then
  ttl = math.max(ttl, win)
  redis.call('PEXPIRE', KEYS[1], ttl)
end
counted(ttl)
return {n, s + win - t}
`)

// forgetScript deletes session ARGV[2]'s counts (KEYS[1]), or every
// session's for "*" (ARGV[1] is the hashes' prefix).
var forgetScript = rueidis.NewLuaScript(`
if ARGV[2] ~= '*' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return redis.call('DEL', KEYS[1])
end
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do redis.call('DEL', ARGV[1] .. id) end
return redis.call('DEL', KEYS[2])
`)

// ttlArg is the TTL of session sid's counts in ms, "0" for none.
func (s *Store) ttlArg(sid string) string {
	if sid == session.Default {
		return "0"
	}
	return strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10)
}

// faultCounter counts one session's limited faults across the fleet.
type faultCounter struct {
	s   *Store
	sid string
}

// FaultCounter returns the counter of session sid's limited faults.
func (s *Store) FaultCounter(sid string) fault.SharedCounter { return faultCounter{s, sid} }

// Count adds one to f's count of what and returns the new count.
func (t faultCounter) Count(f *fault.Fault, what string, base int) (int, error) {
	field := what[:1] + ":" + f.ID + ":" + strconv.FormatUint(f.Stream(), 36)
	var n int64
	err := t.s.exchange(context.Background(), func(ctx context.Context) (err error) {
		n, err = countScript.Exec(ctx, t.s.client, []string{t.s.key("c:" + t.sid), t.s.key("counted")},
			[]string{t.sid, field, strconv.Itoa(base), t.s.ttlArg(t.sid)}).AsInt64()
		return err
	})
	return int(n), err
}

// ReadSince counts one more read since the write at writeAt, in the
// field r of the session's hash: one field, which a newer write starts
// again.
func (t faultCounter) ReadSince(writeAt time.Time, write int64) (int, error) {
	var n int64
	err := t.s.exchange(context.Background(), func(ctx context.Context) (err error) {
		n, err = readsScript.Exec(ctx, t.s.client, []string{t.s.key("c:" + t.sid), t.s.key("counted")},
			[]string{t.sid, strconv.FormatInt(writeAt.UnixNano(), 10) + "/" + strconv.FormatInt(write, 10), t.s.ttlArg(t.sid)}).AsInt64()
		return err
	})
	return int(n), err
}

// readsScript adds one to the reads since the write ARGV[2] that field
// r of a session's hash (KEYS[1]) counts, "WRITE N", starting again at
// a new write, and returns it. ARGV[3] is the TTL in ms.
var readsScript = rueidis.NewLuaScript(countedLib + `
local n = 1
local cur = redis.call('HGET', KEYS[1], 'r')
if cur then
  local at, c = string.match(cur, '^(%S+) (%d+)$')
  if at == ARGV[2] then n = tonumber(c) + 1 end
end
redis.call('HSET', KEYS[1], 'r', ARGV[2] .. ' ' .. n)
local ttl = tonumber(ARGV[3])
if ttl ~= 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
counted(ttl)
return n
`)

// CountRequest counts a request of session sid against the rate limit rl,
// across the fleet, and reports whether it may go through.
func (s *Store) CountRequest(sid, scenario string, rl *access.RateLimit) (time.Duration, bool, error) {
	win := max(rl.Window.D().Milliseconds(), 1)
	var res []int64
	err := s.exchange(context.Background(), func(ctx context.Context) (err error) {
		res, err = windowScript.Exec(ctx, s.client, []string{s.key("c:" + sid), s.key("counted")},
			[]string{sid, scenario, strconv.FormatInt(win, 10), s.ttlArg(sid)}).AsIntSlice()
		return err
	})
	if err != nil {
		return 0, false, err
	}
	if len(res) != 2 {
		return 0, false, errors.New("store: a rate limit's count: not the answer the script gives")
	}
	n, left := res[0], res[1]
	if n <= int64(rl.Requests) {
		return 0, true, nil
	}
	return max(time.Duration(left)*time.Millisecond, time.Second), false, nil
}

// Forget resets session sid's counts, or every session's for All.
func (s *Store) Forget(sid string) {
	s.exchange(context.Background(), func(ctx context.Context) error {
		return forgetScript.Exec(ctx, s.client, []string{s.key("c:" + sid), s.key("counted")},
			[]string{s.key("c:"), sid}).Error()
	})
}
