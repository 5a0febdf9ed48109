#!/usr/bin/env bash
# Runs papertrade on its embedded defaults (simulated market, SQLite in ./data).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d Sources/papertrade ]; then
    echo "papertrade serve is not built yet: the server lands with issue #4 (Server)." >&2
    echo "What exists today is the TradingCore library; see README.md for its tests and benchmark." >&2
    exit 1
fi
exec swift run -c release papertrade serve "$@"
