# Shared by the benchmark scripts: builds Ferry in release mode, seeds databases, starts and stops servers, runs wrk.
# Sourced, not run. Everything a run makes lives under $BENCH_DIR (default /tmp/ferry-bench).
#
# The benchmark tools (FerryBench, AttributionSimulator) are in the package only when FERRY_BENCHMARKS is set, so that
# a plain `swift build` or `swift test` compiles neither: every `swift` command of a script runs with it set. By hand:
# `FERRY_BENCHMARKS=1 swift build -c release --product FerryBench`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export FERRY_BENCHMARKS=1
BENCH_DIR=${BENCH_DIR:-/tmp/ferry-bench}
BENCH_SECONDS=${BENCH_SECONDS:-20}
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-64}
BENCH_THREADS=${BENCH_THREADS:-2}
# Runs that compare servers or sizes alternate between them for this many rounds and keep each one's median: the
# machine's speed drifts by several percent over minutes, and alternating makes every side see the same drift.
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
export FERRY_BENCH_REPORT="$PWD/Benchmarks/wrk/report.lua"
export FERRY_BENCH_COMMON="$PWD/Benchmarks/wrk/common.lua"
export FERRY_BENCH_THREADS=$BENCH_THREADS
mkdir -p "$BENCH_DIR"
SERVER_PIDS=()

need() {
    command -v "$1" >/dev/null && return
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >&2 || {
            # A fresh machine has no package lists yet.
            DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >&2
        }
    else
        echo "$1 is missing: apt-get install $2" >&2; exit 1
    fi
}

build_release() {
    need wrk wrk
    echo "building release binaries…" >&2
    swift build -c release --product ferry >&2
    swift build -c release --product FerryBench >&2
    BIN=$(swift build -c release --show-bin-path)
}

# seed NAME LINKS CLICKS: a fresh SQLite database $BENCH_DIR/NAME.sqlite, kept between runs (seeding 1M links takes
# a while); sets FERRY_BENCH_PUBLISHABLE_KEY and FERRY_BENCH_SECRET_KEY.
seed() {
    local name=$1 links=$2 clicks=$3
    local db="$BENCH_DIR/$name.sqlite" keys="$BENCH_DIR/$name.keys"
    if [ ! -f "$keys" ] || [ ! -f "$db" ]; then
        rm -f "$db" "$db-wal" "$db-shm" "$keys"
        echo "seeding $name: $links links, $clicks clicks…" >&2
        "$BIN/FerryBench" seed --database "sqlite:$db" --links "$links" --clicks "$clicks" > "$keys.tmp"
        mv "$keys.tmp" "$keys"
    fi
    set -a; . "$keys"; set +a
    DB="$db"
}

# scratch DB NAME: a copy of a seeded database to run against (clicks and answers recorded by a run stay out of the
# seed); sets DB to the copy.
scratch() {
    rm -f "$BENCH_DIR/$2.sqlite" "$BENCH_DIR/$2.sqlite-wal" "$BENCH_DIR/$2.sqlite-shm"
    cp "$1" "$BENCH_DIR/$2.sqlite"
    # The write-ahead log holds the latest writes until a checkpoint: it is part of the database.
    if [ -f "$1-wal" ]; then cp "$1-wal" "$BENCH_DIR/$2.sqlite-wal"; fi
    DB="$BENCH_DIR/$2.sqlite"
}

# start_ferry DB PORT [env…]: starts `ferry serve` and waits until it answers; sets FERRY_PID.
start_ferry() {
    local db=$1 port=$2; shift 2
    env FERRY_LOG_LEVEL=warning "$@" "$BIN/ferry" serve --database "sqlite:$db" --port "$port" > "$BENCH_DIR/ferry-$port.log" 2>&1 &
    FERRY_PID=$!
    SERVER_PIDS+=("$FERRY_PID")
    wait_for "http://127.0.0.1:$port/healthz"
}

wait_for() {
    for _ in $(seq 1 600); do
        curl -fs -o /dev/null "$1" && return 0
        sleep 0.05
    done
    echo "no answer from $1" >&2; exit 1
}

stop_servers() {
    for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    SERVER_PIDS=()
}
trap stop_servers EXIT

# rss_mb PID: resident memory in MiB.
rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# cpu_ticks PID…: processor time (user + system, all threads) the processes have used so far, in clock ticks.
cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
    echo "$total"
}

# per_request_us TICKS REQUESTS: processor time per request in microseconds.
per_request_us() { python3 -c "print('%.1f' % ($1 * 1e6 / $(getconf CLK_TCK) / max(1, $2)))"; }

# metric PORT NAME: one value from /metrics.
metric() { curl -fs "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'; }

# run_wrk SCRIPT URL [seconds] [connections]: prints wrk's RESULT line.
run_wrk() {
    local script=$1 url=$2 seconds=${3:-$BENCH_SECONDS} connections=${4:-$BENCH_CONNECTIONS}
    wrk -t"$BENCH_THREADS" -c"$connections" -d"${seconds}s" --timeout 5s -s "$script" "$url" | grep '^RESULT'
}

# drain PORT: waits (up to 30 s) until Ferry on PORT holds no clicks still to be written.
drain() {
    for _ in $(seq 1 300); do
        [ "$(metric "$1" ferry_clicks_pending)" = 0 ] && return 0
        sleep 0.1
    done
}

# median LINE…: the RESULT line of median throughput.
median() {
    printf '%s\n' "$@" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^rps=/) { split($i, v, "="); print v[2] "\t" $0 } }' \
        | sort -n | awk -v middle=$(( ($# + 1) / 2 )) 'NR == middle' | cut -f2-
}

# field LINE NAME: a value out of a RESULT line.
field() { tr ' ' '\n' <<< "$1" | awk -F= -v n="$2" '$1 == n { print $2 }'; }
