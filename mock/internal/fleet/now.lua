-- now.lua defines now(), Redis's clock in ms, for the scripts that
-- name it before them.
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
