-- wrk: placement resolution for random stored profiles across the 10 placements.
local ids = {}
local key = os.getenv("BENCH_KEY")

init = function(args)
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
  math.randomseed(os.time() + math.random(1000))
end

request = function()
  local id = ids[math.random(#ids)]
  local placement = "p" .. math.random(0, 9)
  return wrk.format("GET", "/v1/sdk/placements/" .. placement .. "/flow?profile_id=" .. id,
    { ["Authorization"] = "Api-Key " .. key })
end
