-- Clicks on the benchmark links: each request asks for a random link among the first FERRY_BENCH_LINKS
-- (slugs b0, b1, … in base 36, as `FerryBench seed` makes them), as a desktop browser on the link domain.
local links = tonumber(os.getenv("FERRY_BENCH_LINKS") or "1000")
local host = os.getenv("FERRY_BENCH_HOST") or "bench.test"
dofile(os.getenv("FERRY_BENCH_COMMON") or "Benchmarks/wrk/common.lua")

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  wrk.headers["Host"] = host
  wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
  wrk.headers["Accept-Language"] = "en-US,en;q=0.9"
end

-- FERRY_BENCH_RATE (requests/s over all threads) paces the load: each thread keeps its share of the rate on a
-- schedule of its own (LuaJIT's FFI reads the monotonic clock) and wrk waits for the next slot before each request.
-- Without it, wrk sends as fast as the server answers.
local rate = tonumber(os.getenv("FERRY_BENCH_RATE") or "0")
local threads = tonumber(os.getenv("FERRY_BENCH_THREADS") or "2")
local clock, nextSlot, interval
if rate > 0 then
  local ffi = require("ffi")
  ffi.cdef[[
    typedef struct { long tv_sec; long tv_nsec; } ferry_timespec;
    int clock_gettime(int clock, ferry_timespec *time);
  ]]
  local now = ffi.new("ferry_timespec")
  clock = function()
    ffi.C.clock_gettime(1, now)  -- CLOCK_MONOTONIC
    return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
  end
  interval = 1000 * threads / rate
end

function delay()
  if not interval then return 0 end
  local now = clock()
  if not nextSlot or nextSlot < now - 1000 then nextSlot = now end  -- no catching up after a stall longer than 1 s
  nextSlot = nextSlot + interval
  return math.max(0, math.floor(nextSlot - interval - now))
end

-- Each click comes from a random address (X-Forwarded-For from loopback is believed), so that recording it costs
-- what a real visitor's click costs: a new address, network and visitor to index.
function request()
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/b" .. base36(math.random(0, links - 1)))
end


dofile(os.getenv("FERRY_BENCH_REPORT") or "Benchmarks/wrk/report.lua")
