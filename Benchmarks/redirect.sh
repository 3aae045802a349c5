#!/usr/bin/env bash
# Redirect throughput and latency: wrk against a release `ferry serve` (SQLite, click recording on) and, in the same
# run, against nginx answering the same slugs with `return 302` from a static map: the practical limit of this
# machine. Requests are spread over all the links at random, as a desktop browser (a 302 to the destination).
#   Benchmarks/redirect.sh            (BENCH_LINKS=10000 BENCH_SECONDS=20 BENCH_CONNECTIONS=64)
. "$(dirname "$0")/lib.sh"
LINKS=${BENCH_LINKS:-10000}
build_release
need nginx nginx-light
seed "links-$LINKS" "$LINKS" 0

# nginx: the same slugs and destinations, no access log (the ceiling, not a like-for-like click recorder).
conf="$BENCH_DIR/nginx-$LINKS"
mkdir -p "$conf"
{
    echo "worker_processes auto; pid $conf/nginx.pid; error_log $conf/error.log; daemon off;"
    echo "events { worker_connections 4096; }"
    echo "http { access_log off; map_hash_max_size 4194304; map_hash_bucket_size 128;"
    echo "  client_body_temp_path $conf; proxy_temp_path $conf; fastcgi_temp_path $conf; uwsgi_temp_path $conf; scgi_temp_path $conf;"
    echo "  map \$uri \$target {"
    python3 -c "
import sys
digits='0123456789abcdefghijklmnopqrstuvwxyz'
def b36(n):
    s=''
    while True:
        s=digits[n%36]+s; n//=36
        if n==0: return s
for i in range($LINKS): sys.stdout.write('    /b%s https://example.com/products/%d;\n' % (b36(i), i))
"
    echo "  }"
    echo "  server { listen 127.0.0.1:18081; location / { if (\$target = '') { return 404; } return 302 \$target; } }"
    echo "}"
} > "$conf/nginx.conf"
nginx -c "$conf/nginx.conf" -p "$conf" &
SERVER_PIDS+=($!)
wait_for "http://127.0.0.1:18081/b0" || true

scratch "$DB" run
start_ferry "$DB" 18080
export FERRY_BENCH_LINKS=$LINKS

echo "warming up…" >&2
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 >/dev/null
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18081/ 5 >/dev/null

# Rounds alternate Ferry and nginx; each server's figures are those of its median round, and its processor time
# (nginx: its workers') is summed over its runs and divided by the requests answered. Before nginx's turn, Ferry's
# click writer finishes what it holds, so that it takes no processor time from nginx.
workers=$(pgrep -P "$(cat "$conf/nginx.pid")" | tr '\n' ' ')
ferry_runs=(); nginx_runs=(); ferry_ticks=0; ferry_requests=0; nginx_ticks=0; nginx_requests=0
for round in $(seq 1 "$BENCH_ROUNDS"); do
    before=$(cpu_ticks "$FERRY_PID")
    line=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/)
    ferry_ticks=$(( ferry_ticks + $(cpu_ticks "$FERRY_PID") - before )); ferry_requests=$(( ferry_requests + $(field "$line" requests) ))
    ferry_runs+=("$line")
    drain 18080
    before=$(cpu_ticks $workers)
    line=$(run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18081/)
    nginx_ticks=$(( nginx_ticks + $(cpu_ticks $workers) - before )); nginx_requests=$(( nginx_requests + $(field "$line" requests) ))
    nginx_runs+=("$line")
    echo "round $round: ferry $(field "${ferry_runs[-1]}" rps)/s, nginx $(field "$line" rps)/s" >&2
done
ferry=$(median "${ferry_runs[@]}"); nginx=$(median "${nginx_runs[@]}")
ferry_cpu=$(per_request_us "$ferry_ticks" "$ferry_requests"); nginx_cpu=$(per_request_us "$nginx_ticks" "$nginx_requests")
recorded=$(metric 18080 ferry_clicks_recorded_total)
dropped=$(metric 18080 ferry_clicks_dropped_total)

echo
echo "redirects over $LINKS links, wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS -d${BENCH_SECONDS}s, median of $BENCH_ROUNDS alternating rounds, $(nproc) cores"
for round in $(seq 0 $(( BENCH_ROUNDS - 1 ))); do
    echo "  round $(( round + 1 )): ferry $(field "${ferry_runs[$round]}" rps)/s p99 $(field "${ferry_runs[$round]}" p99_ms) ms, nginx $(field "${nginx_runs[$round]}" rps)/s p99 $(field "${nginx_runs[$round]}" p99_ms) ms"
done
printf "%-8s %10s %9s %9s %9s %7s %14s\n" server "requests/s" "p50 ms" "p99 ms" "p99.9 ms" errors "CPU µs/request"
for name in ferry nginx; do
    line=${!name}; cpu=${name}_cpu
    printf "%-8s %10s %9s %9s %9s %7s %14s\n" "$name" "$(field "$line" rps)" "$(field "$line" p50_ms)" "$(field "$line" p99_ms)" "$(field "$line" p999_ms)" "$(field "$line" errors)" "${!cpu}"
done
python3 -c "print('ferry / nginx throughput: %.1f%%' % (100.0 * $(field "$ferry" rps) / $(field "$nginx" rps)))"
echo "ferry clicks recorded: $recorded, dropped: $dropped (all rounds), resident memory: $(rss_mb "$FERRY_PID") MiB"
