#!/usr/bin/env bash
# Fuzzes Ferry's API with schemathesis (from PyPI) against docs/openapi.yaml and live servers, in two runs, with all of
# schemathesis' checks. It fails (non-zero) when either run reports a failure: an answer that is a 5xx, has a status
# code the description does not list for the operation, a Content-Type it does not list, a body that breaks the
# documented schema or lacks a documented header; a method an operation does not have not answered 405 with Allow; a
# request the description calls invalid accepted, or one it calls valid refused.
#
# 1. The plain run, exactly as anyone would type it: a fresh `ferry serve` on a scratch SQLite database (with
#    FERRY_RATE_LIMITS=off) and `schemathesis run docs/openapi.yaml --checks all --url … -H "Authorization: Bearer …"`
#    with the secret key that first start printed, and nothing else: every operation of the description, with
#    schemathesis' defaults. It proves the description exact: nothing it allows is refused, nothing it refuses taken.
# 2. The configured run: every /v1 operation and every compatibility operation (/api/v1/…), plus the probes and the
#    link domain's JSON routes, against a server holding real links, clicks and a webhook, with the kind of key each
#    operation lists first and dictionaries of real ids, slugs, click tokens and referrers, so that requests also
#    reach what only existing data opens.
#
#   scripts/fuzz-api.sh                          # build `ferry` (debug), fuzz, stop the servers
#   FERRY_FUZZ_MAX_EXAMPLES=200 scripts/fuzz-api.sh   # more requests per operation in the configured run (default 50)
#   FERRY_FUZZ_SEED=1234 scripts/fuzz-api.sh          # replay a configured run (the seed is printed by schemathesis)
#   FERRY_FUZZ_KEEP=1 scripts/fuzz-api.sh             # keep the reports and the server's log of a run that passed
#
# schemathesis is installed once into a virtualenv under ${XDG_CACHE_HOME:-~/.cache}/ferry-fuzz (python3-venv comes
# from Debian's packages when missing). Each server runs on a free port of 127.0.0.1 with a scratch SQLite database in
# a temporary directory; the configured run's holds one app with a secret and a publishable key and a few links and a
# webhook, so that operations with an id in their path hit real ids as well as unknown ones. The configured run's
# reports (JUnit, and a cassette of every request and answer), both runs' output and the servers' logs are kept in the
# directory printed at the end when a run fails.
set -euo pipefail
cd "$(dirname "$0")/.."

schemathesis_version=4.32.5
max_examples="${FERRY_FUZZ_MAX_EXAMPLES:-50}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ferry-fuzz"
venv="$cache/schemathesis-$schemathesis_version"

# schemathesis, pinned: its checks and command line change between minor versions.
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -qF "$schemathesis_version"; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        else
            echo "fuzz-api: python3 with the venv module is needed (Debian: apt-get install python3-venv)" >&2
            exit 1
        fi
    fi
    rm -rf "$venv"
    mkdir -p "$cache"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version"
fi
"$venv/bin/schemathesis" --version

swift build --product ferry
ferry="$(swift build --show-bin-path)/ferry"

work="$(mktemp -d "${TMPDIR:-/tmp}/ferry-fuzz.XXXXXX")"
server_pid=""
server_log=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
cleanup() {
    local status=$?
    stop_server
    if [ "$status" = 0 ] && [ -z "${FERRY_FUZZ_KEEP:-}" ]; then
        rm -rf "$work"
    elif [ "$status" = 0 ]; then
        echo "fuzz-api: passed; reports and the servers' logs are in $work"
    else
        echo "fuzz-api: failed; reports and the servers' logs are in $work" >&2
        if [ -n "$server_log" ] && [ -f "$server_log" ]; then
            echo "--- last lines of the server's log ($server_log) ---" >&2
            tail -n 40 "$server_log" >&2
        fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts `ferry serve` on a free port with the database given and rate limits off; sets base to its URL.
start_server() {
    server_log="$work/$1.log"
    : >"$server_log"
    FERRY_RATE_LIMITS=off "$ferry" serve --database "$2" --host 127.0.0.1 --port 0 >"$server_log" 2>&1 &
    server_pid=$!
    base=""
    for _ in $(seq 1 300); do
        base="$(sed -n 's/^Ferry is running at \(http:[^ ]*\).*/\1/p' "$server_log" | head -n 1)"
        [ -n "$base" ] && break
        kill -0 "$server_pid" 2>/dev/null || { echo "fuzz-api: the server stopped before it listened" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$base" ] || { echo "fuzz-api: the server did not start listening within 30 s" >&2; exit 1; }
    echo "fuzz-api: Ferry at $base, database $2"
}

# Both runs read this from their directory. A body over its route's limit is refused with the 413 the description
# lists before anything reads it, malformed or not; schemathesis' own list of what rejects malformed data lacks 413.
checks_toml='[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]'
printf '%s\n' "$checks_toml" >"$work/schemathesis.toml"

# 1. The plain run. The first start on an empty database makes the default app and prints its keys.
status=0
start_server plain "sqlite:$work/plain.sqlite"
plain_key="$(sed -n 's/^Secret key.*\(fs_live_[A-Za-z0-9]\{32\}\).*/\1/p' "$server_log" | head -n 1)"
[ -n "$plain_key" ] || { echo "fuzz-api: the first start printed no secret key" >&2; exit 1; }
echo "fuzz-api: the plain run: schemathesis run docs/openapi.yaml --checks all --url $base -H 'Authorization: Bearer fs_live_…'"
# From the run's directory, so that what schemathesis keeps between runs (failures to replay) starts empty and goes.
repository="$PWD"
(cd "$work" && "$venv/bin/schemathesis" run "$repository/docs/openapi.yaml" --checks all --url "$base" -H "Authorization: Bearer $plain_key") 2>&1 \
    | tee "$work/plain-run.txt" || status=1
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "fuzz-api: the server died during the plain run" >&2
    status=1
fi
stop_server

# 2. The configured run.
# The data the fuzzer works against, made with the command-line tool as an operator would.
database="sqlite:$work/ferry.sqlite"
app="$("$ferry" app create --database "$database" --name "Fuzzed app" --domain 127.0.0.1 --domain localhost \
    --bundle-id com.example.fuzz --team-id ABCDE12345 --app-store-id 1234567890 --url-scheme fuzz \
    --android-package com.example.fuzz --fallback-url https://example.com/ --copy-to-open)"
secret="$("$ferry" key create --database "$database" --app "$app" --kind secret --env live)"
publishable="$("$ferry" key create --database "$database" --app "$app" --kind publishable --env live)"
link_id() { python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }
links=()
deletable=()
slugs=("fuzz-1" "fuzz-2" "FUZZ-3")
for n in 1 2 3; do
    links+=("$("$ferry" link create --database "$database" --app "$app" --slug "fuzz-$n" --destination "https://example.com/$n" \
        --ios-url "fuzz://item/$n" --android-url "fuzz://item/$n" --param "item=$n" --utm-source fuzz --campaign fuzz \
        --title "Link $n" --json | link_id)")
    deletable+=("$("$ferry" link create --database "$database" --app "$app" --slug "fuzz-gone-$n" \
        --destination "https://example.com/gone/$n" --json | link_id)")
done

start_server configured "$database"

# Clicks, as an iPhone and an Android phone without the app make them: their "copy to open" tokens and Play Store
# referrers let matches succeed (each click is given to one install at most), and the probabilistic tier and the
# deferred deep link have clicks from this address to weigh.
iphone='Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'
android='Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'
click_id() { grep -o 'clk_[A-Za-z0-9]\{22\}' | head -n 1; }
tokens=()
referrers=()
for n in 1 2 3; do
    for _ in 1 2; do
        tokens+=("ferry:$(curl -fsS -A "$iphone" "$base/fuzz-$n" | click_id)")
        referrers+=("ferry_click_id=$(curl -sS -o /dev/null -w '%{redirect_url}' -A "$android" "$base/fuzz-$n" | python3 -c \
            'import sys, urllib.parse; print(urllib.parse.unquote(sys.stdin.read()))' | click_id)&utm_source=fuzz")
    done
done
# A disabled link and an expired one, for the answers of links that no longer work.
for state in '{"disabled": true}' '{"expiresAt": "2020-01-01T00:00:00Z"}'; do
    id="$("$ferry" link create --database "$database" --app "$app" --destination https://example.com/off --json | link_id)"
    slug="$(curl -fsS -X PATCH "$base/v1/links/$id" -H "Authorization: Bearer $secret" -H 'Content-Type: application/json' -d "$state" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["slug"])')"
    slugs+=("$slug")
done
webhook="$(curl -fsS -X POST "$base/v1/webhooks" -H "Authorization: Bearer $secret" -H 'Content-Type: application/json' \
    -d '{"url": "https://hooks.example.com/ferry"}' | link_id)"

toml_list() { printf '"%s", ' "$@" | sed 's/, $//'; }
cat >"$work/schemathesis.toml" <<EOF
# Generated by scripts/fuzz-api.sh for one run.
# What schemathesis keeps between runs (failures to replay) stays in the run's directory, out of the work tree.
[cache]
directory = "$work/cache"

$checks_toml

[generation]
max-examples = $max_examples

# Each operation gets the kind of key its security requirements list first: a secret key for link management,
# statistics, exports and webhooks, a publishable key for the SDK routes. Negative cases still drop or break it.
[auth.openapi.secretKeyBearer]
bearer = "$secret"
[auth.openapi.secretKeyHeader]
api_key = "$secret"
[auth.openapi.publishableKeyBearer]
bearer = "$publishable"
[auth.openapi.publishableKeyHeader]
api_key = "$publishable"

[dictionaries.links]
values = [$(toml_list "${links[@]}")]
[dictionaries.deletable-links]
values = [$(toml_list "${deletable[@]}")]
[dictionaries.webhooks]
values = ["$webhook"]
[dictionaries.slugs]
values = [$(toml_list "${slugs[@]}")]
[dictionaries.click-tokens]
values = [$(toml_list "${tokens[@]}")]
[dictionaries.referrers]
values = [$(toml_list "${referrers[@]}")]

[[operations]]
include-path-regex = '^/v1/links/\{id\}'
exclude-method = "DELETE"
parameters = { "path.id" = { dictionary = "links", probability = 0.7 } }

[[operations]]
include-operation-id = "deleteLink"
parameters = { "path.id" = { dictionary = "deletable-links", probability = 0.5 } }

[[operations]]
include-path-regex = '^/v1/webhooks/\{id\}/deliveries'
parameters = { "path.id" = { dictionary = "webhooks", probability = 0.7 } }

# FDL's link statistics take a whole short link, percent-encoded as one path segment.
[dictionaries.short-links]
values = [$(for slug in "${slugs[@]}"; do printf '"http%%3A%%2F%%2F127.0.0.1%%2F%s", ' "$slug"; done | sed 's/, $//')]
[[operations]]
include-operation-id = "firebaseLinkStats"
parameters = { "path.shortLink" = { dictionary = "short-links", probability = 0.7 } }

[[operations]]
include-path-regex = '\{slug\}$'
parameters = { "path.slug" = { dictionary = "slugs", probability = 0.7 } }

# The LimeLink-style event route reads its key from the body.
[dictionaries.keys]
values = ["$publishable", "$secret"]
[[operations]]
include-operation-id = "limeLinkStatsEvent"
parameters = { "body.private_key" = { dictionary = "keys", probability = 0.8 }, "body.suffix" = { dictionary = "slugs", probability = 0.7 } }

# The app's own link domains, so that new links and lookups also land on them (a domain of no app is a 404). A lookup
# takes a host as a Universal Link gives it, so a trailing dot too.
[dictionaries.domains]
values = ["127.0.0.1", "localhost", "LOCALHOST"]
[dictionaries.hosts]
values = ["127.0.0.1", "localhost", "LOCALHOST."]
[[operations]]
include-operation-id = "createLink"
parameters = { "body.domain" = { dictionary = "domains", probability = 0.6 } }
[[operations]]
include-operation-id = "resolveLink"
parameters = { "query.domain" = { dictionary = "hosts", probability = 0.7 } }
[[operations]]
include-operation-id = "matchInstall"
parameters = { "body.clickToken" = { dictionary = "click-tokens", probability = 0.3 }, "body.referrer" = { dictionary = "referrers", probability = 0.3 } }
[[operations]]
include-operation-id = "recordEvents"
parameters = { "body.events[*].linkID" = { dictionary = "links", probability = 0.7 } }
EOF

# The JSON API: /v1, the compatibility routes (/api/v1), the probes, and the link domain's JSON routes (the association
# files and the interstitial's report); the plain run covered the pages and /openapi.yaml as well.
# One worker: schemathesis' threads trip a CPython 3.11 bug in `ast` (Debian's python3), and one is enough here.
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run docs/openapi.yaml \
    --url "$base" \
    --include-path-regex '^/(v1|api/v1)/|^/(healthz|readyz|\.well-known/.*|apple-app-site-association|\.ferry/signals)$' \
    --checks all \
    --workers 1 \
    --max-failures 50 \
    --request-timeout 10 \
    --no-color \
    ${FERRY_FUZZ_SEED:+--seed "$FERRY_FUZZ_SEED"} \
    --report junit,vcr --report-dir "$work/report" \
    || status=1
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "fuzz-api: the server died during the configured run" >&2
    status=1
fi
exit "$status"
