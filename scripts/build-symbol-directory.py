#!/usr/bin/env python3
"""Builds Sources/MarketData/Resources/symbols.tsv from the reference data in ../shared/data.

Run from the repository root: python3 scripts/build-symbol-directory.py [path/to/shared/data]
The output is data (facts) with its provenance in Sources/MarketData/Resources/DATA-SOURCES.md.
"""
import csv
import os
import sys
import unicodedata

data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
out = os.path.join(os.path.dirname(__file__), "..", "Sources", "MarketData", "Resources", "symbols.tsv")

OTHER_EXCHANGES = {"N": "NYSE", "P": "ARCA", "Z": "BATS", "A": "AMEX"}
SEC_EXCHANGES = {"Nasdaq": "NASDAQ", "NYSE": "NYSE", "OTC": "OTC", "CBOE": "BATS"}


def clean(text):
    return " ".join(text.replace("\t", " ").split())


def listing_name(name):
    """'Alcoa Corporation Common Stock ' -> 'Alcoa Corporation'."""
    name = clean(name)
    for suffix in (" Common Stock", " Ordinary Shares", " American Depositary Shares"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


sectors = {}
with open(os.path.join(data, "constituents.csv"), newline="") as f:
    for row in csv.DictReader(f):
        sectors[row["Symbol"]] = (row["GICS Sector"], row["GICS Sub-Industry"])

sec = {}
with open(os.path.join(data, "us-sec-tickers.csv"), newline="") as f:
    for row in csv.DictReader(f):
        sec.setdefault(row["ticker"], row)

rows = {}
with open(os.path.join(data, "nasdaq-listed-symbols.csv"), newline="") as f:
    for row in csv.DictReader(f):
        symbol = row["Symbol"]
        if not symbol or row.get("Test Issue") != "N" or symbol.startswith("File Creation"):
            continue
        rows[symbol] = dict(symbol=symbol, name=clean(row["Company Name"]), exchange="NASDAQ",
                            kind="etf" if row["ETF"] == "Y" else "stock", lot=row["Round Lot Size"] or "100")

with open(os.path.join(data, "other-listed.csv"), newline="") as f:
    for row in csv.DictReader(f):
        symbol = row["ACT Symbol"]
        if not symbol or row["Test Issue"] != "N" or symbol in rows:
            continue
        rows[symbol] = dict(symbol=symbol, name=listing_name(row["Company Name"]),
                            exchange=OTHER_EXCHANGES.get(row["Exchange"], "NYSE"),
                            kind="etf" if row["ETF"] == "Y" else "stock",
                            lot=str(int(float(row["Round Lot Size"] or "100"))))

for symbol, row in sec.items():
    if symbol in rows or row["exchange"] not in SEC_EXCHANGES:
        continue
    rows[symbol] = dict(symbol=symbol, name=clean(row["name"]), exchange=SEC_EXCHANGES[row["exchange"]],
                        kind="stock", lot="100")

for symbol, row in rows.items():
    sector, industry = sectors.get(symbol, ("", ""))
    row.update(sector=sector, industry=industry, listed="", cik=sec.get(symbol, {}).get("cik", "").lstrip("0"))

def cn_exchange(code):
    if code.startswith(("43", "83", "87", "92")):
        return "BSE"
    if code.startswith(("6", "9")):
        return "SSE"
    return "SZSE"

cn = []
with open(os.path.join(data, "cn-a-share-codes.csv"), newline="") as f:
    for row in csv.DictReader(f):
        code = row["stock_code"].strip()
        name = unicodedata.normalize("NFKC", row["short_name"]).replace(" ", "")
        cn.append(dict(symbol=code, name=name, exchange=cn_exchange(code), kind="stock", lot="100",
                       sector="", industry="", listed=row["list_date2"].strip(), cik=""))

columns = ["symbol", "name", "exchange", "kind", "lot", "sector", "industry", "listed", "cik"]
with open(out, "w", newline="") as f:
    f.write("\t".join(columns) + "\n")
    for row in sorted(rows.values(), key=lambda r: r["symbol"]) + sorted(cn, key=lambda r: r["symbol"]):
        f.write("\t".join(row[c] for c in columns) + "\n")
print(f"wrote {len(rows)} US and {len(cn)} A-share instruments to {os.path.normpath(out)}")
