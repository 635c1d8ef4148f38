-- serverScript writes the server's state and moves its version on. A
-- version is never below the writer's clock in µs, so a Redis that lost
-- its data never hands out a version a replica already holds. It
-- returns lockLost (-2) without writing if the writer's token (ARGV[3]) no
-- longer holds lock-all (KEYS[3]).
if redis.call('GET', KEYS[3]) ~= ARGV[3] then return -2 end
redis.call('SET', KEYS[2], ARGV[1])
local v = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, tonumber(ARGV[2]) * 1000)
redis.call('SET', KEYS[1], string.format('%d', v))
return v
