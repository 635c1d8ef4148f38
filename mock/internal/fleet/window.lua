-- windowScript counts a request in a rate limit's window, by Redis's
-- clock so the fleet shares one clock. It returns the count and the ms
-- until the window ends.
local t = now()
local win = tonumber(ARGV[3])
local s = tonumber(redis.call('HGET', KEYS[1], 's:' .. ARGV[2]) or '-1')
if s < 0 or t - s >= win then
  s = t
  redis.call('HSET', KEYS[1], 's:' .. ARGV[2], s, 'n:' .. ARGV[2], 0)
end
local n = redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[2], 1)
local ttl = tonumber(ARGV[4])
if ttl ~= 0 then
  ttl = math.max(ttl, win)
  redis.call('PEXPIRE', KEYS[1], ttl)
end
counted(ttl)
return {n, s + win - t}
