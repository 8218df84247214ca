-- wrk: placement resolution for stored profiles across the 10 placements.
-- BENCH_MODE picks what a request asks:
--   mixed (default)  a random profile and placement: first exposures and returning ones mixed
--   first            a (profile, placement) pair not asked before, from profile BENCH_RETURNING on,
--                    each thread its own share: every request writes an assignment
--   warm             the first BENCH_RETURNING profiles × 10 placements in order, over and over
--   returning        a random pair among the first BENCH_RETURNING profiles (warmed before): every
--                    assignment is stored already, as for an app's returning users
local ids = {}
local key = os.getenv("BENCH_KEY")
local mode = os.getenv("BENCH_MODE") or "mixed"
local returning = tonumber(os.getenv("BENCH_RETURNING") or "10000")
local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
local created = 0
local counter = 0

setup = function(thread)
  thread:set("tid", created)
  created = created + 1
end

-- The returning profiles' requests, written once: the load generator shares the machine's cores
-- with the server, and formatting each request in Lua cost it about as much CPU as the server
-- spent answering (the default-audience run sends one fixed request and formats nothing).
local written = {}

local function pair(k)
  return ids[math.floor(k / 10) + 1], "p" .. (k % 10)
end

local function format(id, placement)
  return wrk.format("GET", "/v1/sdk/placements/" .. placement .. "/flow?profile_id=" .. id,
    { ["Authorization"] = "Api-Key " .. key })
end

init = function(args)
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
  returning = math.min(returning, #ids)
  math.randomseed(os.time() + (tid or 0) * 7919 + math.random(1000))
  if mode == "returning" or mode == "warm" then
    for k = 0, returning * 10 - 1 do written[k] = format(pair(k)) end
  end
end

request = function()
  local id, placement
  local k = (tid or 0) + counter * threads
  counter = counter + 1
  if mode == "warm" then
    return written[k % (returning * 10)]
  elseif mode == "returning" then
    return written[math.random(0, returning * 10 - 1)]
  elseif mode == "first" then
    id, placement = pair(returning * 10 + k % ((#ids - returning) * 10))
  else
    id, placement = ids[math.random(#ids)], "p" .. math.random(0, 9)
  end
  return format(id, placement)
end
