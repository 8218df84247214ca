-- wrk: profile creation, POST /v1/sdk/profiles with a new random profile id each request (the
-- first launch of a new install: the profile row, its install cohort and the profile cache).
local key = os.getenv("BENCH_KEY")
local hex = "0123456789abcdef"

local function uuid()
  local out = {}
  for i = 1, 32 do
    local n = math.random(1, 16)
    if i == 13 then n = 5 end -- version 4
    if i == 17 then n = math.random(9, 12) end -- variant 10xx
    out[#out + 1] = hex:sub(n, n)
    if i == 8 or i == 12 or i == 16 or i == 20 then out[#out + 1] = "-" end
  end
  return table.concat(out)
end

init = function(args)
  -- Each wrk thread seeds apart, so two threads never send the same ids.
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000) + math.random(1000000))
end

request = function()
  return wrk.format("POST", "/v1/sdk/profiles",
    { ["Authorization"] = "Api-Key " .. key, ["Content-Type"] = "application/json" },
    '{"profile_id":"' .. uuid() .. '","install":{"store_country":"USA","app_version":"4.2.0"}}')
end

-- Anything but 201 Created is an error in the report (wrk counts non-2xx itself).
