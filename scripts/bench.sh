#!/usr/bin/env bash
# Builds in release mode and prints the benchmark figures (no assertions):
# TradingCore (order commands/s, market events/s) and MarketData (search latency, quotes/s, bars/s, calibration).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product TradingCoreBench
swift build -c release --product MarketDataBench
echo "== TradingCore"
.build/release/TradingCoreBench
echo
echo "== MarketData"
.build/release/MarketDataBench "${PAPERTRADE_SHARED_DATA:-../shared/data}"
