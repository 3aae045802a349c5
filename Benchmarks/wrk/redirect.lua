-- Clicks on the benchmark links: each request asks for a random link among the first FERRY_BENCH_LINKS
-- (slugs b0, b1, … in base 36, as `FerryBench seed` makes them), as a desktop browser on the link domain.
local links = tonumber(os.getenv("FERRY_BENCH_LINKS") or "1000")
local host = os.getenv("FERRY_BENCH_HOST") or "bench.test"
local digits = "0123456789abcdefghijklmnopqrstuvwxyz"

local function base36(n)
  if n == 0 then return "0" end
  local out = ""
  while n > 0 do
    local d = n % 36
    out = digits:sub(d + 1, d + 1) .. out
    n = math.floor(n / 36)
  end
  return out
end

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  wrk.headers["Host"] = host
  wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
  wrk.headers["Accept-Language"] = "en-US,en;q=0.9"
end

-- Each click comes from a random address (X-Forwarded-For from loopback is believed), so that recording it costs
-- what a real visitor's click costs: a new address, network and visitor to index.
function request()
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/b" .. base36(math.random(0, links - 1)))
end


dofile(os.getenv("FERRY_BENCH_REPORT") or "Benchmarks/wrk/report.lua")
