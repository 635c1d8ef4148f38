-- readsScript adds one to the reads since the write ARGV[2] that field
-- r of a session's hash (KEYS[1]) counts, "WRITE N", starting again at
-- a new write, and returns it. ARGV[3] is the TTL in ms.
local n = 1
local cur = redis.call('HGET', KEYS[1], 'r')
if cur then
  local at, c = string.match(cur, '^(%S+) (%d+)$')
  if at == ARGV[2] then n = tonumber(c) + 1 end
end
redis.call('HSET', KEYS[1], 'r', ARGV[2] .. ' ' .. n)
local ttl = tonumber(ARGV[3])
if ttl ~= 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
counted(ttl)
return n
