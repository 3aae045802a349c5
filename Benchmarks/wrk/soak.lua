-- The soak's mix, what a live deployment sees: mostly clicks on known links, and among them the API's writes —
-- installs asking for their deferred link (1 in 100), SDK events (1 in 100) and new links (1 in 500, each with a
-- slug of its own). Every request comes from a random address (X-Forwarded-For from loopback is believed), so the
-- limits per address are not what is measured; the mix stays under the limits per key at the rates two cores reach.
local links = tonumber(os.getenv("FERRY_BENCH_LINKS") or "1000")
local host = os.getenv("FERRY_BENCH_HOST") or "bench.test"
local publishable = os.getenv("FERRY_BENCH_PUBLISHABLE_KEY")
local secret = os.getenv("FERRY_BENCH_SECRET_KEY")
dofile(os.getenv("FERRY_BENCH_COMMON") or "Benchmarks/wrk/common.lua")

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
end

local n = 0
local browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

function request()
  n = n + 1
  local address = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  local draw = math.random(1, 1000)
  local install = string.format("soak-%d-%d-%d", seed or 0, n, math.random(0, 1e9))
  if draw <= 10 then
    local headers = { ["Host"] = host, ["Authorization"] = "Bearer " .. publishable, ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address }
    return wrk.format("POST", "/v1/attribution/match", headers, '{"installID":"' .. install .. '",' .. iphoneSignals .. '}')
  elseif draw <= 20 then
    local headers = { ["Host"] = host, ["Authorization"] = "Bearer " .. publishable, ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address }
    return wrk.format("POST", "/v1/events", headers, '{"events":[{"name":"purchase","installID":"' .. install .. '","properties":{"value":"9.99"}}]}')
  elseif draw <= 22 then
    local headers = { ["Host"] = host, ["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address }
    local slug = string.format("soak%d-%d-%d", seed or 0, n, math.random(0, 1e9))
    return wrk.format("POST", "/v1/links", headers, '{"slug":"' .. slug .. '","destination":"https://example.com/' .. slug .. '","params":{"n":"' .. n .. '"}}')
  end
  local headers = { ["Host"] = host, ["User-Agent"] = browser, ["X-Forwarded-For"] = address }
  return wrk.format("GET", "/b" .. base36(math.random(0, links - 1)), headers)
end

-- Any answer but a redirect or a success is an error of the soak (wrk counts statuses from 400 up).
dofile(os.getenv("FERRY_BENCH_REPORT") or "Benchmarks/wrk/report.lua")
