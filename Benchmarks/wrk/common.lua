-- Shared by the wrk scripts (loaded with dofile, as report.lua is): a seed per thread, the benchmark links' slugs,
-- and an iPhone's signals as the SDK sends them.

-- Each thread gets its own seed, for its random numbers and its install ids.
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

-- Slugs b0, b1, … in base 36, as `FerryBench seed` makes them.
local digits = "0123456789abcdefghijklmnopqrstuvwxyz"
function base36(n)
  if n == 0 then return "0" end
  local out = ""
  while n > 0 do
    local d = n % 36
    out = digits:sub(d + 1, d + 1) .. out
    n = math.floor(n / 36)
  end
  return out
end

-- The "signals" member of a match request.
iphoneSignals = '"signals":{"platform":"iOS","osVersion":"18.5","model":"iPhone16,1","screenWidth":393,"screenHeight":852,'
  .. '"screenScale":3,"timeZone":"Europe/Berlin","timeZoneOffsetSeconds":3600,"languages":["en-US"]}'
