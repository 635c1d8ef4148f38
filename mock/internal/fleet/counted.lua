-- counted.lua, after now.lua, defines counted(ttl), which lists
-- session ARGV[1] in counted (KEYS[2]), expiring in ttl ms (0: never),
-- and drops the expired.
local function counted(ttl)
  local t = now()
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. t)
  if ttl == 0 then
    redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
  else
    redis.call('ZADD', KEYS[2], t + ttl, ARGV[1])
  end
end
