-- wrk: Apple Ads attribution ingestion, POST /v1/sdk/profiles/{id}/attribution/apple-ads with
-- `Prefer: respond-async` (202 once the token is queued; the server's worker asks Apple), each
-- request for a profile no token was sent for: BENCH_IDS lists profiles without attribution, and
-- each wrk thread (BENCH_THREADS, as wrk's -t) takes every BENCH_THREADS-th of them in turn.
-- Anything but 202 is an error in wrk's report; more requests than ids is an error in `done`.
local ids = {}
local key = os.getenv("BENCH_KEY")
local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
local created = 0
local position = 0
local headers = nil

setup = function(thread)
  thread:set("tid", created)
  created = created + 1
end

init = function(args)
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
  position = tid
  headers = { ["Authorization"] = "Api-Key " .. key, ["Content-Type"] = "application/json",
    ["Prefer"] = "respond-async" }
end

request = function()
  -- Past the end the ids come round again; `done` then says the run is void.
  local index = position % #ids
  position = position + threads
  local id = ids[index + 1]
  return wrk.format("POST", "/v1/sdk/profiles/" .. id .. "/attribution/apple-ads", headers,
    '{"token":"sbx|campaign=' .. (index % 7) .. '|n=' .. id .. '"}')
end

done = function(summary, latency, requests)
  if summary.requests > #ids then
    io.stderr:write("attribution.lua: " .. summary.requests .. " requests for " .. #ids
      .. " profiles: some were sent twice; seed more profiles or run shorter\n")
  end
end
