#!/usr/bin/env bash
# Resident memory: at start on 1 million links, after a pass over every link (the link cache full), and every
# minute of a 10-minute redirect load over all the links (BENCH_SOAK_MINUTES to change), with the growth.
. "$(dirname "$0")/lib.sh"
MINUTES=${BENCH_SOAK_MINUTES:-10}
build_release
seed "links-1000000" 1000000 0
scratch "$DB" run
start_ferry "$DB" 18080
echo "memory on 1,000,000 links (MiB resident)"
echo "  started:            $(rss_mb "$FERRY_PID")"
export FERRY_BENCH_LINKS=1000000
first=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 60)
after=$(rss_mb "$FERRY_PID")
echo "  after 1 min of load: $after ($(field "$first" rps) redirects/s)"
total=$(field "$first" requests); errors=$(field "$first" errors)
for minute in $(seq 2 "$MINUTES"); do
    line=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 60)
    total=$(( total + $(field "$line" requests) )); errors=$(( errors + $(field "$line" errors) ))
    echo "  after $minute min:        $(rss_mb "$FERRY_PID") ($(field "$line" rps) redirects/s, p99 $(field "$line" p99_ms) ms)"
done
sleep 1
echo "  growth from minute 1 to $MINUTES: $(python3 -c "print('%+.1f' % ($(rss_mb "$FERRY_PID") - $after))") MiB"
echo "  $total redirects, $errors errors; clicks recorded $(metric 18080 ferry_clicks_recorded_total), dropped $(metric 18080 ferry_clicks_dropped_total)"
