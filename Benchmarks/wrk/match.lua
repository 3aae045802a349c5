-- Installs asking for their deferred deep link: a new install id per request, an iPhone's signals, and a client
-- address (X-Forwarded-For from loopback is believed) drawn from the seeded clicks' networks, so that every match
-- finds candidates by address, network and fingerprint among a million clicks in the window.
local key = os.getenv("FERRY_BENCH_PUBLISHABLE_KEY")
dofile(os.getenv("FERRY_BENCH_COMMON") or "Benchmarks/wrk/common.lua")

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
end

local n = 0
function request()
  n = n + 1
  local address = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(0, 255))
  local body = string.format('{"installID":"bench-%d-%d-%d",%s,"clickToken":null,"referrer":null}', seed or 0, n, math.random(0, 1e9),
    iphoneSignals)
  local headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address }
  return wrk.format("POST", "/v1/attribution/match", headers, body)
end


dofile(os.getenv("FERRY_BENCH_REPORT") or "Benchmarks/wrk/report.lua")
