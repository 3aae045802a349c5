#!/usr/bin/env bash
# Installs, from Debian's packages, the outside programs some tests use to check Ferry's output with real tools:
# zbarimg (zbar-tools) reads the QR codes Ferry draws, and headless Chromium (chromium-headless-shell) drives the
# dashboard. Without them those tests are skipped on a developer's machine; CI (CI set) requires them.
set -euo pipefail
missing=()
command -v zbarimg >/dev/null || missing+=(zbar-tools)
command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null || missing+=(chromium-headless-shell fonts-dejavu-core)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]} from Debian's packages…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
else
    echo "missing ${missing[*]}: install them (apt-get install ${missing[*]}) to run every test" >&2
fi
