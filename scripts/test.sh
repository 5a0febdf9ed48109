#!/usr/bin/env bash
# Runs the whole papertrade test suite. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift test (TradingCore and MarketData: unit, specification and property-based tests)"
swift build --build-tests
swift test --skip-build
