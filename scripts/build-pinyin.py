#!/usr/bin/env python3
"""Builds Sources/MarketData/Resources/names-pinyin.tsv: each A-share's name in pinyin, so the directory's search finds
贵州茅台 by "guizhoumaotai", "maotai" or its initials "gzmt" (how Chinese brokers' search boxes work, and the only way
an English speaker without a Chinese keyboard can find it).

Run from the repository root after build-symbol-directory.py, with pypinyin (PyPI, MIT; 0.55.0 made the committed
file) importable: python3 scripts/build-pinyin.py. It reads symbols.tsv and writes facts only (a name's reading);
pypinyin is not a dependency of papertrade. Provenance: Sources/MarketData/Resources/DATA-SOURCES.md.
"""
import csv
import os

from pypinyin import Style, lazy_pinyin

resources = os.path.join(os.path.dirname(__file__), "..", "Sources", "MarketData", "Resources")

rows = []
with open(os.path.join(resources, "symbols.tsv"), newline="") as f:
    for row in csv.DictReader(f, delimiter="\t"):
        if row["exchange"] not in ("SSE", "SZSE", "BSE"):
            continue
        # Letters in a name (ST, A, B) are kept as they are; only Chinese characters are read.
        syllables = [s.lower() for s in lazy_pinyin(row["name"], errors="ignore") if s.isascii() and s.isalnum()]
        initials = [s.lower() for s in lazy_pinyin(row["name"], style=Style.FIRST_LETTER, errors="ignore")
                    if s.isascii() and s.isalnum()]
        if syllables:
            rows.append((row["symbol"], "".join(syllables), "".join(initials)))

with open(os.path.join(resources, "names-pinyin.tsv"), "w", newline="") as f:
    f.write("symbol\tpinyin\tinitials\n")
    for symbol, full, short in rows:
        f.write(f"{symbol}\t{full}\t{short}\n")
print(f"{len(rows)} A-share names in pinyin")
