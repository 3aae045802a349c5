#!/usr/bin/env bash
# Installs, from Debian's packages, the outside programs some tests use to check Ferry's output with real tools:
# zbarimg (zbar-tools) reads the QR codes Ferry draws, and headless Chromium (chromium-headless-shell) drives the
# dashboard; and, from PyPI, axe-core, which checks the dashboard's pages for accessibility. Without them those tests
# are skipped on a developer's machine; CI (CI set) requires them.
set -euo pipefail
missing=()
command -v zbarimg >/dev/null || missing+=(zbar-tools)
command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null || missing+=(chromium-headless-shell fonts-dejavu-core)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing ${missing[*]} from Debian's packages…" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
    else
        echo "missing ${missing[*]}: install them (apt-get install ${missing[*]}) to run every test" >&2
    fi
fi

# axe-core, the accessibility checker the dashboard's browser tests run, as the axe-selenium-python package on PyPI
# ships it; kept under .build/ (never committed).
axe=".build/test-tools/axe.min.js"
cd "$(dirname "$0")/.."
if [ ! -s "$axe" ] && command -v python3 >/dev/null; then
    download="$(mktemp -d)"
    if python3 -m pip download --quiet --no-deps --dest "$download" "axe-selenium-python==2.1.6" >&2; then
        mkdir -p "$(dirname "$axe")"
        python3 - "$download" "$axe" <<'PY'
import glob, sys, zipfile
wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])
with open(sys.argv[2], "wb") as out:
    out.write(wheel.read("axe_selenium_python/node_modules/axe-core/axe.min.js"))
PY
        echo "axe-core installed at $axe" >&2
    else
        echo "axe-core could not be downloaded from PyPI: the accessibility checks are skipped" >&2
    fi
    rm -rf "$download"
fi
