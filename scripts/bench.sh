#!/usr/bin/env bash
# Builds in release mode and prints the TradingCore benchmark figures (no assertions).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product TradingCoreBench
.build/release/TradingCoreBench
