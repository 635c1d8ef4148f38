-- touchScript extends a session's TTL if Redis still has it. A session
-- that expired or was evicted meanwhile stays gone.
if redis.call('ZSCORE', KEYS[3], ARGV[1]) and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('ZADD', KEYS[3], 'XX', ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 0
