package fleet

import (
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
)

// The fleet's journal (journal.Shared) lives in these keys: j:s:ID, a
// stream per session, each entry under its sequence number ("SEQ-0")
// with its encoding (d); j:z:ID, a list of "SEQ N" of the session's
// entries, oldest first, N what each counts against the byte budget
// (some may be gone already: XDEL says which are not); j:order, a list
// of "SEQ N ID" of every entry, oldest first, which bounds the entries
// of all sessions and says which goes first; j:meta, a hash of seq (the
// last sequence number given) and bytes (what the entries kept count
// together); j:lost, a hash of the newest sequence number each session
// lost to the bounds; j:sessions, the set of sessions with a stream. A
// script does each step whole, so the bounds hold for the fleet at every
// moment, and never reads an entry's data back to drop it. The streams
// have no TTL: a session's journal goes with a reset, a clear or the
// bounds (the oldest entries go first), not with the session's expiry.

// appendScript keeps entries, one after the other: KEYS the order,
// meta, lost and sessions; ARGV a session's size, the bytes and entries
// of all, the streams' and the size lists' prefixes, then each entry's
// session id, data and bytes. It returns their sequence numbers.
var appendScript = rueidis.NewLuaScript(`
local order, meta, lostk, sess = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local size, maxb, maxe, sp, zp = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local bytes = tonumber(redis.call('HGET', meta, 'bytes') or '0')
local function lose(id, s)
  if s > tonumber(redis.call('HGET', lostk, id) or '0') then redis.call('HSET', lostk, id, s) end
end
local sid
-- drop removes entry s of session id, if still there, freeing n bytes
local function drop(id, s, n)
  if redis.call('XDEL', sp .. id, s .. '-0') == 0 then return end
  bytes = bytes - n
  lose(id, s)
  if id ~= sid and redis.call('XLEN', sp .. id) == 0 then
    redis.call('DEL', sp .. id, zp .. id)
    redis.call('SREM', sess, id)
  end
end
local function popOrder()
  local it = redis.call('LPOP', order)
  if not it then return false end
  local a = string.find(it, ' ', 1, true)
  local b = string.find(it, ' ', a + 1, true)
  drop(string.sub(it, b + 1), tonumber(string.sub(it, 1, a - 1)), tonumber(string.sub(it, a + 1, b - 1)))
  return true
end
local function add(data, kept)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  if size <= 0 or maxe <= 0 or kept > maxb then
    lose(sid, seq)
    return seq
  end
  while redis.call('XLEN', sp .. sid) >= size do
    local it = redis.call('LPOP', zp .. sid)
    if not it then break end
    local a = string.find(it, ' ', 1, true)
    drop(sid, tonumber(string.sub(it, 1, a - 1)), tonumber(string.sub(it, a + 1)))
  end
  while bytes + kept > maxb do
    if not popOrder() then
      lose(sid, seq)
      return seq
    end
  end
  while redis.call('LLEN', order) >= maxe do popOrder() end
  redis.call('XADD', sp .. sid, seq .. '-0', 'd', data)
  redis.call('RPUSH', zp .. sid, seq .. ' ' .. kept)
  redis.call('RPUSH', order, seq .. ' ' .. kept .. ' ' .. sid)
  redis.call('SADD', sess, sid)
  bytes = bytes + kept
  return seq
end
local out = {}
for i = 6, #ARGV, 3 do
  sid = ARGV[i]
  out[#out + 1] = add(ARGV[i + 1], tonumber(ARGV[i + 2]))
end
redis.call('HSET', meta, 'bytes', bytes)
return out
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
// for *): KEYS the sessions, meta, lost and the order; ARGV[2] and [3]
// the streams' and size lists' prefixes.
var clearScript = rueidis.NewLuaScript(`
local sess, meta, lostk, order, sp, zp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[3]
if ARGV[1] == '*' then
  for _, id in ipairs(redis.call('SMEMBERS', sess)) do redis.call('DEL', sp .. id, zp .. id) end
  redis.call('DEL', sess, lostk, order)
  redis.call('HSET', meta, 'bytes', 0)
  return 0
end
local id = ARGV[1]
local freed = 0
for _, it in ipairs(redis.call('LRANGE', zp .. id, 0, -1)) do
  local a = string.find(it, ' ', 1, true)
  if redis.call('XDEL', sp .. id, string.sub(it, 1, a - 1) .. '-0') == 1 then freed = freed + tonumber(string.sub(it, a + 1)) end
end
redis.call('DEL', sp .. id, zp .. id)
redis.call('SREM', sess, id)
redis.call('HDEL', lostk, id)
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

// Append keeps an entry with the others of its moment: the entries
// appended while a step runs go together in the next (appender), so
// that a replica under load pays one script run for many requests.
func (sj sharedJournal) Append(ctx context.Context, sid string, data []byte, kept int64, b journal.Bounds) (int64, error) {
	req := &appendReq{sid: sid, data: data, kept: kept, b: b, done: make(chan struct{})}
	if !sj.s.app.push(req) {
		sj.flush([]*appendReq{req}) // no step ran: this one runs at once
		if batch := sj.s.app.next(); batch != nil {
			go sj.drain(batch) // the entries that came meanwhile, while more come
		}
	}
	select {
	case <-req.done:
		return req.seq, req.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// drain runs the steps of the entries waiting, batch first, until none
// waits.
func (sj sharedJournal) drain(batch []*appendReq) {
	for ; batch != nil; batch = sj.s.app.next() {
		sj.flush(batch)
	}
}

// flush runs one step for the entries of batch, and tells each.
func (sj sharedJournal) flush(batch []*appendReq) {
	b := batch[0].b
	args := make([]string, 0, 5+3*len(batch))
	args = append(args, strconv.Itoa(b.Size), strconv.FormatInt(b.Bytes, 10), strconv.Itoa(b.Entries), sj.key("s:"), sj.key("z:"))
	for _, r := range batch {
		args = append(args, r.sid, rueidis.BinaryString(r.data), strconv.FormatInt(r.kept, 10))
	}
	res, err := sj.do(context.Background(), appendScript,
		[]string{sj.key("order"), sj.key("meta"), sj.key("lost"), sj.key("sessions")}, args)
	var seqs []int64
	if err == nil {
		seqs, err = res.AsIntSlice()
	}
	for i, r := range batch {
		if err == nil && i < len(seqs) {
			r.seq = seqs[i]
		} else {
			r.err = err
			if r.err == nil {
				r.err = ErrUnavailable() // not the answer a step gives
			}
		}
		close(r.done)
	}
}

// appendReq is one entry waiting for its step.
type appendReq struct {
	sid  string
	data []byte
	kept int64
	b    journal.Bounds
	seq  int64
	err  error
	done chan struct{}
}

// appender gathers the entries appended while a step runs.
type appender struct {
	mu      sync.Mutex
	queue   []*appendReq
	running bool
}

// maxBatch bounds the entries of one step.
const maxBatch = 64

// push queues req and reports whether a step runs already (which will
// take it); if not, the caller runs the steps until none waits.
func (a *appender) push(req *appendReq) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		a.queue = append(a.queue, req)
		return true
	}
	a.running = true
	return false
}

// next takes the entries waiting for a step (at most maxBatch), or
// reports none, and then no step runs.
func (a *appender) next() []*appendReq {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 {
		a.running = false
		return nil
	}
	n := min(len(a.queue), maxBatch)
	batch := slices.Clone(a.queue[:n])
	a.queue = slices.Delete(a.queue, 0, n)
	return batch
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
		[]string{scope, sj.key("s:"), sj.key("z:")})
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
