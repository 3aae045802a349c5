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
cp "$DB" "$BENCH_DIR/match.sqlite"; rm -f "$BENCH_DIR/match.sqlite-wal" "$BENCH_DIR/match.sqlite-shm"
start_ferry "$BENCH_DIR/match.sqlite" 18080
run_wrk Benchmarks/wrk/match.lua http://127.0.0.1:18080/ 5 "${BENCH_MATCH_CONNECTIONS:-8}" >/dev/null
line=$(run_wrk Benchmarks/wrk/match.lua http://127.0.0.1:18080/ "$BENCH_SECONDS" "${BENCH_MATCH_CONNECTIONS:-8}")
echo
echo "attribution match with $CLICKS clicks in the window, wrk -t$BENCH_THREADS -c${BENCH_MATCH_CONNECTIONS:-8} -d${BENCH_SECONDS}s"
echo "  $(field "$line" rps) matches/s, p50 $(field "$line" p50_ms) ms, p99 $(field "$line" p99_ms) ms, p99.9 $(field "$line" p999_ms) ms, errors $(field "$line" errors)"
echo "  resident memory $(rss_mb "$FERRY_PID") MiB"
