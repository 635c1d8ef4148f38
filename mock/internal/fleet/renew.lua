-- renewScript extends a lock (KEYS[1]) if the token still holds it, and
-- its item in locks (KEYS[2]) if any. lock-all has none.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('ZADD', KEYS[2], 'XX', now() + tonumber(ARGV[2]), KEYS[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
