#!/usr/bin/env bash
# Backpressure: clients that pipeline clicks as fast as the server takes them and never read an answer, against a
# release `ferry serve`. Prints, every few seconds, the server's resident memory, what the clients got into their
# sockets and how many clicks the server answered: a server that keeps reading such clients holds every answer in
# memory and grows without bound; one that stops reading them stays flat.
#   Benchmarks/backpressure.sh   (BENCH_SECONDS=60 BENCH_CLIENTS=8 BENCH_RSS_LIMIT_MB=2048)
# The run stops early when the server's memory passes BENCH_RSS_LIMIT_MB, so that a server without backpressure
# does not take the machine down. FERRY_READ_TIMEOUT is raised for the run, so that the server keeps the stalled
# connections open for all of it (by default it closes them after 75 s of silence).
. "$(dirname "$0")/lib.sh"
SECONDS_TO_RUN=${BENCH_SECONDS:-60}
CLIENTS=${BENCH_CLIENTS:-8}
RSS_LIMIT_MB=${BENCH_RSS_LIMIT_MB:-2048}
build_release
seed "links-1000" 1000 0
scratch "$DB" run
start_ferry "$DB" 18080 FERRY_READ_TIMEOUT=3600
echo "pipelining clients that never read: $CLIENTS connections, ${SECONDS_TO_RUN} s, ferry pid $FERRY_PID"
python3 - "$FERRY_PID" 18080 "$SECONDS_TO_RUN" "$CLIENTS" "$RSS_LIMIT_MB" <<'PY'
import http.client, select, socket, sys, time
pid, port, duration, clients, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])

def rss_mib():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0

def fast_answers():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    for line in connection.getresponse().read().decode().splitlines():
        if line.startswith("ferry_edge_fast_answers_total "):
            return int(float(line.split()[1]))
    return 0

# A click as a desktop browser sends it, on the benchmark links' domain; 1,000 of them per write.
click = ("GET /b0 HTTP/1.1\r\nHost: bench.test\r\nUser-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) "
         "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\nAccept-Language: en-US,en;q=0.9\r\n\r\n").encode()
chunk = click * 1000
sockets = []
for _ in range(clients):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)  # the answers stay on the server's side
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    sockets.append(s)
pending = {s: memoryview(chunk) for s in sockets}
sent = 0
answered_before = fast_answers()
start = time.monotonic()
next_report = 0.0
print("%8s %12s %14s %16s" % ("seconds", "RSS MiB", "MiB sent", "clicks answered"))
while True:
    elapsed = time.monotonic() - start
    if elapsed >= next_report:
        rss = rss_mib()
        print("%8.0f %12.1f %14.1f %16d" % (elapsed, rss, sent / 1048576.0, fast_answers() - answered_before), flush=True)
        if rss > limit:
            print("stopped: resident memory passed %d MiB" % limit)
            break
        next_report += 5.0
    if elapsed >= duration:
        break
    _, writable, _ = select.select([], sockets, [], 0.5)
    for s in writable:
        try:
            count = s.send(pending[s])
        except BlockingIOError:
            continue
        sent += count
        pending[s] = pending[s][count:]
        if len(pending[s]) == 0:
            pending[s] = memoryview(chunk)
for s in sockets:
    s.close()
PY
echo "resident memory after the clients left: $(rss_mb "$FERRY_PID") MiB"
