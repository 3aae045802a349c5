#!/usr/bin/env bash
# Redirects as the number of links grows: the same load at 1 thousand, 100 thousand and 1 million links (SQLite).
# Two request mixes per size: a hot set (the first 10,000 links, which fit the link cache, as popular links do) and
# uniform over every link (worst case: at 1M links most requests miss the 20,000-link cache and read SQLite).
#   Benchmarks/scale.sh               (BENCH_SIZES="1000 100000 1000000")
. "$(dirname "$0")/lib.sh"
SIZES=${BENCH_SIZES:-1000 100000 1000000}
build_release
declare -A hot uniform memory
for size in $SIZES; do
    seed "links-$size" "$size" 0
    scratch "$DB" run
    start_ferry "$DB" 18080
    export FERRY_BENCH_LINKS=$(( size < 10000 ? size : 10000 ))
    run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 >/dev/null
    hot[$size]=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/)
    export FERRY_BENCH_LINKS=$size
    run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 >/dev/null
    uniform[$size]=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/)
    memory[$size]=$(rss_mb "$FERRY_PID")
    stop_servers
done
first=${SIZES%% *}
echo
echo "redirects by number of links, wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS -d${BENCH_SECONDS}s, $(nproc) cores"
printf "%-9s %-8s %10s %9s %9s %9s %7s %9s %9s\n" links mix "requests/s" "p50 ms" "p99 ms" "p99.9 ms" errors "vs $first" "RSS MiB"
for size in $SIZES; do
    for mix in hot uniform; do
        declare -n results=$mix
        line=${results[$size]}
        base=${results[$first]}
        ratio=$(python3 -c "print('%.1f%%' % (100.0 * $(field "$line" rps) / $(field "$base" rps)))")
        printf "%-9s %-8s %10s %9s %9s %9s %7s %9s %9s\n" "$size" "$mix" "$(field "$line" rps)" "$(field "$line" p50_ms)" \
            "$(field "$line" p99_ms)" "$(field "$line" p999_ms)" "$(field "$line" errors)" "$ratio" "${memory[$size]}"
    done
done
