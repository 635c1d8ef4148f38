-- evictedScript takes, once, when and why session ARGV[1] left Redis:
-- "ms why", evicted by sessionScript, or "ms ttl" for a session whose
-- keys expired before a write swept it out (its ids entry, older than
-- ARGV[2], remains). It returns false for a session that never left.
local e = redis.call('HGET', KEYS[1], ARGV[1])
if e then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return e
end
local at = redis.call('ZSCORE', KEYS[3], ARGV[1])
if at and tonumber(at) < tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[3], ARGV[1])
  return string.format('%d', tonumber(at) + tonumber(ARGV[3])) .. ' ttl'
end
return false
