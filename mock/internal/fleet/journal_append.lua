-- appendScript stores a batch of entries, each as if stored alone, and
-- drops the oldest entries the bounds no longer allow. It returns the
-- entries' sequence numbers, or 0 for an entry whose body Redis does
-- not have: the replica sends that one again with its body.
--
-- KEYS: order, meta, lost, sessions, bref. ARGV: the bounds (per
-- session, bytes, entries), the key prefixes of the streams, size lists
-- and bodies, then five per entry: session id, data, bytes counted,
-- body hash ("" for none) and body ("" if Redis should have it).
--
-- It runs on every request of a load test, so it reads each list at
-- most once and writes each key once, at the end. Sequence numbers stay
-- text, so no number is formatted with %.17g. MINID needs Redis 6.2.
local order, meta, lostk, sess, bref = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local size, maxb, maxe = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local sp, zp, bp = ARGV[4], ARGV[5], ARGV[6]
local call, match, fmt, unpack, tonumber = redis.call, string.match, string.format, unpack, tonumber
local find, sub = string.find, string.sub
-- a is a newer sequence number than b (both decimal, no leading zero)
local function newer(a, b) return #a > #b or (#a == #b and a > b) end

-- Store the bodies sent, then mark each entry 1 if Redis has its body,
-- else 0.
local have, fresh, delta = {}, {}, {}
local out, ok, nadd = {}, 0, {}
local nargv = #ARGV
for i = 7, nargv, 5 do
  local h, body = ARGV[i + 3], ARGV[i + 4]
  if body ~= '' and not have[h] then
    call('SET', bp .. h, body, 'NX')
    have[h], fresh[h], delta[h] = true, true, 0
  end
end
for i = 7, nargv, 5 do
  local id, h = ARGV[i], ARGV[i + 3]
  local r = 1
  if h ~= '' then
    if have[h] == nil then have[h] = call('EXISTS', bp .. h) == 1 end
    if not have[h] then r = 0 end
  end
  out[#out + 1] = r
  if r == 1 then
    ok = ok + 1
    nadd[id] = (nadd[id] or 0) + 1
  end
end
-- sweep writes the bodies' references: a body goes with the last entry
-- referring to it, or with the step that set it if none does.
local function sweep()
  for h, d in pairs(delta) do
    local c
    if d ~= 0 then
      c = call('HINCRBY', bref, h, fmt('%d', d))
    elseif fresh[h] then
      c = tonumber(call('HGET', bref, h) or '0')
    end
    if c and c <= 0 then
      call('HDEL', bref, h)
      call('DEL', bp .. h)
    end
  end
end
if ok == 0 then
  sweep()
  return out
end

local seq = call('HINCRBY', meta, 'seq', ok) - ok
local m = call('HMGET', meta, 'bytes', 'lost')
local bytes = tonumber(m[1] or '0')
-- The order: olen items in Redis at the start, ooff of them taken by
-- the step, onb read (obuf); then opend, the step's items (from oph).
local olen = call('LLEN', order)
local norder, ooff, onb, obuf, opend, oph = olen, 0, 0, {}, {}, 1
-- A session, S[id]: zlen size items in Redis at the start (nil: more
-- than read so far), off of them dropped by the step, nb read (at 3k-2,
-- 3k-1 and 3k: the k-th's sequence number, bytes and hash); then p, the
-- step's entries (at 5i-4 to 5i: sequence number, bytes, hash, data and
-- size item), from p1 on, np in all. cnt: how many it has (once zlen
-- is known); last: the newest dropped; lost: the newest lost.
local S = {}
local function session(id)
  local x = {off = 0, nb = 0, p1 = 1, np = 0}
  S[id] = x
  return x
end
-- zdrop drops the oldest entry of session x if it is s or older (any
-- with s nil), reading n size items at once if it must read; it returns
-- the one dropped, or false.
local function zdrop(x, id, s, n)
  local off, hs, k, h = x.off
  if off >= x.nb and (x.zlen == nil or off < x.zlen) then
    local nb = x.nb
    local got = call('LRANGE', zp .. id, fmt('%d', nb), fmt('%d', nb + n - 1))
    for i = 1, #got do
      local j = 3 * (nb + i)
      x[j - 2], x[j - 1], x[j] = match(got[i], '^(%d+) (%d+) ?(.*)$')
    end
    x.nb = nb + #got
    if #got < n then x.zlen = x.nb end
  end
  if off < x.nb then
    local j = 3 * off + 3
    hs = x[j - 2]
    if s and hs ~= s and newer(hs, s) then return false end
    x.off, k, h = off + 1, tonumber(x[j - 1]), x[j]
  else
    local p, j = x.p, 5 * x.p1
    hs = p and p[j - 4]
    if not hs or (s and hs ~= s and newer(hs, s)) then return false end
    x.p1, k, h = x.p1 + 1, p[j - 3], p[j - 2]
  end
  x.last = hs
  if x.cnt then x.cnt = x.cnt - 1 end
  bytes = bytes - k
  if h ~= '' then delta[h] = (delta[h] or 0) - 1 end
  return hs
end
-- popOrder takes the oldest item of the order and drops its entry if
-- still there (its session's oldest); false when the order is empty.
-- When one session alone had entries at the step's start (the order's
-- other items are gone), the order's items up to ogone are known gone
-- without reading them: the newest of them is older than the newest
-- entry the session dropped.
local alone, ogone = nil, 0
local function gonePast(n)
  if alone == nil then
    alone = false
    if call('SCARD', sess) == 1 then
      for id, x in pairs(S) do
        if x.zlen == nil or x.zlen > 0 then alone = x end
      end
    end
  end
  if not alone or not alone.last then return end
  local k = math.min(n, olen - ooff)
  local it = call('LINDEX', order, fmt('%d', ooff + k - 1))
  if not it then return end
  local s = sub(it, 1, find(it, ' ', 1, true) - 1)
  if s == alone.last or newer(alone.last, s) then ogone = ooff + k end
end
local function popOrder(n)
  local it
  if ooff < olen then
    if ooff >= ogone and ooff >= onb then gonePast(n) end
    if ooff < ogone then
      ooff, norder = ooff + 1, norder - 1
      return true
    end
    if ooff >= onb then
      local got = call('LRANGE', order, fmt('%d', ooff), fmt('%d', ooff + n - 1))
      for i = 1, #got do obuf[ooff + i] = got[i] end
      onb = ooff + #got
    end
    ooff = ooff + 1
    it = obuf[ooff]
  else
    it = opend[oph]
    if not it then return false end
    oph = oph + 1
  end
  norder = norder - 1
  local s, id = match(it, '^(%d+) [^ ]+ [^ ]+ (.+)$')
  local x = S[id] or session(id)
  -- A session loses its entries oldest first: once one went, any older
  -- one is gone too.
  if x.last and (s == x.last or newer(x.last, s)) then return true end
  repeat local hs = zdrop(x, id, s, 2) until not hs or hs == s
  return true
end

-- Each entry kept, one after the other: the bounds make room for it
-- (its session's entries, then all bytes, then all entries), oldest
-- first.
local left = ok
for k, r in ipairs(out) do
  if r == 1 then
    local a = 2 + 5 * k
    local id, kstr, h = ARGV[a], ARGV[a + 2], ARGV[a + 3]
    local kept = tonumber(kstr)
    seq = seq + 1
    out[k] = seq
    local ss = fmt('%d', seq)
    left = left - 1
    local na = nadd[id] - 1
    nadd[id] = na
    local x = S[id] or session(id)
    if x.zlen == nil then x.zlen = call('LLEN', zp .. id) end
    if not x.cnt then x.cnt = x.zlen - x.off + x.np - x.p1 + 1 end
    local keep = size > 0 and maxe > 0 and kept <= maxb
    if keep then
      while x.cnt >= size do
        if not zdrop(x, id, nil, x.cnt - size + na + 1) then break end
      end
      while bytes + kept > maxb do
        if not popOrder(left + 1) then
          keep = false
          break
        end
      end
    end
    if keep then
      while norder >= maxe do popOrder(left + 1) end
      local zi = ss .. ' ' .. kstr
      if h ~= '' then
        zi = zi .. ' ' .. h
        opend[#opend + 1] = zi .. ' ' .. id
        delta[h] = (delta[h] or 0) + 1
      else
        opend[#opend + 1] = zi .. ' - ' .. id
      end
      local p = x.p
      if not p then
        p = {}
        x.p = p
      end
      local j = 5 * x.np
      p[j + 1], p[j + 2], p[j + 3], p[j + 4], p[j + 5] = ss, kept, h, ARGV[a + 1], zi
      x.np, x.cnt = x.np + 1, x.cnt + 1
      norder = norder + 1
      bytes = bytes + kept
    elseif not x.lost or newer(ss, x.lost) then
      x.lost = ss
    end
  end
end

-- What the step changed, written once a key.
if ooff > 0 then call('LTRIM', order, fmt('%d', ooff), '-1') end
if oph <= #opend then call('RPUSH', order, unpack(opend, oph)) end
local maxlost, lostw, gone, dels, added = '0', {}, {}, {}, {}
for id, x in pairs(S) do
  local l = x.last
  if x.lost and (not l or newer(x.lost, l)) then l = x.lost end
  if l and newer(l, maxlost) then maxlost = l end
  local sk, zk = sp .. id, zp .. id
  if x.zlen == nil and x.off >= x.nb and x.p1 > x.np then x.zlen = call('LLEN', zk) end
  if x.zlen and x.zlen - x.off + x.np - x.p1 + 1 == 0 then
    if x.zlen > 0 then -- the session's journal is empty: it goes
      dels[#dels + 1], dels[#dels + 2] = sk, zk
      gone[#gone + 1] = id
    end
  else
    local p, i1, zi = x.p, x.p1, {}
    if x.off > 0 then
      -- the entries dropped go by a lower bound of the stream's IDs,
      -- with the first added if any (trimmed after it is in); one alone
      -- by its ID
      local minid = fmt('%d', tonumber(x[3 * x.off - 2]) + 1)
      if i1 <= x.np then
        local j = 5 * i1
        if p[j - 2] ~= '' then
          call('XADD', sk, 'MINID', minid, p[j - 4], 'd', p[j - 1], 'h', p[j - 2])
        else
          call('XADD', sk, 'MINID', minid, p[j - 4], 'd', p[j - 1])
        end
        zi[1] = p[j]
        i1 = i1 + 1
      elseif x.off == 1 then
        call('XDEL', sk, x[1])
      else
        call('XTRIM', sk, 'MINID', minid)
      end
      call('LTRIM', zk, fmt('%d', x.off), '-1')
    end
    for i = i1, x.np do
      local j = 5 * i
      if p[j - 2] ~= '' then
        call('XADD', sk, p[j - 4], 'd', p[j - 1], 'h', p[j - 2])
      else
        call('XADD', sk, p[j - 4], 'd', p[j - 1])
      end
      zi[#zi + 1] = p[j]
    end
    if #zi > 0 then
      call('RPUSH', zk, unpack(zi))
      if x.zlen == 0 then added[#added + 1] = id end
    end
    if l then lostw[#lostw + 1], lostw[#lostw + 2] = id, l end
  end
end
if #dels > 0 then
  call('DEL', unpack(dels))
  call('SREM', sess, unpack(gone))
  call('HDEL', lostk, unpack(gone))
end
if #added > 0 then call('SADD', sess, unpack(added)) end
if #lostw > 0 then
  -- a session's lost only grows (an entry too large for the bounds may
  -- be newer than those dropped after it)
  local ids = {}
  for i = 1, #lostw, 2 do ids[#ids + 1] = lostw[i] end
  local was, w = call('HMGET', lostk, unpack(ids)), {}
  for i = 1, #ids do
    local l = lostw[2 * i]
    if not was[i] or newer(l, was[i]) then w[#w + 1], w[#w + 2] = ids[i], l end
  end
  if #w > 0 then call('HSET', lostk, unpack(w)) end
end
sweep()
-- the bytes all entries keep, and the newest entry lost by any
if maxlost ~= '0' and newer(maxlost, m[2] or '0') then
  call('HSET', meta, 'bytes', fmt('%d', bytes), 'lost', maxlost)
else
  call('HSET', meta, 'bytes', fmt('%d', bytes))
end
return out
