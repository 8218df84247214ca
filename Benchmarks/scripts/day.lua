-- wrk: replays the day `tollgate-bench scale-day` wrote, one file per thread (day-N.tsv: route,
-- method, path, body, client address a line), from line BENCH_OFFSET on; each connection waits
-- BENCH_DELAY_MS between requests (0: as fast as answers come). The route travels in
-- X-Bench-Route so the proxy's access log can time each route; the client address in
-- X-Forwarded-For, as a device behind the proxy would appear.
local requests = {}
local position = 0
local counter = 0
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")

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
  position = tonumber(os.getenv("BENCH_OFFSET") or "0") % #requests
end

request = function()
  position = position % #requests + 1
  return requests[position]
end

delay = function()
  return pause
end
