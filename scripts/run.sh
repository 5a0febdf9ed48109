#!/usr/bin/env bash
# Runs papertrade on its embedded defaults: simulated market, SQLite in ./data, http://127.0.0.1:8080.
# Extra arguments go to `papertrade serve` (e.g. --port 9000 --clock always-open). The server runs under
# scripts/supervise.sh: if it ever dies of a signal (a trap, a segfault, an out-of-memory kill) it is started again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-web-vendor.sh || echo "run.sh: could not fetch the chart library; the web app runs without charts" >&2
swift build -c release --product papertrade
exec bash scripts/supervise.sh .build/release/papertrade serve "$@"
