"""The backtester against a reference implementation: backtrader (PyPI, pinned) runs the same moving-average
crossover on the same generated file of 120,000 one-minute bars with two-decimal prices, and both must make the same
round trips at the same prices with the same P&L to the cent.

The strategy is backtrader's textbook one: buy 1 share when SMA(10) crosses above SMA(30) (backtrader's CrossOver),
close the position when it crosses below; market orders fill at the next bar's open; no commission."""
import json
import random
import subprocess
import time
from datetime import datetime, timedelta
from decimal import Decimal

import backtrader as bt

from conftest import BINARY

BARS = 120_000


def generate(path, seed=20261124):
    """A random walk in cents (never below $1), opens a few cents from the previous close.

    Where SMA(10) and SMA(30) of the closes would be exactly equal, the close is moved up a cent: at an exact tie
    backtrader's float averages differ in the last bit either way and decide the "cross" by rounding, while papertrade
    compares exactly (equal is no cross; BacktestTests covers that). Away from ties both must agree to the cent."""
    rng = random.Random(seed)
    t = datetime(2024, 1, 1)
    close = 10_000
    closes = []
    lines = ["datetime,open,high,low,close,volume"]
    for _ in range(BARS):
        open_ = max(100, close + rng.randint(-3, 3))
        close = max(100, open_ + rng.randint(-12, 12))
        while len(closes) >= 29 and 3 * (sum(closes[-9:]) + close) == sum(closes[-29:]) + close:
            close += 1
        closes.append(close)
        high = max(open_, close) + rng.randint(0, 5)
        low = max(50, min(open_, close) - rng.randint(0, 5))
        lines.append(f"{t:%Y-%m-%d %H:%M:%S},{open_ / 100:.2f},{high / 100:.2f},{low / 100:.2f},{close / 100:.2f},1000")
        t += timedelta(minutes=1)
    path.write_text("\n".join(lines) + "\n")


class SmaCross(bt.Strategy):
    params = dict(fast=10, slow=30)

    def __init__(self):
        self.crossover = bt.ind.CrossOver(bt.ind.SMA(period=self.p.fast), bt.ind.SMA(period=self.p.slow))
        self.trades = []

    def next(self):
        if not self.position:
            if self.crossover > 0:
                self.buy(size=1)
        elif self.crossover < 0:
            self.close()

    def notify_trade(self, trade):
        if trade.isclosed:
            self.trades.append((Decimal(str(round(trade.price, 2))), Decimal(str(round(trade.pnl, 2)))))


def run_backtrader(path):
    cerebro = bt.Cerebro(stdstats=False)
    cerebro.broker.setcash(1_000_000)
    cerebro.adddata(bt.feeds.GenericCSVData(
        dataname=str(path), dtformat="%Y-%m-%d %H:%M:%S", timeframe=bt.TimeFrame.Minutes, compression=1,
        datetime=0, open=1, high=2, low=3, close=4, volume=5, openinterest=-1))
    cerebro.addstrategy(SmaCross)
    started = time.perf_counter()
    strategy = cerebro.run()[0]
    return strategy.trades, Decimal(str(round(cerebro.broker.getvalue(), 2))), time.perf_counter() - started


def test_same_round_trips_and_pnl_as_backtrader(tmp_path):
    data = tmp_path / "walk.csv"
    generate(data)
    report_path = tmp_path / "report.json"
    started = time.perf_counter()
    run = subprocess.run(
        [BINARY, "backtest", "--data", str(data), "--timezone", "UTC", "--strategy", "sma-cross", "--param", "fast=10",
         "--param", "slow=30", "--qty", "1", "--cash", "1000000", "--commission", "none", "--report", "json",
         "--out", str(report_path)], capture_output=True, text=True, timeout=600)
    ours_seconds = time.perf_counter() - started
    assert run.returncode == 0, run.stderr
    report = json.loads(report_path.read_text())
    reference, reference_value, reference_seconds = run_backtrader(data)
    print(f"{BARS} bars: papertrade {ours_seconds:.2f} s (whole command), backtrader {reference_seconds:.2f} s")

    closed = [t for t in report["trade_list"] if t["exit_time"] is not None]
    assert report["bars"] == BARS
    assert len(closed) == len(reference) > 100, (len(closed), len(reference))
    ours = [(Decimal(t["entry_price"]), Decimal(t["pnl"])) for t in closed]
    mismatches = [(i, a, b) for i, (a, b) in enumerate(zip(ours, reference)) if a != b]
    assert not mismatches, mismatches[:5]
    assert sum(p for _, p in ours) == sum(p for _, p in reference)
    # The final value: cash plus any open position at the last close, as backtrader's broker counts it.
    assert Decimal(report["final_equity"]) == reference_value
