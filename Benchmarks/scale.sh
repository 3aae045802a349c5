#!/usr/bin/env bash
# Redirects as the number of links grows: the same load at 1 thousand, 100 thousand and 1 million links (SQLite).
# Two request mixes per size: a hot set (the first 10,000 links, which fit the link cache, as popular links do) and
# uniform over every link (worst case: at 1M links most requests miss the 20,000-link cache and read SQLite).
# One server per size runs the whole time; rounds alternate between them (BENCH_ROUNDS, 3), and each size's figure
# is its median round, so that every size sees the same machine.
#   Benchmarks/scale.sh               (BENCH_SIZES="1000 100000 1000000")
. "$(dirname "$0")/lib.sh"
SIZES=${BENCH_SIZES:-1000 100000 1000000}
build_release
declare -A port pid memory
next=18080
for size in $SIZES; do
    seed "links-$size" "$size" 0
    scratch "$DB" "run-$size"
    start_ferry "$DB" "$next"
    port[$size]=$next
    pid[$size]=$FERRY_PID
    next=$(( next + 1 ))
done
declare -A runs
for mix in hot uniform; do
    for size in $SIZES; do
        # The hot set is the first 10,000 links; uniform spreads over all of them.
        links=$size
        [ "$mix" = hot ] && links=$(( size < 10000 ? size : 10000 ))
        export FERRY_BENCH_LINKS=$links
        run_wrk Benchmarks/wrk/redirect.lua "http://127.0.0.1:${port[$size]}/" 5 >/dev/null
        drain "${port[$size]}"
    done
    for round in $(seq 1 "$BENCH_ROUNDS"); do
        for size in $SIZES; do
            links=$size
            [ "$mix" = hot ] && links=$(( size < 10000 ? size : 10000 ))
            export FERRY_BENCH_LINKS=$links
            line=$(run_wrk Benchmarks/wrk/redirect.lua "http://127.0.0.1:${port[$size]}/")
            runs[$mix,$size]="${runs[$mix,$size]:-}$line"$'\n'
            echo "$mix round $round, $size links: $(field "$line" rps)/s" >&2
            # The click writer finishes what it holds before the next server's turn.
            drain "${port[$size]}"
        done
    done
done
for size in $SIZES; do memory[$size]=$(rss_mb "${pid[$size]}"); done

first=${SIZES%% *}
echo
echo "redirects by number of links, wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS -d${BENCH_SECONDS}s, median of $BENCH_ROUNDS alternating rounds, $(nproc) cores"
printf "%-9s %-8s %10s %9s %9s %9s %7s %9s %9s %s\n" links mix "requests/s" "p50 ms" "p99 ms" "p99.9 ms" errors "vs $first" "RSS MiB" "rounds (requests/s)"
for mix in hot uniform; do
    base=""
    for size in $SIZES; do
        mapfile -t lines <<< "${runs[$mix,$size]%$'\n'}"
        line=$(median "${lines[@]}")
        [ -z "$base" ] && base=$line
        ratio=$(python3 -c "print('%.1f%%' % (100.0 * $(field "$line" rps) / $(field "$base" rps)))")
        all=$(for each in "${lines[@]}"; do printf '%s ' "$(field "$each" rps)"; done)
        printf "%-9s %-8s %10s %9s %9s %9s %7s %9s %9s %s\n" "$size" "$mix" "$(field "$line" rps)" "$(field "$line" p50_ms)" \
            "$(field "$line" p99_ms)" "$(field "$line" p999_ms)" "$(field "$line" errors)" "$ratio" "${memory[$size]}" "$all"
    done
done
