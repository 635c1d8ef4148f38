-- countScript adds one to field ARGV[2] of a session's hash (KEYS[1])
-- and returns it, never below ARGV[3]+1. ARGV[4] is the TTL in ms.
local n = redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
local base = tonumber(ARGV[3])
if n <= base then
  n = base + 1
  redis.call('HSET', KEYS[1], ARGV[2], n)
end
local ttl = tonumber(ARGV[4])
if ttl ~= 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
counted(ttl)
return n
