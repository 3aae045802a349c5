#!/usr/bin/env bash
# Soak: the live mix (clicks on 100,000 links, with matches, events and new links among them; wrk/soak.lua) held
# for 10 minutes (BENCH_SOAK_MINUTES) at full speed, with the production defaults (rate limits on). Prints, minute by
# minute, requests/s, p99, errors and resident memory; then the totals. Errors must be 0: any answer from 400 up,
# or a connection error or timeout, is one. Exits 1 when there was one, or when the server died.
. "$(dirname "$0")/lib.sh"
MINUTES=${BENCH_SOAK_MINUTES:-10}
build_release
seed "links-100000" 100000 0
scratch "$DB" soak
start_ferry "$DB" 18090
export FERRY_BENCH_LINKS=100000
links_before=$(sqlite3 "$DB" "SELECT count(*) FROM links" 2>/dev/null || echo "?")
start_rss=$(rss_mb "$FERRY_PID")
echo "soak: ${MINUTES} min of the live mix on 100,000 links, $BENCH_CONNECTIONS connections"
echo "  started: $start_rss MiB resident"
total=0; errors=0; first_rss=""
for minute in $(seq 1 "$MINUTES"); do
    line=$(run_wrk Benchmarks/wrk/soak.lua http://127.0.0.1:18090/ 60)
    kill -0 "$FERRY_PID" 2>/dev/null || { echo "  the server died in minute $minute" >&2; exit 1; }
    rss=$(rss_mb "$FERRY_PID")
    [ -n "$first_rss" ] || first_rss=$rss
    total=$(( total + $(field "$line" requests) )); errors=$(( errors + $(field "$line" errors) ))
    echo "  minute $minute: $(field "$line" rps) requests/s, p99 $(field "$line" p99_ms) ms, $(field "$line" errors) errors, $rss MiB"
done
drain 18090
end_rss=$(rss_mb "$FERRY_PID")
links_after=$(sqlite3 "$DB" "SELECT count(*) FROM links" 2>/dev/null || echo "?")
echo "  $total requests, $errors errors"
echo "  memory: $start_rss MiB at start, $first_rss after minute 1, $end_rss at the end" \
     "(growth from minute 1: $(python3 -c "print('%+.1f' % ($end_rss - $first_rss))") MiB)"
echo "  links: $links_before before, $links_after after; clicks recorded $(metric 18090 ferry_clicks_recorded_total)," \
     "dropped while the writer fell behind $(metric 18090 ferry_clicks_dropped_total); rate-limited $(curl -fs http://127.0.0.1:18090/metrics | awk '/^ferry_rate_limited_total/ { s += $2 } END { print s + 0 }')"
[ "$errors" = 0 ] || { echo "soak FAILED: $errors errors" >&2; exit 1; }
echo "soak passed"
