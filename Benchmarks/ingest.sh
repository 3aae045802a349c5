#!/usr/bin/env bash
# Click ingestion on SQLite:
#  1. the store's ceiling: clicks written straight to the store in the recorder's batches (FerryBench ingest);
#  2. through the edge, at BENCH_INGEST_RATE clicks/s (default 20,000, paced by wrk): every click answered must be
#     in the database (recorded = requests, dropped = 0); then as fast as wrk can click, where the writer falls
#     behind and the excess is dropped and counted;
#  3. a database slower than the clicks: another process holds SQLite's write lock for 10 s in the middle of the
#     load, with a small click buffer (20,000): redirects go on, the buffer fills, what does not fit is counted as
#     dropped, and the backlog is written once the lock is released.
. "$(dirname "$0")/lib.sh"
build_release
seed "links-1000" 1000 0
base=$DB

echo "1. store ceiling" >&2
scratch "$base" ingest
store=$("$BIN/FerryBench" ingest --database "sqlite:$DB" --clicks 300000)

RATE=${BENCH_INGEST_RATE:-20000}
export FERRY_BENCH_LINKS=1000
echo "2. through the edge at $RATE clicks/s" >&2
scratch "$base" ingest
start_ferry "$DB" 18080
paced=$(FERRY_BENCH_RATE=$RATE run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/)
for _ in $(seq 1 100); do [ "$(metric 18080 ferry_clicks_pending)" = 0 ] && break; sleep 0.1; done
paced_recorded=$(metric 18080 ferry_clicks_recorded_total)
paced_dropped=$(metric 18080 ferry_clicks_dropped_total)
stop_servers

echo "   and as fast as wrk can click" >&2
scratch "$base" ingest
start_ferry "$DB" 18080
edge=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/)
for _ in $(seq 1 100); do [ "$(metric 18080 ferry_clicks_pending)" = 0 ] && break; sleep 0.1; done
recorded=$(metric 18080 ferry_clicks_recorded_total)
dropped=$(metric 18080 ferry_clicks_dropped_total)
stop_servers

echo "3. database slower than the clicks" >&2
scratch "$base" ingest
start_ferry "$DB" 18080 FERRY_CLICK_BUFFER_LIMIT=20000
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 > "$BENCH_DIR/before.txt"
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 10 > "$BENCH_DIR/during.txt" &
wrk_pid=$!
python3 - "$DB" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
db.execute("BEGIN IMMEDIATE")   # holds the write lock; readers go on (WAL)
time.sleep(10)
db.execute("COMMIT")
PY
lock_pid=$!
peak=0
while kill -0 "$lock_pid" 2>/dev/null; do
    pending=$(metric 18080 ferry_clicks_pending); [ "${pending:-0}" -gt "$peak" ] && peak=$pending
    sleep 0.5
done
wait "$wrk_pid"
during=$(cat "$BENCH_DIR/during.txt"); before=$(cat "$BENCH_DIR/before.txt")
drained=no
for _ in $(seq 1 300); do [ "$(metric 18080 ferry_clicks_pending)" = 0 ] && { drained=yes; break; }; sleep 0.1; done
stall_recorded=$(metric 18080 ferry_clicks_recorded_total)
stall_dropped=$(metric 18080 ferry_clicks_dropped_total)
stall_requests=$(( $(field "$before" requests) + $(field "$during" requests) ))

echo
echo "$store"
echo "through the edge at $RATE clicks/s offered: $(field "$paced" requests) clicks answered in $(field "$paced" seconds) s ($(field "$paced" rps)/s, p99 $(field "$paced" p99_ms) ms, errors $(field "$paced" errors))"
echo "  recorded $paced_recorded ($(python3 -c "print(round($paced_recorded / $(field "$paced" seconds)))") clicks/s), dropped (counted) $paced_dropped"
echo "through the edge as fast as wrk clicks: $(field "$edge" requests) clicks answered in $(field "$edge" seconds) s ($(field "$edge" rps)/s, p99 $(field "$edge" p99_ms) ms)"
# wrk does not count the requests still in flight when it stops, so recorded + dropped may exceed its count.
echo "  recorded $recorded, dropped (counted) $dropped, neither: $(( $(field "$edge" requests) - recorded - dropped < 0 ? 0 : $(field "$edge" requests) - recorded - dropped ))"
echo "  = $(python3 -c "print(round($recorded / $(field "$edge" seconds)))") clicks/s recorded"
echo "write lock held 10 s by another process, click buffer 20000:"
echo "  redirects before: $(field "$before" rps)/s p99 $(field "$before" p99_ms) ms; while locked: $(field "$during" rps)/s p99 $(field "$during" p99_ms) ms, errors $(field "$during" errors)"
echo "  clicks answered $stall_requests, recorded $stall_recorded, dropped (counted) $stall_dropped, neither: $(( stall_requests - stall_recorded - stall_dropped < 0 ? 0 : stall_requests - stall_recorded - stall_dropped ))"
echo "  buffer peak $peak, backlog written after the lock: $drained"
