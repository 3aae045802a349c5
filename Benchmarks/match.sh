#!/usr/bin/env bash
# Attribution match latency: POST /v1/attribution/match with 1 million clicks inside the attribution window
# (SQLite; 65,536 networks, iPhone clicks with the interstitial's signals). Every request is a new install from a
# random address in the clicks' networks, so each one searches candidates by address, network and fingerprint,
# weighs them and stores its answer.
#   Benchmarks/match.sh               (BENCH_CLICKS=1000000 BENCH_MATCH_CONNECTIONS=8)
. "$(dirname "$0")/lib.sh"
CLICKS=${BENCH_CLICKS:-1000000}
build_release
seed "clicks-$CLICKS" 1000 "$CLICKS"
# The answers stored by earlier runs are kept; a copy keeps the seeded database as it was.
scratch "$DB" match
start_ferry "$DB" 18080
run_wrk Benchmarks/wrk/match.lua http://127.0.0.1:18080/ 5 8 >/dev/null
echo
echo "attribution match with $CLICKS clicks in the window, wrk -t1 -d${BENCH_SECONDS}s"
for connections in 1 8; do
    line=$(BENCH_THREADS=1 run_wrk Benchmarks/wrk/match.lua http://127.0.0.1:18080/ "$BENCH_SECONDS" "$connections")
    echo "  $connections at a time: $(field "$line" rps) matches/s, p50 $(field "$line" p50_ms) ms, p99 $(field "$line" p99_ms) ms, p99.9 $(field "$line" p999_ms) ms, errors $(field "$line" errors)"
done
echo "  resident memory $(rss_mb "$FERRY_PID") MiB"
