#!/usr/bin/env bash
# The click journal at the edge's full speed, against release `ferry serve`s:
#  1. SQLite, rounds alternating between a server with the journal and one without (FERRY_CLICK_JOURNAL=off): the
#     redirects each answers, and the clicks each keeps. After each round with the journal, how long the database
#     takes to catch up with no load, and at what rate.
#  2. The same with PostgreSQL (a throwaway cluster from scripts/test-postgres.sh on its own port).
#  3. SIGKILL: a server killed in the middle of a full-speed run, started again on its database and journal: the
#     clicks answered, those stored once it has caught up, and how long that took.
#  First, the appender alone (`FerryBench append`): processor time per click of the edge's hand-over and of hashing,
#  encoding and appending, on one thread.
#   Benchmarks/journal.sh   (BENCH_LINKS=10000 BENCH_SECONDS=20 BENCH_ROUNDS=3 BENCH_CONNECTIONS=64)
. "$(dirname "$0")/lib.sh"
LINKS=${BENCH_LINKS:-10000}
build_release
seed "links-$LINKS" "$LINKS" 0
export FERRY_BENCH_LINKS=$LINKS

echo "the appender alone:"
"$BIN/FerryBench" append --directory "$BENCH_DIR/append.clicks"
rm -rf "$BENCH_DIR/append.clicks" "$BENCH_DIR/append.clicks.sqlite"*

# seconds since the epoch, with fractions.
now() { date +%s.%N; }
elapsed() { python3 -c "print('%.1f' % ($(now) - $1))"; }

# caught_up PORT: waits (up to 10 minutes) until the journal of the server on PORT holds nothing the database lacks.
caught_up() {
    for _ in $(seq 1 6000); do
        [ "$(metric "$1" ferry_click_journal_backlog_bytes)" = 0 ] && [ "$(metric "$1" ferry_clicks_pending)" = 0 ] && return 0
        sleep 0.1
    done
    echo "the database did not catch up within 10 minutes" >&2
    return 1
}

# rounds LABEL PORT_WITH PORT_WITHOUT: alternating rounds; prints a line per round and a summary.
rounds() {
    local label=$1 with=$2 without=$3
    local rates_with=() rates_without=() answered=0 kept=0 answered_off=0 kept_off=0 catchups=()
    for round in $(seq 1 "$BENCH_ROUNDS"); do
        local before after line started behind at_end took rate dropped_before
        before=$(metric "$with" ferry_clicks_recorded_total)
        line=$(run_wrk Benchmarks/wrk/redirect.lua "http://127.0.0.1:$with/")
        started=$(now)
        behind=$(metric "$with" ferry_click_journal_backlog_bytes)
        at_end=$(metric "$with" ferry_clicks_recorded_total)
        caught_up "$with"
        took=$(elapsed "$started")
        after=$(metric "$with" ferry_clicks_recorded_total)
        rates_with+=("$(field "$line" rps)")
        answered=$((answered + $(field "$line" requests))); kept=$((kept + after - before))
        rate=$(python3 -c "print('%.0f' % (($after - $at_end) / max(0.1, $took)))")
        catchups+=("$took s for $((after - at_end)) clicks ($rate/s; $behind journal bytes behind at the end of the run)")
        echo "$label round $round with the journal: $(field "$line" rps) redirects/s, $(field "$line" requests) answered, $((after - before)) kept; caught up in ${catchups[-1]}" >&2

        before=$(metric "$without" ferry_clicks_recorded_total)
        dropped_before=$(metric "$without" ferry_clicks_dropped_total)
        line=$(run_wrk Benchmarks/wrk/redirect.lua "http://127.0.0.1:$without/")
        drain "$without"
        after=$(metric "$without" ferry_clicks_recorded_total)
        rates_without+=("$(field "$line" rps)")
        answered_off=$((answered_off + $(field "$line" requests))); kept_off=$((kept_off + after - before))
        echo "$label round $round without: $(field "$line" rps) redirects/s, $(field "$line" requests) answered, $((after - before)) kept, $(( $(metric "$without" ferry_clicks_dropped_total) - dropped_before )) dropped" >&2
    done
    median_with=$(printf '%s\n' "${rates_with[@]}" | sort -n | awk -v m=$(( (BENCH_ROUNDS + 1) / 2 )) 'NR == m')
    median_without=$(printf '%s\n' "${rates_without[@]}" | sort -n | awk -v m=$(( (BENCH_ROUNDS + 1) / 2 )) 'NR == m')
    echo
    echo "$label, wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS -d${BENCH_SECONDS}s over $LINKS links, $BENCH_ROUNDS alternating rounds, $(nproc) cores"
    echo "  with the journal:    ${rates_with[*]} redirects/s (median $median_with); $answered answered, $kept kept, dropped $(metric "$with" ferry_clicks_dropped_total)"
    echo "  without (memory):    ${rates_without[*]} redirects/s (median $median_without); $answered_off answered, $kept_off kept, dropped $(metric "$without" ferry_clicks_dropped_total)"
    python3 -c "print('  redirects with the journal: %.1f%% of without' % (100.0 * $median_with / $median_without))"
    for catchup in "${catchups[@]}"; do echo "  caught up in $catchup"; done
}

# 1. SQLite.
scratch "$DB" journal-on; on_db=$DB
rm -rf "$on_db.clicks"
start_ferry "$on_db" 18080
scratch "$BENCH_DIR/links-$LINKS.sqlite" journal-off
start_ferry "$DB" 18082 FERRY_CLICK_JOURNAL=off
echo "warming up…" >&2
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 >/dev/null; caught_up 18080
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18082/ 5 >/dev/null; drain 18082
rounds "SQLite" 18080 18082
stored=$(sqlite3 "$on_db" "SELECT COUNT(*) FROM clicks")
echo "  rows in the journal's database: $stored (warm-up included); journal on disk: $(du -sh "$on_db.clicks" | cut -f1)"
stop_servers

# 3. SIGKILL, on SQLite.
scratch "$BENCH_DIR/links-$LINKS.sqlite" killed; killed_db=$DB
rm -rf "$killed_db.clicks"
start_ferry "$killed_db" 18080
wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_SECONDS}s" --timeout 5s -s Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ \
    | grep '^RESULT' > "$BENCH_DIR/killed.result" &
wrk_pid=$!
sleep $(( BENCH_SECONDS / 2 ))
kill -9 "$FERRY_PID"
killed_at=$(now)
stored_at_kill=$(sqlite3 "$killed_db" "SELECT COUNT(*) FROM clicks")
wait "$wrk_pid" || true
answered=$(field "$(cat "$BENCH_DIR/killed.result")" requests)
journal_bytes=$(du -sb "$killed_db.clicks" | cut -f1)
SERVER_PIDS=()
restarted=$(now)
start_ferry "$killed_db" 18080
caught_up 18080
took=$(elapsed "$restarted")
stored=$(sqlite3 "$killed_db" "SELECT COUNT(*) FROM clicks")
echo
echo "SIGKILL in the middle of a full-speed run (SQLite)"
echo "  clicks answered before the kill: $answered; in the database at the kill: $stored_at_kill; journal on disk: $journal_bytes bytes"
echo "  started again: caught up $took s after the start, $stored clicks stored, $((answered - stored)) answered and not kept"
python3 -c "print('  replayed: %d clicks, %.0f/s from the start' % ($stored - $stored_at_kill, ($stored - $stored_at_kill) / max(0.1, $took)))"
stop_servers

# 2. PostgreSQL: a cluster of its own, the links seeded into it.
url=$(FERRY_TEST_POSTGRES_PORT=54359 FERRY_TEST_POSTGRES_DIR="$BENCH_DIR/postgres" scripts/test-postgres.sh)
echo "seeding PostgreSQL: $LINKS links…" >&2
"$BIN/FerryBench" seed --database "$url" --links "$LINKS" --clicks 0 > "$BENCH_DIR/postgres.keys"
rm -rf "$BENCH_DIR/pg-on.clicks"
for setting in "18080 FERRY_CLICK_JOURNAL=$BENCH_DIR/pg-on.clicks" "18082 FERRY_CLICK_JOURNAL=off"; do
    read -r port journal <<< "$setting"
    env FERRY_LOG_LEVEL=warning "$journal" "$BIN/ferry" serve --database "$url" --port "$port" > "$BENCH_DIR/ferry-pg-$port.log" 2>&1 &
    SERVER_PIDS+=("$!")
    wait_for "http://127.0.0.1:$port/healthz"
done
echo "warming up…" >&2
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18080/ 5 >/dev/null; caught_up 18080
run_wrk Benchmarks/wrk/redirect.lua http://127.0.0.1:18082/ 5 >/dev/null; drain 18082
rounds "PostgreSQL" 18080 18082
stop_servers
FERRY_TEST_POSTGRES_PORT=54359 FERRY_TEST_POSTGRES_DIR="$BENCH_DIR/postgres" scripts/test-postgres.sh stop
