#!/usr/bin/env bash
# Start-up: the time from starting `ferry serve` to its first answered request (a redirect), on an empty database
# and on 1 million links, best and median of 5.
. "$(dirname "$0")/lib.sh"
build_release
seed "links-1000000" 1000000 0
big=$DB
time_start() {  # DB → milliseconds to the first redirect
    python3 - "$BIN/ferry" "$1" <<'PY'
import http.client, subprocess, sys, time, os
binary, db = sys.argv[1], sys.argv[2]
env = dict(os.environ, FERRY_LOG_LEVEL="warning")
start = time.monotonic()
server = subprocess.Popen([binary, "serve", "--database", "sqlite:" + db, "--port", "18090"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", 18090, timeout=1)
            connection.request("GET", "/b0", headers={"Host": "bench.test"})
            status = connection.getresponse().status
            if status in (302, 404):
                break
        except OSError:
            time.sleep(0.001)
    print("%.1f" % ((time.monotonic() - start) * 1000))
finally:
    server.terminate(); server.wait()
PY
}
report() {
    sort -n | awk '{ v[NR] = $1 } END { printf "best %s ms, median %s ms\n", v[1], v[int((NR + 1) / 2)] }'
}
rm -f "$BENCH_DIR/empty.sqlite"*
time_start "$BENCH_DIR/empty.sqlite" > /dev/null   # creates and migrates it once
echo "start-up to the first answered request (5 runs)"
echo "  empty database:  $(for _ in 1 2 3 4 5; do time_start "$BENCH_DIR/empty.sqlite"; done | report)"
echo "  1,000,000 links: $(for _ in 1 2 3 4 5; do time_start "$big"; done | report)"
