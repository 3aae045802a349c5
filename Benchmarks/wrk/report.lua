-- One machine-readable line per wrk run, read by the benchmark scripts:
-- RESULT requests=… seconds=… rps=… p50_ms=… p99_ms=… p999_ms=… errors=…
function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format("RESULT requests=%d seconds=%.2f rps=%.0f p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f errors=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000, errors))
end
