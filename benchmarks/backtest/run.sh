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
import sys, time
import backtrader as bt

class SmaCross(bt.Strategy):
    def __init__(self):
        self.crossover = bt.ind.CrossOver(bt.ind.SMA(period=10), bt.ind.SMA(period=30))
    def next(self):
        if not self.position:
            if self.crossover > 0:
                self.buy(size=1)
        elif self.crossover < 0:
            self.close()

cerebro = bt.Cerebro(stdstats=False)
cerebro.broker.setcash(1_000_000)
cerebro.adddata(bt.feeds.GenericCSVData(dataname=sys.argv[1], dtformat="%Y-%m-%d %H:%M:%S",
    timeframe=bt.TimeFrame.Minutes, compression=1, datetime=0, open=1, high=2, low=3, close=4, volume=5,
    openinterest=-1))
cerebro.addstrategy(SmaCross)
started = time.perf_counter()
cerebro.run()
seconds = time.perf_counter() - started
bars = int(sys.argv[2])
print(f"backtrader 1.9.78.123: the same strategy over the same {bars} bars (CSV read included): {int(bars / seconds)} bars/s ({seconds:.1f} s)")
PY
