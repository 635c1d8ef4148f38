package fleet

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
)

// The fleet's journal (journal.Shared) lives in these keys: j:s:ID, a
// stream per session, each entry under its sequence number ("SEQ-0"),
// with its encoding (d) and what it counts against the byte budget (n);
// j:order, a list of "SEQ ID" of every entry, oldest first, which bounds
// the entries of all sessions and says which goes first; j:meta, a hash
// of seq (the last sequence number given) and bytes (what the entries
// kept count together); j:lost, a hash of the newest sequence number
// each session lost to the bounds; j:sessions, the set of sessions with
// a stream. A script does each step whole, so the bounds hold for the
// fleet at every moment. The streams have no TTL: a session's journal
// goes with a reset, a clear or the bounds (the oldest entries go
// first), not with the session's expiry.

// appendScript keeps one entry: KEYS the session's stream, the order,
// meta, lost and sessions; ARGV the session id, the data, its bytes, the
// session's size, the bytes and entries of all, the streams' prefix.
var appendScript = rueidis.NewLuaScript(`
local sk, order, meta, lostk, sess = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local sid, kept = ARGV[1], tonumber(ARGV[3])
local size, maxb, maxe, prefix = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local seq = redis.call('HINCRBY', meta, 'seq', 1)
local function lose(id, s)
  if s > tonumber(redis.call('HGET', lostk, id) or '0') then redis.call('HSET', lostk, id, s) end
end
local function drop(key, id, s)
  local r = redis.call('XRANGE', key, s .. '-0', s .. '-0')
  if #r == 0 then return end
  redis.call('XDEL', key, s .. '-0')
  redis.call('HINCRBY', meta, 'bytes', -tonumber(r[1][2][4]))
  lose(id, s)
  if id ~= sid and redis.call('XLEN', key) == 0 then
    redis.call('DEL', key)
    redis.call('SREM', sess, id)
  end
end
local function popOrder()
  local it = redis.call('LPOP', order)
  if not it then return false end
  local sp = string.find(it, ' ', 1, true)
  local id = string.sub(it, sp + 1)
  drop(prefix .. id, id, tonumber(string.sub(it, 1, sp - 1)))
  return true
end
if size <= 0 or maxe <= 0 or kept > maxb then
  lose(sid, seq)
  return seq
end
if redis.call('XLEN', sk) >= size then
  local r = redis.call('XRANGE', sk, '-', '+', 'COUNT', 1)
  local s = tonumber(string.match(r[1][1], '^(%d+)'))
  drop(sk, sid, s)
end
while tonumber(redis.call('HGET', meta, 'bytes') or '0') + kept > maxb do
  if not popOrder() then
    lose(sid, seq)
    return seq
  end
end
while redis.call('LLEN', order) >= maxe do popOrder() end
redis.call('XADD', sk, seq .. '-0', 'd', ARGV[2], 'n', kept)
redis.call('HINCRBY', meta, 'bytes', kept)
redis.call('RPUSH', order, seq .. ' ' .. sid)
redis.call('SADD', sess, sid)
return seq
`)

// readScript returns the entries of a session (ARGV[1], or every one's
// for *) from ARGV[2] on, as sequence number and data, one after the
// other.
var readScript = rueidis.NewLuaScript(`
local ids = {ARGV[1]}
if ARGV[1] == '*' then ids = redis.call('SMEMBERS', KEYS[1]) end
local out = {}
for _, id in ipairs(ids) do
  for _, e in ipairs(redis.call('XRANGE', ARGV[3] .. id, ARGV[2], '+')) do
    out[#out + 1] = string.match(e[1], '^(%d+)')
    out[#out + 1] = e[2][2]
  end
end
return out
`)

// clearScript empties the journal of a session (ARGV[1], or every one's
// for *): KEYS the sessions, meta, lost and the order.
var clearScript = rueidis.NewLuaScript(`
local sess, meta, lostk, order, prefix = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2]
if ARGV[1] == '*' then
  for _, id in ipairs(redis.call('SMEMBERS', sess)) do redis.call('DEL', prefix .. id) end
  redis.call('DEL', sess, lostk, order)
  redis.call('HSET', meta, 'bytes', 0)
  return 0
end
local key = prefix .. ARGV[1]
local freed = 0
for _, e in ipairs(redis.call('XRANGE', key, '-', '+')) do freed = freed + tonumber(e[2][4]) end
redis.call('DEL', key)
redis.call('SREM', sess, ARGV[1])
redis.call('HDEL', lostk, ARGV[1])
redis.call('HINCRBY', meta, 'bytes', -freed)
return freed
`)

// lostScript is the newest entry lost of a session, or of every one.
var lostScript = rueidis.NewLuaScript(`
if ARGV[1] ~= '*' then return tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') end
local n = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do n = math.max(n, tonumber(v)) end
return n
`)

// Journal is the fleet's journal, for journal.Journals.SetShared.
func (s *Store) Journal() journal.Shared { return sharedJournal{s} }

type sharedJournal struct{ s *Store }

// do runs a script for the journal within the store's timeout, noting
// whether Redis answered; its error is the API's 503 store_unavailable.
func (sj sharedJournal) do(parent context.Context, sc *rueidis.Lua, keys, args []string) (rueidis.RedisResult, error) {
	ctx, cancel := context.WithTimeout(parent, sj.s.timeout())
	defer cancel()
	res := sc.Exec(ctx, sj.s.client, keys, args)
	if err := res.Error(); err != nil && !rueidis.IsRedisNil(err) {
		if parent.Err() != nil {
			return res, parent.Err() // the caller went
		}
		sj.s.failed(err)
		return res, ErrUnavailable()
	}
	sj.s.reached()
	return res, nil
}

func (sj sharedJournal) key(part string) string { return sj.s.key("j:" + part) }

func (sj sharedJournal) Append(ctx context.Context, sid string, data []byte, kept int64, b journal.Bounds) (int64, error) {
	res, err := sj.do(ctx, appendScript,
		[]string{sj.key("s:" + sid), sj.key("order"), sj.key("meta"), sj.key("lost"), sj.key("sessions")},
		[]string{sid, string(data), strconv.FormatInt(kept, 10), strconv.Itoa(b.Size),
			strconv.FormatInt(b.Bytes, 10), strconv.Itoa(b.Entries), sj.key("s:")})
	if err != nil {
		return 0, err
	}
	return res.AsInt64()
}

func (sj sharedJournal) Read(ctx context.Context, scope string, since int64) ([]journal.Stored, error) {
	res, err := sj.do(ctx, readScript, []string{sj.key("sessions")},
		[]string{scope, strconv.FormatInt(since+1, 10) + "-0", sj.key("s:")})
	if err != nil {
		return nil, err
	}
	arr, err := res.ToArray()
	if err != nil {
		return nil, err
	}
	out := make([]journal.Stored, 0, len(arr)/2)
	for i := 0; i+1 < len(arr); i += 2 {
		seqs, err1 := arr[i].ToString()
		data, err2 := arr[i+1].ToString()
		seq, err3 := strconv.ParseInt(seqs, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, journal.Stored{Seq: seq, Data: []byte(data)})
	}
	return out, nil
}

func (sj sharedJournal) Lost(ctx context.Context, scope string) (int64, error) {
	res, err := sj.do(ctx, lostScript, []string{sj.key("lost")}, []string{scope})
	if err != nil {
		return 0, err
	}
	return res.AsInt64()
}

func (sj sharedJournal) Clear(ctx context.Context, scope string) error {
	_, err := sj.do(ctx, clearScript, []string{sj.key("sessions"), sj.key("meta"), sj.key("lost"), sj.key("order")},
		[]string{scope, sj.key("s:")})
	return err
}

func (sj sharedJournal) Seq(parent context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(parent, sj.s.timeout())
	defer cancel()
	n, err := sj.s.client.Do(ctx, sj.s.client.B().Hget().Key(sj.key("meta")).Field("seq").Build()).AsInt64()
	switch {
	case rueidis.IsRedisNil(err):
		sj.s.reached()
		return 0, nil
	case err != nil && parent.Err() != nil:
		return 0, parent.Err() // the caller went
	case err != nil:
		sj.s.failed(err)
		return 0, ErrUnavailable()
	}
	sj.s.reached()
	return n, nil
}
