-- readScript returns the entries of a session (ARGV[1], or every one's
-- for *) from ARGV[2] on, as sequence number, data and response hash
-- ("" for none), one after the other, then the bodies of those hashes,
-- as hash and body.
local ids = {ARGV[1]}
if ARGV[1] == '*' then ids = redis.call('SMEMBERS', KEYS[1]) end
local out, bodies, seen = {}, {}, {}
for _, id in ipairs(ids) do
  for _, e in ipairs(redis.call('XRANGE', ARGV[3] .. id, ARGV[2], '+')) do
    local h = e[2][4] or ''
    out[#out + 1] = string.match(e[1], '^(%d+)')
    out[#out + 1] = e[2][2]
    out[#out + 1] = h
    if h ~= '' and not seen[h] then
      seen[h] = true
      bodies[#bodies + 1] = h
      bodies[#bodies + 1] = redis.call('GET', ARGV[4] .. h) or ''
    end
  end
end
return {out, bodies}
