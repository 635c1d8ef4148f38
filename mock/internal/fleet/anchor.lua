-- anchorScript returns the anchor in KEYS[1] if it lies between ARGV[1]
-- and ARGV[3], else sets it to ARGV[2] (now) and returns that. It is one
-- script so that replicas starting together agree on one anchor.
local t = redis.call('GET', KEYS[1])
if t and string.match(t, '^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$') and t >= ARGV[1] and t <= ARGV[3] then return t end
redis.call('SET', KEYS[1], ARGV[2])
return ARGV[2]
