#!/usr/bin/env bash
# Builds in release mode and prints the benchmark figures (no assertions):
# TradingCore (order commands/s, market events/s), MarketData (search latency, quotes/s, bars/s, calibration) and
# account performance (the five-year report against its 10 ms target), and durable order commands/s with 1, 2 and 4
# shard owners.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product TradingCoreBench
swift build -c release --product MarketDataBench
swift build -c release --product PerformanceBench
swift build -c release --product ShardBench
echo "== TradingCore"
.build/release/TradingCoreBench
echo
echo "== MarketData"
.build/release/MarketDataBench "${PAPERTRADE_SHARED_DATA:-../shared/data}"
echo
echo "== Account performance"
.build/release/PerformanceBench
echo
echo "== Shards"
.build/release/ShardBench
