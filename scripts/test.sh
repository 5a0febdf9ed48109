#!/usr/bin/env bash
# Runs the whole papertrade test suite. CI (.ci/run) calls exactly this.
#   1. swift test: TradingCore, MarketData, Storage and Server (unit, specification, property-based, HTTP);
#      the storage suite runs on SQLite and on a throwaway PostgreSQL server this script starts
#   2. end-to-end: the built server driven by the real alpaca-py client (pytest), incl. a kill -9 crash test
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== PostgreSQL for the storage tests"
pgdir=$(mktemp -d)/pg
trap 'bash scripts/postgres.sh stop "$pgdir" 2>/dev/null || true' EXIT
PAPERTRADE_TEST_POSTGRES_URL=$(bash scripts/postgres.sh start "$pgdir" | tail -1)
export PAPERTRADE_TEST_POSTGRES_URL

echo "== swift test"
swift build --build-tests
swift test --skip-build

echo "== end-to-end (alpaca-py against the built server)"
venv=.build/e2e-venv
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r tests/e2e/requirements.txt
fi
PAPERTRADE_BINARY="$PWD/.build/debug/papertrade" "$venv/bin/pytest" -q tests/e2e
