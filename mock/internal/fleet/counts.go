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
// session's).

// countScript adds one to a count, never leaving it below base+1.
var countScript = rueidis.NewLuaScript(`
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local base = tonumber(ARGV[2])
if n <= base then
  n = base + 1
  redis.call('HSET', KEYS[1], ARGV[1], n)
end
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return n
`)

// windowScript counts a request in a rate limit's window, by Redis's
// clock (one clock for the fleet): {the count, ms until the window ends}.
var windowScript = rueidis.NewLuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[2])
local s = tonumber(redis.call('HGET', KEYS[1], 's:' .. ARGV[1]) or '-1')
if s < 0 or now - s >= win then
  s = now
  redis.call('HSET', KEYS[1], 's:' .. ARGV[1], s, 'n:' .. ARGV[1], 0)
end
local n = redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[1], 1)
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], math.max(tonumber(ARGV[3]), win)) end
return {n, s + win - now}
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
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	field := what[:1] + ":" + f.ID + ":" + strconv.FormatUint(f.Stream(), 36)
	n, err := countScript.Exec(ctx, t.s.client, []string{t.s.key("c:" + t.sid)},
		[]string{field, strconv.Itoa(base), t.s.ttlArg(t.sid)}).AsInt64()
	if err != nil {
		t.s.failed(err)
		return 0, err
	}
	return int(n), nil
}

// Admit counts a request of session sid in scenario's rate limit rl,
// across the fleet.
func (s *Store) Admit(sid, scenario string, rl *access.RateLimit) (time.Duration, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	win := max(rl.Window.D().Milliseconds(), 1)
	res, err := windowScript.Exec(ctx, s.client, []string{s.key("c:" + sid)},
		[]string{scenario, strconv.FormatInt(win, 10), s.ttlArg(sid)}).ToArray()
	if err != nil || len(res) != 2 {
		if err != nil {
			s.failed(err)
		}
		return 0, false, err
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

// Forget starts session sid's counts again (every session's for All).
func (s *Store) Forget(sid string) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if sid != session.All {
		if err := s.client.Do(ctx, s.client.B().Del().Key(s.key("c:"+sid)).Build()).Error(); err != nil {
			s.failed(err)
		}
		return
	}
	var cursor uint64
	for {
		e, err := s.client.Do(ctx, s.client.B().Scan().Cursor(cursor).Match(s.key("c:*")).Count(1000).Build()).AsScanEntry()
		if err != nil {
			s.failed(err)
			return
		}
		if len(e.Elements) > 0 {
			s.client.Do(ctx, s.client.B().Del().Key(e.Elements...).Build())
		}
		if cursor = e.Cursor; cursor == 0 {
			return
		}
	}
}
