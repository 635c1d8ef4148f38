-- epochScript returns the epoch in KEYS[1], first setting it to ARGV[1]
-- if there is none.
local e = redis.call('GET', KEYS[1])
if e then return e end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
