#!/usr/bin/env python3
"""Prints what the README's layout section states: Swift lines per module, and the types with the most stored
properties (one job per type: past ~15, split it). Run from the repository root: python3 scripts/measure-structure.py

Stored properties are counted from the source text: the `let` and `var` members of a class, struct or actor
declared at the top level of a file, without `static` ones and computed ones (a `{` after the type, before any `=`).
"""
import glob
import re

MEMBER = re.compile(r"^    (?:@\w+(?:\([^)]*\))? )*(?:(?:public|private|fileprivate|internal|package|nonisolated|lazy|weak|"
                    r"unowned|private\(set\)|public private\(set\)) )*(let|var) \w+")
TYPE = re.compile(r"^(?:public |internal |package |fileprivate |private )?(?:final )?(class|struct|actor) (\w+)")

lines_per_module = {}
stored = {}
for path in sorted(glob.glob("Sources/**/*.swift", recursive=True)):
    module = path.split("/")[1]
    text = open(path, encoding="utf-8").read().split("\n")
    lines_per_module[module] = lines_per_module.get(module, 0) + len(text)
    i = 0
    while i < len(text):
        declared = TYPE.match(text[i])
        if declared:
            count, j = 0, i + 1
            while j < len(text) and not text[j].startswith("}"):
                line = text[j]
                if MEMBER.match(line) and "static" not in line.split("=")[0]:
                    # A `{` before any `=` opens a getter: computed, not stored.
                    if not ("{" in line and "=" not in line.split("{")[0]):
                        count += 1
                j += 1
            stored[f"{declared.group(2)} ({module})"] = count
            i = j
        i += 1

print("Swift lines per module:")
for module, n in sorted(lines_per_module.items(), key=lambda kv: -kv[1]):
    print(f"  {module:16} {n:6}")
print("Most stored properties (types of the SDK's models are records of an API's fields):")
for name, n in sorted(stored.items(), key=lambda kv: -kv[1])[:10]:
    print(f"  {n:3}  {name}")

# The shard actor stays thin (desks hold the state), and no Server file but the composition root reaches the front.
shard_files = sorted(glob.glob("Sources/Brokerage/Shards/Shard+*.swift"))
largest = max(shard_files, key=lambda p: open(p, encoding="utf-8").read().count("\n"))
print(f"Shard: {stored.get('Shard (Brokerage)')} stored properties; its largest extension file "
      f"{largest.split('/')[-1]} has {open(largest, encoding='utf-8').read().count(chr(10))} lines")
reach = 0
for path in glob.glob("Sources/Server/**/*.swift", recursive=True):
    if path.endswith(("Application+Build.swift", "Server/Papertrade.swift")):
        continue
    reach += len(re.findall(r"\bbrokerage\.[a-zA-Z]+", open(path, encoding="utf-8").read()))
print(f"Calls through the brokerage front from Server outside the composition root: {reach}")
