#!/usr/bin/env python3
"""Builds Sources/MarketData/Resources/history-daily.csv from the real daily series in ../shared/data (see its
README; provenance in Sources/MarketData/Resources/DATA-SOURCES.md): the backtester's bundled real history; and
history-000338-5min.csv from the real 5-minute series of 000338 (cn-5min-2007-2020.csv.gz: forward-adjusted like the
daily series; columns datetime,open,high,low,close,volume, each bar stamped at its end in Shanghai time, seconds,
name and turnover dropped, volume to whole shares).

One file, columns symbol,date,open,high,low,close,volume, symbols in order, dates ascending:
- US (us-daily-2000-2013.csv.gz: AAPL, IBM, MSFT, GOOG, FB; unadjusted, with Adj Close): adjusted for splits and
  dividends with each day's Adj Close / Close factor (prices to 4 decimals, volume divided by the factor), so a
  split is not a crash in a backtest;
- A-shares (cn-daily-2005-2020.csv.gz: 8 stocks, already forward-adjusted): as they are, dated by day.
Decimal arithmetic only. Run from the repository root: python3 scripts/build-history.py
"""
import csv
import gzip
import io
import os
from decimal import Decimal, ROUND_HALF_UP

root = os.path.dirname(os.path.abspath(__file__)) + "/.."
data = os.environ.get("PAPERTRADE_SHARED_DATA", root + "/../shared/data")
out_path = root + "/Sources/MarketData/Resources/history-daily.csv"

rows = []
with gzip.open(data + "/us-daily-2000-2013.csv.gz", "rt") as f:
    for r in csv.DictReader(f):
        close, adjusted = Decimal(r["Close"]), Decimal(r["Adj Close"])
        factor = adjusted / close
        q = lambda v: (Decimal(v) * factor).quantize(Decimal("0.0001"), ROUND_HALF_UP)
        volume = (Decimal(r["Volume"]) / factor).quantize(Decimal("1"), ROUND_HALF_UP)
        rows.append((r["Ticker"], r["Date"], q(r["Open"]), q(r["High"]), q(r["Low"]), q(r["Close"]), volume))
with gzip.open(data + "/cn-daily-2005-2020.csv.gz", "rt") as f:
    for r in csv.DictReader(f):
        volume = Decimal(r["volume"]).quantize(Decimal("1"), ROUND_HALF_UP)
        rows.append((r["code"], r["timestamp"][:10], r["open"], r["high"], r["low"], r["close"], volume))

order = []
for r in rows:
    if r[0] not in order:
        order.append(r[0])
rows.sort(key=lambda r: (order.index(r[0]), r[1]))
buffer = io.StringIO()
buffer.write("symbol,date,open,high,low,close,volume\n")
for r in rows:
    buffer.write(",".join(str(v) for v in r) + "\n")
with open(out_path, "w") as f:
    f.write(buffer.getvalue())
print(f"{len(rows)} bars of {len(order)} symbols → {os.path.relpath(out_path, root)}")

five_path = root + "/Sources/MarketData/Resources/history-000338-5min.csv"
five = io.StringIO()
five.write("datetime,open,high,low,close,volume\n")
count = 0
dropped = []
with gzip.open(data + "/cn-5min-2007-2020.csv.gz", "rt") as f:
    for r in csv.DictReader(f):
        assert r["code"] == "000338", r["code"]
        # Off the 5-minute grid (2019-11-04 14:11 and 14:24, a stray partial bar and a copy of 14:25): dropped, so
        # the series is 5-minute bars only.
        if int(r["timestamp"][14:16]) % 5 != 0:
            dropped.append(r["timestamp"][:16])
            continue
        volume = Decimal(r["volume"]).quantize(Decimal("1"), ROUND_HALF_UP)
        five.write(f"{r['timestamp'][:16]},{r['open']},{r['high']},{r['low']},{r['close']},{volume}\n")
        count += 1
with open(five_path, "w") as f:
    f.write(five.getvalue())
print(f"{count} five-minute bars of 000338 → {os.path.relpath(five_path, root)} (off the grid, dropped: {dropped})")
