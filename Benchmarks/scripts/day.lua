-- wrk: replays the day `tollgate-bench scale-day` wrote, one file per thread (day-N.tsv: route,
-- method, path, body, client address a line), thread N from line N of BENCH_OFFSETS (a comma-
-- separated list) on. With BENCH_RATE the threads together send that many requests a second on a
-- schedule kept by the clock (as a fleet of devices would, whatever the answers' latency; a
-- thread behind its schedule sends at once until it has caught up); without it, as fast as answers
-- come. The route travels in X-Bench-Route so the proxy's access log can time each route; the
-- client address in X-Forwarded-For, as a device behind the proxy would appear.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *now);
]]
local clock = ffi.new("bench_timespec")
local function milliseconds()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local requests = {}
local position = 0
local counter = 0
local rate = tonumber(os.getenv("BENCH_RATE") or "0")
local threads = tonumber(os.getenv("BENCH_THREADS") or "1")
local next_at = nil

setup = function(thread)
  counter = counter + 1
  thread:set("number", counter)
end

init = function(args)
  local key = os.getenv("BENCH_KEY")
  local file = os.getenv("BENCH_DAY") .. "/day-" .. number .. ".tsv"
  for line in io.lines(file) do
    local route, method, path, body, client = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
    local headers = { ["X-Bench-Route"] = route, ["X-Forwarded-For"] = client }
    if path:sub(1, 8) == "/v1/sdk/" then headers["Authorization"] = "Api-Key " .. key end
    if body ~= "" then headers["Content-Type"] = "application/json" else body = nil end
    requests[#requests + 1] = wrk.format(method, path, headers, body)
  end
  local offsets = {}
  for value in string.gmatch(os.getenv("BENCH_OFFSETS") or "0", "[^,]+") do offsets[#offsets + 1] = tonumber(value) end
  position = (offsets[number] or 0) % #requests
end

request = function()
  position = position % #requests + 1
  return requests[position]
end

delay = function()
  if rate <= 0 then return 0 end
  local now = milliseconds()
  next_at = (next_at or now) + threads * 1000 / rate
  if next_at <= now then return 0 end
  return next_at - now
end
