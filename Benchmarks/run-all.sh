#!/usr/bin/env bash
# Every benchmark in turn (about 40 minutes on two cores, the first seeding included); figures in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")"
for script in redirect.sh scale.sh ingest.sh match.sh startup.sh memory.sh; do
    echo "== $script"
    "./$script"
done
