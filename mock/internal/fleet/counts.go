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

// The counts' scripts; each file says what it does. counted.lua lists a
// session in counted.
var (
	countScript  = rueidis.NewLuaScript(lua("now.lua", "counted.lua", "count.lua"))
	windowScript = rueidis.NewLuaScript(lua("now.lua", "counted.lua", "window.lua"))
	readsScript  = rueidis.NewLuaScript(lua("now.lua", "counted.lua", "reads.lua"))
	forgetScript = rueidis.NewLuaScript(lua("forget.lua"))
)

// ttlArg is the TTL of session sid's counts in ms, "0" for none.
func (s *Store) ttlArg(sid string) string {
	if sid == session.Default {
		return "0"
	}
	return strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10)
}

// countKeys are the keys of the counts' scripts: session sid's hash,
// and counted.
func (s *Store) countKeys(sid string) []string {
	return []string{s.key("c:" + sid), s.key("counted")}
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
	n, err := t.s.exec(context.Background(), countScript, t.s.countKeys(t.sid),
		[]string{t.sid, field, strconv.Itoa(base), t.s.ttlArg(t.sid)}).AsInt64()
	return int(n), err
}

// ReadSince counts one more read since the write at writeAt, in the
// field r of the session's hash: one field, which a newer write starts
// again.
func (t faultCounter) ReadSince(writeAt time.Time, write int64) (int, error) {
	n, err := t.s.exec(context.Background(), readsScript, t.s.countKeys(t.sid),
		[]string{t.sid, strconv.FormatInt(writeAt.UnixNano(), 10) + "/" + strconv.FormatInt(write, 10), t.s.ttlArg(t.sid)}).AsInt64()
	return int(n), err
}

// CountRequest counts a request of session sid against the rate limit rl,
// across the fleet, and reports whether it may go through.
func (s *Store) CountRequest(sid, scenario string, rl *access.RateLimit) (time.Duration, bool, error) {
	win := max(rl.Window.D().Milliseconds(), 1)
	res, err := s.exec(context.Background(), windowScript, s.countKeys(sid),
		[]string{sid, scenario, strconv.FormatInt(win, 10), s.ttlArg(sid)}).AsIntSlice()
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
	s.exec(context.Background(), forgetScript, s.countKeys(sid), []string{s.key("c:"), sid})
}
