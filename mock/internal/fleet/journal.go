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
// with its encoding (d) and, when its response is kept apart, the
// response's hash (h); j:b:H, a response body kept once for all the
// entries that answered it (H a hash of its bytes: the default page is
// the same bytes request after request), and j:bref, a hash of how many
// entries refer to each, the body going with the last of them; j:z:ID,
// a list of "SEQ N" or "SEQ N H" of the session's entries, oldest
// first, N what each counts against the byte budget (some may be gone
// already: XDEL says which are not); j:order, a list of "SEQ N H ID"
// (H "-" for none) of every entry, oldest first, which bounds the
// entries of all sessions and says which goes first; j:meta, a hash of
// seq (the last sequence number given), bytes (what the entries kept
// count together) and lost (the newest sequence number any session lost
// to the bounds); j:lost, a hash of the newest sequence number each
// session with a stream lost to the bounds (going with its stream);
// j:sessions, the set of sessions with a
// stream. A script does each step whole, so the bounds hold for the
// fleet at every moment, and never reads an entry's data back to drop
// it. An entry counts its response whole against the byte budget even
// when it shares the body with others (as in memory): the bytes Redis
// keeps are at most the bytes counted. The streams have no TTL: a
// session's journal goes with a reset, a clear or the bounds (the oldest
// entries go first), not with the session's expiry.

// scriptLib is what the journal's steps share: z and order items taken
// apart, and the bodies' references counted in the step (ref), written
// at its end with the bodies no entry refers to any more (sweep), so
// that a body found at the step's start is there until its end.
const scriptLib = `
local function zitem(it)
  local a = string.find(it, ' ', 1, true)
  local b = string.find(it, ' ', a + 1, true)
  if not b then return tonumber(string.sub(it, 1, a - 1)), tonumber(string.sub(it, a + 1)), '' end
  return tonumber(string.sub(it, 1, a - 1)), tonumber(string.sub(it, a + 1, b - 1)), string.sub(it, b + 1)
end
local delta = {}
local function ref(h, d)
  if h ~= '' and h ~= '-' then delta[h] = (delta[h] or 0) + d end
end
local function sweep(bref, bp)
  for h, d in pairs(delta) do
    local c
    if d ~= 0 then c = redis.call('HINCRBY', bref, h, d) else c = tonumber(redis.call('HGET', bref, h) or '0') end
    if c <= 0 then
      redis.call('HDEL', bref, h)
      redis.call('DEL', bp .. h)
    end
  end
end
`

// appendScript keeps entries, one after the other: KEYS the order,
// meta, lost, sessions and the bodies' references; ARGV a session's
// size, the bytes and entries of all, the streams', the size lists' and
// the bodies' prefixes, then each entry's session id, data, bytes,
// response hash ("" for none) and body ("" when the replica believes
// Redis has it). It returns their sequence numbers, 0 for an entry whose
// body Redis has not (nothing kept: the replica sends it again with its
// body). The items of the size lists and of the order go in at the end
// of the step, one push a list (pz, po), taken from there by the drops
// of the step when the lists in Redis are empty.
var appendScript = rueidis.NewLuaScript(scriptLib + `
local order, meta, lostk, sess, bref = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local size, maxb, maxe, sp, zp, bp = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local bytes = tonumber(redis.call('HGET', meta, 'bytes') or '0')
local norder = redis.call('LLEN', order)
local lens, lost, pz, po = {}, {}, {}, {}
local function slen(id)
  if not lens[id] then lens[id] = redis.call('XLEN', sp .. id) end
  return lens[id]
end
local function lose(id, s)
  if s > (lost[id] or 0) then lost[id] = s end
end
local sid
-- A stream loses its entries oldest first (both lists give them in
-- order): once entry s of a session went, any older one is gone too,
-- and low says so without asking.
local low = {}
-- the sessions whose stream went in the step
local gone = {}
-- drop removes entry s of session id, if still there, freeing n bytes
local function drop(id, s, n, h)
  if low[id] and s < low[id] then return end
  local l = slen(id)
  if redis.call('XDEL', sp .. id, s .. '-0') == 0 then return end
  low[id] = s + 1
  bytes = bytes - n
  lens[id] = l - 1
  ref(h, -1)
  lose(id, s)
  -- its size item goes too, with any older one: the list pops only while
  -- the stream is full, and a session losing entries to the fleet's
  -- bounds would keep one item more each time
  local zk = zp .. id
  while true do
    local head = redis.call('LINDEX', zk, 0)
    if head then
      if zitem(head) > s then break end
      redis.call('LPOP', zk)
    else
      local p = pz[id]
      if not p or not p[1] or zitem(p[1]) > s then break end
      table.remove(p, 1)
    end
  end
  if id ~= sid and lens[id] == 0 then
    gone[id] = true
    redis.call('DEL', sp .. id, zp .. id)
    redis.call('SREM', sess, id)
    pz[id] = nil
  end
end
local function popOrder()
  local it = redis.call('LPOP', order) or table.remove(po, 1)
  if not it then return false end
  norder = norder - 1
  local s, n, rest = zitem(it)
  local c = string.find(rest, ' ', 1, true)
  if not c then drop(rest, s, n, '') else drop(string.sub(rest, c + 1), s, n, string.sub(rest, 1, c - 1)) end
  return true
end
local function add(seq, data, kept, h)
  if size <= 0 or maxe <= 0 or kept > maxb then
    lose(sid, seq)
    return
  end
  while slen(sid) >= size do
    local it = redis.call('LPOP', zp .. sid) or (pz[sid] and table.remove(pz[sid], 1))
    if not it then break end
    local s, n, zh = zitem(it)
    drop(sid, s, n, zh)
  end
  while bytes + kept > maxb do
    if not popOrder() then
      lose(sid, seq)
      return
    end
  end
  while norder >= maxe do popOrder() end
  local zi, oh = seq .. ' ' .. kept, '-'
  if h ~= '' then
    redis.call('XADD', sp .. sid, seq .. '-0', 'd', data, 'h', h)
    zi, oh = zi .. ' ' .. h, h
    ref(h, 1)
  else
    redis.call('XADD', sp .. sid, seq .. '-0', 'd', data)
  end
  pz[sid] = pz[sid] or {}
  table.insert(pz[sid], zi)
  table.insert(po, seq .. ' ' .. kept .. ' ' .. oh .. ' ' .. sid)
  norder = norder + 1
  lens[sid] = slen(sid) + 1
  bytes = bytes + kept
end
-- the bodies sent, and the entries whose body Redis has not
local have = {}
for i = 7, #ARGV, 5 do
  local h, body = ARGV[i + 3], ARGV[i + 4]
  if body ~= '' and not have[h] then
    redis.call('SET', bp .. h, body, 'NX')
    have[h] = true
    ref(h, 0) -- gone at the end if no entry refers to it
  end
end
local out, ok = {}, 0
for i = 7, #ARGV, 5 do
  local h = ARGV[i + 3]
  if h ~= '' and have[h] == nil then have[h] = redis.call('EXISTS', bp .. h) == 1 end
  if h == '' or have[h] then
    out[#out + 1] = 1
    ok = ok + 1
  else
    out[#out + 1] = 0
  end
end
if ok > 0 then
  local seq = redis.call('HINCRBY', meta, 'seq', ok) - ok
  for k, i in ipairs(out) do
    if i == 1 then
      local a = 7 + 5 * (k - 1)
      sid = ARGV[a]
      seq = seq + 1
      out[k] = seq
      add(seq, ARGV[a + 1], tonumber(ARGV[a + 2]), ARGV[a + 3])
    end
  end
end
for id, items in pairs(pz) do
  if #items > 0 then redis.call('RPUSH', zp .. id, unpack(items)) end
end
if #po > 0 then redis.call('RPUSH', order, unpack(po)) end
sweep(bref, bp)
-- A session's lost goes with its stream (else the hash keeps a field
-- for every session ever seen); the fleet's, for *, is in meta.
local maxlost = 0
for id, s in pairs(lost) do
  maxlost = math.max(maxlost, s)
  if gone[id] and lens[id] == 0 then
    redis.call('HDEL', lostk, id)
  elseif s > tonumber(redis.call('HGET', lostk, id) or '0') then
    redis.call('HSET', lostk, id, s)
  end
end
if maxlost > tonumber(redis.call('HGET', meta, 'lost') or '0') then redis.call('HSET', meta, 'lost', maxlost) end
for id, n in pairs(lens) do
  if n > 0 then redis.call('SADD', sess, id) end
end
redis.call('HSET', meta, 'bytes', bytes)
return out
`)

// readScript returns the entries of a session (ARGV[1], or every one's
// for *) from ARGV[2] on, as sequence number, data and response hash
// ("" for none), one after the other, then the bodies of those hashes,
// as hash and body.
var readScript = rueidis.NewLuaScript(`
local ids = {ARGV[1]}
if ARGV[1] == '*' then ids = redis.call('SMEMBERS', KEYS[1]) end
local out, bodies, seen = {}, {}, {}
for _, id in ipairs(ids) do
  for _, e in ipairs(redis.call('XRANGE', ARGV[3] .. id, ARGV[2], '+')) do
    local h = e[2][4] or ''
    out[#out + 1] = string.match(e[1], '^(%d+)')
    out[#out + 1] = e[2][2]
    out[#out + 1] = h
    if h ~= '' and not seen[h] then
      seen[h] = true
      bodies[#bodies + 1] = h
      bodies[#bodies + 1] = redis.call('GET', ARGV[4] .. h) or ''
    end
  end
end
return {out, bodies}
`)

// clearScript empties the journal of a session (ARGV[1], or every one's
// for *): KEYS the sessions, meta, lost, the order and the bodies'
// references; ARGV[2], [3] and [4] the streams', size lists' and
// bodies' prefixes.
var clearScript = rueidis.NewLuaScript(scriptLib + `
local sess, meta, lostk, order, bref, sp, zp, bp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], ARGV[4]
if ARGV[1] == '*' then
  for _, id in ipairs(redis.call('SMEMBERS', sess)) do redis.call('DEL', sp .. id, zp .. id) end
  for _, h in ipairs(redis.call('HKEYS', bref)) do redis.call('DEL', bp .. h) end
  redis.call('DEL', sess, lostk, order, bref)
  redis.call('HSET', meta, 'bytes', 0)
  redis.call('HDEL', meta, 'lost')
  return 0
end
local id = ARGV[1]
local freed = 0
for _, it in ipairs(redis.call('LRANGE', zp .. id, 0, -1)) do
  local s, n, h = zitem(it)
  if redis.call('XDEL', sp .. id, s .. '-0') == 1 then
    freed = freed + n
    ref(h, -1)
  end
end
sweep(bref, bp)
redis.call('DEL', sp .. id, zp .. id)
redis.call('SREM', sess, id)
redis.call('HDEL', lostk, id)
redis.call('HINCRBY', meta, 'bytes', -freed)
return freed
`)

// lostScript is the newest entry lost of a session (KEYS[1], the lost
// hash), or of every one (KEYS[2], meta: kept there, a session's going
// with its stream).
var lostScript = rueidis.NewLuaScript(`
if ARGV[1] ~= '*' then return tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') end
return tonumber(redis.call('HGET', KEYS[2], 'lost') or '0')
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
// that a replica under load pays one script run for many requests. It
// returns once the step ran (within the store's timeout, whatever ctx
// says), so that data and resp are the caller's again.
func (sj sharedJournal) Append(_ context.Context, sid string, data, resp []byte, kept int64, b journal.Bounds) (int64, error) {
	req := &appendReq{sid: sid, data: data, resp: resp, kept: kept, b: b, done: make(chan struct{})}
	req.hash, req.send = sj.s.bodies.hash(resp)
	if !sj.s.app.push(req) {
		sj.flush([]*appendReq{req}) // no step ran: this one runs at once
		if batch := sj.s.app.next(); batch != nil {
			go sj.drain(batch) // the entries that came meanwhile, while more come
		}
	}
	<-req.done
	return req.seq, req.err
}

// drain runs the steps of the entries waiting, batch first, until none
// waits.
func (sj sharedJournal) drain(batch []*appendReq) {
	for ; batch != nil; batch = sj.s.app.next() {
		sj.flush(batch)
	}
}

// flush runs one step for the entries of batch, and tells each; the
// entries whose body Redis had not (it went with its last entry since
// this replica sent it) go again, with their body, in one more step.
func (sj sharedJournal) flush(batch []*appendReq) {
	b := batch[0].b
	args := make([]string, 0, 6+5*len(batch))
	args = append(args, strconv.Itoa(b.Size), strconv.FormatInt(b.Bytes, 10), strconv.Itoa(b.Entries),
		sj.key("s:"), sj.key("z:"), sj.key("b:"))
	var sending map[string]bool // the bodies this step sends, once each
	for _, r := range batch {
		body := ""
		if r.send && !sending[r.hash] {
			body = rueidis.BinaryString(r.resp)
			if sending == nil {
				sending = make(map[string]bool)
			}
			sending[r.hash] = true
		}
		data := r.data
		if r.hash == "" {
			data = append(data, r.resp...) // kept inline: the caller's buffer, which it lent
		}
		args = append(args, r.sid, rueidis.BinaryString(data), strconv.FormatInt(r.kept, 10), r.hash, body)
	}
	res, err := sj.do(context.Background(), appendScript,
		[]string{sj.key("order"), sj.key("meta"), sj.key("lost"), sj.key("sessions"), sj.key("bref")}, args)
	var seqs []int64
	if err == nil {
		seqs, err = res.AsIntSlice()
	}
	var again []*appendReq
	for i, r := range batch {
		switch {
		case err == nil && i < len(seqs) && seqs[i] == 0 && !r.send:
			sj.s.bodies.gone(r.hash)
			r.send = true
			again = append(again, r)
			continue
		case err == nil && i < len(seqs) && seqs[i] > 0:
			r.seq = seqs[i]
			if r.send {
				sj.s.bodies.sent(r.hash)
			}
		default:
			r.err = err
			if r.err == nil {
				r.err = ErrUnavailable() // not the answer a step gives
			}
		}
		close(r.done)
	}
	if again != nil {
		sj.flush(again)
	}
}

// appendReq is one entry waiting for its step.
type appendReq struct {
	sid  string
	data []byte
	resp []byte
	hash string // resp's, when kept apart (bodyCache); "" for inline
	send bool   // resp goes with the entry: Redis may not have it
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
		[]string{scope, strconv.FormatInt(since+1, 10) + "-0", sj.key("s:"), sj.key("b:")})
	if err != nil {
		return nil, err
	}
	parts, err := res.ToArray()
	if err != nil || len(parts) != 2 {
		return nil, ErrUnavailable() // not the answer a step gives
	}
	arr, _ := parts[0].ToArray()
	pairs, _ := parts[1].ToArray()
	bodies := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		h, _ := pairs[i].ToString()
		bodies[h], _ = pairs[i+1].ToString()
	}
	out := make([]journal.Stored, 0, len(arr)/3)
	for i := 0; i+2 < len(arr); i += 3 {
		seqs, err1 := arr[i].ToString()
		data, err2 := arr[i+1].ToString()
		h, err3 := arr[i+2].ToString()
		seq, err4 := strconv.ParseInt(seqs, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, journal.Stored{Seq: seq, Data: []byte(data + bodies[h])})
	}
	return out, nil
}

func (sj sharedJournal) Lost(ctx context.Context, scope string) (int64, error) {
	res, err := sj.do(ctx, lostScript, []string{sj.key("lost"), sj.key("meta")}, []string{scope})
	if err != nil {
		return 0, err
	}
	return res.AsInt64()
}

func (sj sharedJournal) Clear(ctx context.Context, scope string) error {
	_, err := sj.do(ctx, clearScript,
		[]string{sj.key("sessions"), sj.key("meta"), sj.key("lost"), sj.key("order"), sj.key("bref")},
		[]string{scope, sj.key("s:"), sj.key("z:"), sj.key("b:")})
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
