-- lockScript takes a session's lock (KEYS[1]) for a token (ARGV[1]) for
-- ARGV[2] ms, and lists it in locks (KEYS[3]). It returns 1 if taken, 0
-- if the lock or lock-all (KEYS[2]) is held.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[3], now() + tonumber(ARGV[2]), KEYS[1])
return 1
