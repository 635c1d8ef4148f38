-- busyScript returns how many session locks are held (locks, KEYS[1]),
-- after dropping the expired.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now())
return redis.call('ZCARD', KEYS[1])
