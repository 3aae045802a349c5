#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1 for the tests (installing it from Debian's packages when it is missing
# and this runs as root) and prints its URL, the value of FERRY_TEST_POSTGRES_URL:
#
#   export FERRY_TEST_POSTGRES_URL="$(scripts/test-postgres.sh)"
#   swift test
#
# The cluster lives in $FERRY_TEST_POSTGRES_DIR (default /tmp/ferry-test-postgres) on port $FERRY_TEST_POSTGRES_PORT
# (default 54329), trusts local connections, and its database ferry_test is dropped and created anew on each run.
# It also speaks TLS, with a certificate for the name localhost from a throwaway authority whose certificate is named in the
# URL's `sslrootcert` (the URL itself says `sslmode=disable`; the TLS tests ask for `verify-full` with it).
# `scripts/test-postgres.sh stop` and `… start` stop and start that cluster without touching its data (the tests
# use them to take the database away from a running server).
set -euo pipefail
ACTION="${1:-setup}"
PORT="${FERRY_TEST_POSTGRES_PORT:-54329}"
DIR="${FERRY_TEST_POSTGRES_DIR:-/tmp/ferry-test-postgres}"

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
BIN="$(find_bin)"
if [ -z "$BIN" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing PostgreSQL from Debian's packages…" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2
        BIN="$(find_bin)"
    else
        echo "PostgreSQL is not installed; install the 'postgresql' package" >&2
        exit 1
    fi
fi

# PostgreSQL refuses to run as root: run it as the postgres user when we are root.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
TLS="$DIR/tls"
OPTIONS="-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300"
OPTIONS="$OPTIONS -c ssl=on -c ssl_cert_file=$TLS/server.crt -c ssl_key_file=$TLS/server.key"
case "$ACTION" in
    stop) as_owner "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >&2; exit 0 ;;
    start) as_owner "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -o "$OPTIONS" start >&2
           exit 0 ;;
    setup) ;;
    *) echo "usage: $0 [setup|start|stop]" >&2; exit 64 ;;
esac
mkdir -p "$DIR"
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; chmod 700 "$DIR"; fi
if [ ! -f "$DIR/PG_VERSION" ]; then
    as_owner "$BIN/initdb" -D "$DIR" -U ferry --auth=trust -E UTF8 --no-locale >&2
fi
if ! command -v openssl >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssl >&2
    else
        echo "openssl is not installed; install the 'openssl' package" >&2
        exit 1
    fi
fi
# A throwaway authority and a certificate for the name localhost only (no address: the tests check that under
# verify-full a server reached as 127.0.0.1, which the certificate does not name, is refused).
if [ ! -f "$TLS/server.crt" ]; then
    mkdir -p "$TLS"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Ferry test authority" \
        -keyout "$TLS/ca.key" -out "$TLS/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>/dev/null
    printf 'subjectAltName = DNS:localhost\n' >"$TLS/server.ext"
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial -days 3650 \
        -extfile "$TLS/server.ext" -out "$TLS/server.crt" 2>/dev/null
    chmod 600 "$TLS/server.key" "$TLS/ca.key"
    if [ "$(id -u)" = 0 ]; then chown postgres "$TLS/server.key"; fi
fi
if ! as_owner "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
    as_owner "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -o "$OPTIONS" start >&2
fi
"$BIN/psql" -q -h 127.0.0.1 -p "$PORT" -U ferry -d postgres -c "DROP DATABASE IF EXISTS ferry_test WITH (FORCE)" >&2
"$BIN/psql" -q -h 127.0.0.1 -p "$PORT" -U ferry -d postgres -c "CREATE DATABASE ferry_test" >&2
echo "postgres://ferry@127.0.0.1:$PORT/ferry_test?sslmode=disable&sslrootcert=$TLS/ca.crt"
