-- unlockScript deletes a lock (KEYS[1]) if the token still holds it, and
-- its item in locks (KEYS[2]).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('ZREM', KEYS[2], KEYS[1])
return redis.call('DEL', KEYS[1])
