-- clearScript empties the journal of a session (ARGV[1], or every one's
-- for *): KEYS the sessions, meta, lost, the order and the bodies'
-- references; ARGV[2], [3] and [4] the streams', size lists' and
-- bodies' prefixes.
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
local freed, refs = 0, {}
for _, it in ipairs(redis.call('LRANGE', zp .. id, 0, -1)) do
  local s, n, h = string.match(it, '^(%d+) (%d+) ?(.*)$')
  if redis.call('XDEL', sp .. id, s .. '-0') == 1 then
    freed = freed + tonumber(n)
    if h ~= '' then refs[h] = (refs[h] or 0) + 1 end
  end
end
-- a body goes with the last entry referring to it
for h, d in pairs(refs) do
  if redis.call('HINCRBY', bref, h, -d) <= 0 then
    redis.call('HDEL', bref, h)
    redis.call('DEL', bp .. h)
  end
end
redis.call('DEL', sp .. id, zp .. id)
redis.call('SREM', sess, id)
redis.call('HDEL', lostk, id)
if freed > 0 then redis.call('HINCRBY', meta, 'bytes', string.format('%d', -freed)) end
return freed
