#!/usr/bin/env bash
# Tests of scripts/check-layering.sh: the real tree passes, and each forbidden import in a copy of it fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
check=scripts/check-layering.sh
passed=0
failed=0

expect() { # expect pass|fail DESCRIPTION SOURCES_DIR
    local want="$1" what="$2" dir="$3" got
    if output=$(bash "$check" "$dir" 2>&1); then got=pass; else got=fail; fi
    if [ "$got" = "$want" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $what: expected the check to $want, it did $got"
        echo "$output" | sed 's/^/    /'
    fi
}

expect pass "the real tree" Sources

# One forbidden import at a time, in a scratch copy of the tree.
while IFS='|' read -r module line; do
    scratch=$(mktemp -d)
    cp -r Sources "$scratch/"
    printf '%s\n' "$line" > "$scratch/Sources/$module/ForbiddenImport.swift"
    expect fail "$module with '$line'" "$scratch/Sources"
    rm -rf "$scratch"
done <<'CASES'
Server|import Storage
Server|@_exported import struct Storage.UserRecord
Server|import SQLKit
papertrade|import Storage
TradingCore|import Foundation
TradingCore|let bytes = "x".utf8.withContiguousStorageIfAvailable { UnsafeBufferPointer(rebasing: $0[...]) }
JSON|import Foundation
JSON|import MarketData
MarketData|import Storage
Storage|import MarketData
Brokerage|import Hummingbird
Brokerage|@_exported import struct Storage.UserRecord
Brokerage|@_exported import Storage
BrokerageModel|import Storage
BrokerageModel|import SQLKit
PapertradeKit|import NIOCore
PapertradeKit|import TradingCore
PapertradeKit|import Server
PapertradeMCP|import Brokerage
PapertradeMCP|import NIOCore
Brokerage|let extra = Shard(id: ShardID(0), owner: owner, context: context)
Server|let first = router.shards[0]
Server|struct SneakyController { let brokerage: Brokerage }
Server|extension Brokerage { func sneaky() {} }
CASES

# A web app view importing the shell (the cycle store.js exists to prevent).
scratch=$(mktemp -d)
cp -r Sources "$scratch/"
printf "import { navigate } from '../main.js';\n" >> "$scratch/Sources/Server/Web/js/views/home.js"
expect fail "a web view importing main.js" "$scratch/Sources"
rm -rf "$scratch"

echo "layering: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
