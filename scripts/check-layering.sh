#!/usr/bin/env bash
# Fails when a module imports what the design (../shared/DESIGN.md, the module map) forbids:
#   TradingCore imports nothing but the standard library and holds no unsafe-pointer code;
#   JSON imports only TradingCore (its one home for JSON: value, byte writers, streaming encoder);
#   Backtest (a library users depend on) imports only TradingCore and JSON;
#   BrokerageModel (the records and the repository protocols) imports only TradingCore and Foundation;
#   PapertradeKit (the client SDK apps add) imports only Foundation (URLSession): no NIO, no server modules;
#   PapertradeMCP (the MCP tools) reaches the server only through PapertradeKit: no server module, no NIO (JSON, the
#   leaf parser, checks each JSON-RPC message before the MCP SDK decodes it);
#   MarketData and Storage never import each other;
#   Server and the papertrade command never import Storage or SQL (they go through the Brokerage), and no module
#   re-exports Storage (`@_exported import ... Storage`): nothing above the brokerage can name a Storage type;
#   shards are made and reached only through the router: nothing outside Sources/Brokerage/Shards constructs a
#   `Shard` or indexes the router's shards;
#   nothing below Server imports Server, Hummingbird or the CLI's ArgumentParser;
#   in Server only the composition root (Application+Build.swift, Papertrade.swift) names the `Brokerage` front: a
#   controller, stream or service is handed the narrow services it uses (MarketView, AccountService, OrderService …);
#   in the web app, nothing imports the shell (js/main.js): shared state lives in js/store.js.
# Usage: scripts/check-layering.sh [SOURCES_DIR]   (default: Sources next to this script)
set -euo pipefail
sources="${1:-$(dirname "$0")/../Sources}"

# module → imports it must not have (extended regular expressions matched against the imported module name)
declare -A forbidden=(
    [TradingCore]='.*'
    [JSON]='.*'
    [Backtest]='.*'
    [BrokerageModel]='.*'
    [PapertradeKit]='.*'
    [PapertradeMCP]='.*'
    [MarketData]='^(Storage|Brokerage|Server|SQLKit|SQLiteKit|PostgresKit|Hummingbird.*)$'
    [Storage]='^(MarketData|Brokerage|Server|Hummingbird.*)$'
    [Brokerage]='^(Server|Hummingbird.*|ArgumentParser)$'
    [Server]='^(Storage|SQLKit|SQLiteKit|PostgresKit|SQLiteNIO|PostgresNIO|ArgumentParser)$'
    [papertrade]='^(Storage|SQLKit|SQLiteKit|PostgresKit|SQLiteNIO|PostgresNIO)$'
)
# What TradingCore and JSON may still import: the standard library's own modules (and, for JSON, the core).
declare -A allowed=(
    [TradingCore]='^(Swift|_Concurrency|Synchronization)$'
    [JSON]='^(Swift|_Concurrency|Synchronization|TradingCore)$'
    [Backtest]='^(Swift|_Concurrency|Synchronization|TradingCore|JSON)$'
    [BrokerageModel]='^(Swift|_Concurrency|Synchronization|Foundation|TradingCore)$'
    [PapertradeKit]='^(Swift|_Concurrency|Foundation|FoundationNetworking)$'
    [PapertradeMCP]='^(Swift|_Concurrency|Foundation|FoundationNetworking|PapertradeKit|MCP|Logging|JSON)$'
)

import_pattern='^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+((struct|class|enum|protocol|func|var|let|typealias|actor)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)'
status=0
for module in "${!forbidden[@]}"; do
    dir="$sources/$module"
    [ -d "$dir" ] || continue
    while IFS= read -r line; do
        file="${line%%:*}"
        rest="${line#*:}"
        lineno="${rest%%:*}"
        text="${rest#*:}"
        # `import X`, `@_exported import X`, `@testable import X`, `import struct X.Y` (matched in bash: a process per
        # import line made the check and its tests take a minute)
        [[ "$text" =~ $import_pattern ]] || continue
        name=${BASH_REMATCH[4]}
        if [ -n "${allowed[$module]:-}" ] && [[ "$name" =~ ${allowed[$module]} ]]; then continue; fi
        if [[ "$name" =~ ${forbidden[$module]} ]]; then
            echo "layering: $file:$lineno: $module must not import $name"
            status=1
        fi
    done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]' --include='*.swift' "$dir" || true)
done
# Storage's types stay below the brokerage: no module re-exports it.
while IFS= read -r line; do
    echo "layering: ${line%%:*}:$(cut -d: -f2 <<<"$line"): Storage must not be re-exported (records live in BrokerageModel)"
    status=1
done < <(grep -rnE '^[[:space:]]*@_exported[[:space:]]+import[[:space:]]+([a-z]+[[:space:]]+)?Storage\b' --include='*.swift' "$sources" || true)
# A shard is made and found only by the router (the seam the cluster implements over the network).
if [ -d "$sources/Brokerage" ]; then
    while IFS= read -r line; do
        echo "layering: ${line%%:*}:$(cut -d: -f2 <<<"$line"): shards are made and reached only in Brokerage/Shards (ShardRouter)"
        status=1
    done < <(grep -rnE '(^|[^.A-Za-z_])Shard\(|router\.shards\[' --include='*.swift' "$sources" | grep -v "^$sources/Brokerage/Shards/" || true)
fi
# Controllers take narrow services, never the front: only the composition root names `Brokerage`.
if [ -d "$sources/Server" ]; then
    while IFS= read -r line; do
        echo "layering: ${line%%:*}:$(cut -d: -f2 <<<"$line"): only the composition root takes the Brokerage front (hand this type the services it uses)"
        status=1
    done < <(grep -rnE '(^|[^A-Za-z0-9_."])Brokerage([^A-Za-z0-9_]|$)' --include='*.swift' "$sources/Server" \
        | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|import[[:space:]])' \
        | grep -vE "^$sources/Server/(Application\+Build|Papertrade)\.swift:" || true)
fi
# The core is plain safe Swift: byte-level writing with unsafe pointers belongs in JSON.
while IFS= read -r line; do
    echo "layering: ${line%%:*}:$(cut -d: -f2 <<<"$line"): TradingCore must not use unsafe pointers (write bytes in JSON)"
    status=1
done < <(grep -rnE '\b(Unsafe[A-Za-z]*Pointer|withUnsafe[A-Za-z]*|unsafeUninitializedCapacity|utf8Start)\b' --include='*.swift' "$sources/TradingCore" 2>/dev/null || true)
web="$sources/Server/Web/js"
if [ -d "$web" ]; then
    while IFS= read -r line; do
        echo "layering: ${line%%:*}: the web app's modules must not import main.js (use store.js)"
        status=1
    done < <(grep -rlE "from ['\"](\./|\.\./)main\.js['\"]" --include='*.js' "$web" || true)
fi
if [ "$status" -eq 0 ]; then echo "layering: ok (TradingCore, JSON, Backtest, BrokerageModel, PapertradeKit, PapertradeMCP, MarketData, Storage, Brokerage, Server, papertrade, web app; Storage re-exports, shard construction, the front only in the composition root)"; fi
exit "$status"
