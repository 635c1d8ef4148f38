-- forgetScript deletes session ARGV[2]'s counts (KEYS[1]), or every
-- session's for "*" (ARGV[1] is the hashes' prefix).
if ARGV[2] ~= '*' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return redis.call('DEL', KEYS[1])
end
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do redis.call('DEL', ARGV[1] .. id) end
return redis.call('DEL', KEYS[2])
