-- lostScript is the newest entry lost of a session (KEYS[1], the lost
-- hash), or of every one (KEYS[2], meta: kept there, a session's going
-- with its stream).
if ARGV[1] ~= '*' then return tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') end
return tonumber(redis.call('HGET', KEYS[2], 'lost') or '0')
