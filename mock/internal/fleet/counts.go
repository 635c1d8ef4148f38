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

// A session's counts live in one hash, c:ID, so that a reset forgets
// them in one step: m:FAULT and h:FAULT, a limited fault's matching
// requests and hits (FAULT is its id and stream), s:SCENARIO and
// n:SCENARIO, the start (Redis's clock, ms) and count of its rate limit
// window in a scenario. It expires with the session (but the default
// session's). counted, a sorted set of the sessions with counts scored
// by when their hash expires (Redis's clock, ms; +inf for none), is
// what a reset of every session forgets without reading the keyspace;
// the steps that count drop those past.

// countedLib adds session ARGV[1]'s hash, expiring in ttl ms (0: never),
// to counted (KEYS[2]), and drops the sessions whose hash expired.
const countedLib = `
local function counted(ttl)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
  if ttl == 0 then
    redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
  else
    redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
  end
end
`

// countScript adds one to a count (field ARGV[2]) of session ARGV[1]'s
// hash (KEYS[1]), never leaving it below base+1 (ARGV[3]); ARGV[4] is
// the hash's TTL in ms, "0" for none.
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

// windowScript counts a request of session ARGV[1] (its hash KEYS[1])
// in a rate limit's window, by Redis's clock (one clock for the fleet):
// {the count, ms until the window ends}.
var windowScript = rueidis.NewLuaScript(countedLib + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[3])
local s = tonumber(redis.call('HGET', KEYS[1], 's:' .. ARGV[2]) or '-1')
if s < 0 or now - s >= win then
  s = now
  redis.call('HSET', KEYS[1], 's:' .. ARGV[2], s, 'n:' .. ARGV[2], 0)
end
local n = redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[2], 1)
local ttl = tonumber(ARGV[4])
if ttl ~= 0 then
  ttl = math.max(ttl, win)
  redis.call('PEXPIRE', KEYS[1], ttl)
end
counted(ttl)
return {n, s + win - now}
`)

// forgetScript forgets the counts of session ARGV[2] (KEYS[1] its
// hash), or, for ARGV[2] "*" (session.All), of every session in counted (KEYS[2];
// ARGV[1] the hashes' prefix).
var forgetScript = rueidis.NewLuaScript(`
if ARGV[2] ~= '*' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return redis.call('DEL', KEYS[1])
end
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do redis.call('DEL', ARGV[1] .. id) end
return redis.call('DEL', KEYS[2])
`)

// ttlArg is the TTL of session sid's counts, in ms; "0" for none.
func (s *Store) ttlArg(sid string) string {
	if sid == session.Default {
		return "0"
	}
	return strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10)
}

// tally counts one session's limited faults (fault.Tally).
type tally struct {
	s   *Store
	sid string
}

// Tally is what session sid's limited faults count in.
func (s *Store) Tally(sid string) fault.Tally { return tally{s, sid} }

// Count adds one to what of f and returns the new count.
func (t tally) Count(f *fault.Fault, what string, base int) (int, error) {
	field := what[:1] + ":" + f.ID + ":" + strconv.FormatUint(f.Stream(), 36)
	var n int64
	err := t.s.exchange(context.Background(), func(ctx context.Context) (err error) {
		n, err = countScript.Exec(ctx, t.s.client, []string{t.s.key("c:" + t.sid), t.s.key("counted")},
			[]string{t.sid, field, strconv.Itoa(base), t.s.ttlArg(t.sid)}).AsInt64()
		return err
	})
	return int(n), err
}

// Admit counts a request of session sid in scenario's rate limit rl,
// across the fleet.
func (s *Store) Admit(sid, scenario string, rl *access.RateLimit) (time.Duration, bool, error) {
	win := max(rl.Window.D().Milliseconds(), 1)
	var res []rueidis.RedisMessage
	err := s.exchange(context.Background(), func(ctx context.Context) (err error) {
		res, err = windowScript.Exec(ctx, s.client, []string{s.key("c:" + sid), s.key("counted")},
			[]string{sid, scenario, strconv.FormatInt(win, 10), s.ttlArg(sid)}).ToArray()
		return err
	})
	if err != nil {
		return 0, false, err
	}
	if len(res) != 2 {
		return 0, false, errors.New("store: a rate limit's count: not the answer the script gives")
	}
	n, err1 := res[0].AsInt64()
	left, err2 := res[1].AsInt64()
	if err := errors.Join(err1, err2); err != nil {
		return 0, false, err
	}
	if n <= int64(rl.Requests) {
		return 0, true, nil
	}
	return max(time.Duration(left)*time.Millisecond, time.Second), false, nil
}

// Forget starts session sid's counts again (every session's for All):
// one step, whatever else the keyspace holds.
func (s *Store) Forget(sid string) {
	s.exchange(context.Background(), func(ctx context.Context) error {
		return forgetScript.Exec(ctx, s.client, []string{s.key("c:" + sid), s.key("counted")},
			[]string{s.key("c:"), sid}).Error()
	})
}
