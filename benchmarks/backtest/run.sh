#!/usr/bin/env bash
# Backtest speed next to backtrader's on the same file: prints figures, asserts nothing.
#   bash benchmarks/backtest/run.sh [BARS]       (default 1,000,000 one-minute bars)
# Builds BacktestBench in release, has it generate the bars (and write them as CSV) and time SMA(10)/SMA(30), qty 1,
# through the real engine; then runs backtrader (PyPI, pinned in tests/e2e/requirements.txt, from the e2e venv
# that scripts/test.sh makes) over the same CSV with the same strategy.
set -euo pipefail
cd "$(dirname "$0")/../.."
bars="${1:-1000000}"
csv="$(mktemp --suffix=.csv)"
trap 'rm -f "$csv"' EXIT
swift build -c release --product BacktestBench >/dev/null
.build/release/BacktestBench "$bars" "$csv"
venv=.build/e2e-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r tests/e2e/requirements.txt
fi
"$venv/bin/python" - "$csv" "$bars" <<'PY'
import sys
sys.path.insert(0, "tests/e2e")  # the reference test's strategy and runner: the same backtrader code
from test_backtest_reference import run_backtrader

bars = int(sys.argv[2])
_, _, seconds = run_backtrader(sys.argv[1])
print(f"backtrader 1.9.78.123: the same strategy over the same {bars} bars (CSV read included): {int(bars / seconds)} bars/s ({seconds:.1f} s)")
PY
