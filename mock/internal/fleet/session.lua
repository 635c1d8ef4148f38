-- sessionScript writes one session's document ("" deletes it) and moves
-- its version on in the same step, so a version names one document. It
-- then evicts sessions past the TTL, and the least recently used past
-- MaxSessions (ARGV[4]) or MaxBytes (ARGV[8]), but the one written, the
-- default session and those whose lock is held. It returns the new
-- version; without writing, -1 if the document would not fit, lockLost
-- (-2) if the writer's token (ARGV[10]) holds neither the session's lock
-- (KEYS[6]) nor lock-all (KEYS[7]). keep.go defines maxEvictions before
-- it.
if redis.call('GET', KEYS[6]) ~= ARGV[10] and redis.call('GET', KEYS[7]) ~= ARGV[10] then return -2 end
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
-- An evicted session's version moves on, so replicas reload it and
-- find nothing; when and why it went is kept for its next request
-- (evictedScript), the newest maxEvictions.
local function evict(o, why)
  redis.call('ZREM', KEYS[3], o)
  redis.call('DEL', ARGV[6] .. 's:' .. o)
  redis.call('INCR', ARGV[6] .. 'v:' .. o)
  redis.call('PEXPIRE', ARGV[6] .. 'v:' .. o, ttl)
  forget(o)
  redis.call('HSET', ARGV[6] .. 'evicted', o, now .. ' ' .. why)
  redis.call('ZADD', ARGV[6] .. 'evictedq', now, o)
end
local v = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now * 1000)
redis.call('SET', KEYS[1], string.format('%d', v))
forget(id)
redis.call('HDEL', ARGV[6] .. 'evicted', id) -- written again: it starts anew
redis.call('ZREM', ARGV[6] .. 'evictedq', id)
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
  if o ~= id then evict(o, 'ttl') end
end
-- spare reports whether session o may be evicted.
local function spare(o)
  return o ~= id and o ~= ARGV[9] and redis.call('EXISTS', ARGV[6] .. 'lock:' .. o) == 0
end
local function fits() return tonumber(redis.call('GET', KEYS[5]) or '0') <= budget end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if over > 0 or not fits() then
  for _, o in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if over <= 0 and fits() then break end
    if spare(o) then
      if over > 0 then evict(o, 'sessions') else evict(o, 'memory') end
      over = over - 1
    end
  end
end
local extra = redis.call('ZCARD', ARGV[6] .. 'evictedq') - maxEvictions
if extra > 0 then
  for _, o in ipairs(redis.call('ZRANGE', ARGV[6] .. 'evictedq', 0, extra - 1)) do
    redis.call('HDEL', ARGV[6] .. 'evicted', o)
  end
  redis.call('ZREMRANGEBYRANK', ARGV[6] .. 'evictedq', 0, extra - 1)
end
return v
