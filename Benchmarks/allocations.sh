#!/usr/bin/env bash
# Heap allocations per cached redirect: a uprobe on glibc's malloc (perf, Debian's linux-perf; root) counts every
# call by thread while wrk clicks one hot link over keep-alive connections. The event loops' calls per redirect are
# the request path's own; the writer's are per click recorded. (Valgrind's callgrind from Debian 12 cannot read
# the DWARF 5 of Swift 6.3 binaries, so perf does this job.)
. "$(dirname "$0")/lib.sh"
need perf linux-perf
build_release
seed "links-1000" 1000 0
scratch "$DB" allocations
start_ferry "$DB" 18095
libc=$(ldd "$BIN/ferry" | awk '$1 == "libc.so.6" { print $3 }')
perf probe -q -d probe_libc:malloc 2>/dev/null || true
perf probe -q -x "$libc" malloc
trap 'perf probe -q -d probe_libc:malloc 2>/dev/null || true; stop_servers' EXIT
cat > "$BENCH_DIR/hot.lua" <<'LUA'
wrk.headers["Host"] = "bench.test"
wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
LUA
wrk -t1 -c4 -d3s -s "$BENCH_DIR/hot.lua" http://127.0.0.1:18095/b1 > /dev/null  # the link and the app in the cache
before=$(metric 18095 ferry_edge_fast_answers_total)
perf stat --per-thread -e probe_libc:malloc -p "$FERRY_PID" -o "$BENCH_DIR/allocations.txt" -- sleep 6 &
counting=$!
sleep 0.5
wrk -t1 -c4 -d5s -s "$BENCH_DIR/hot.lua" http://127.0.0.1:18095/b1 > /dev/null
wait "$counting"
drain 18095
redirects=$(( $(metric 18095 ferry_edge_fast_answers_total) - before ))
loops=$(awk '/NIO-/ { s += $2 } END { print s + 0 }' "$BENCH_DIR/allocations.txt")
writer=$(awk '/TP-#/ { s += $2 } END { print s + 0 }' "$BENCH_DIR/allocations.txt")
echo "allocations (malloc calls) over $redirects redirects of one cached link"
echo "  event loops (answering): $(python3 -c "print('%.1f' % ($loops / max(1, $redirects)))") per redirect"
echo "  click writer (recording): $(python3 -c "print('%.1f' % ($writer / max(1, $redirects)))") per click"
