#!/usr/bin/env bash
# Fails when a module imports what the design (../shared/DESIGN.md, the module map) forbids:
#   TradingCore imports nothing but the standard library;
#   MarketData and Storage never import each other;
#   Server and the papertrade command never import Storage or SQL (they go through the Brokerage);
#   nothing below Server imports Server, Hummingbird or the CLI's ArgumentParser;
#   in the web app, nothing imports the shell (js/main.js): shared state lives in js/store.js.
# Usage: scripts/check-layering.sh [SOURCES_DIR]   (default: Sources next to this script)
set -euo pipefail
sources="${1:-$(dirname "$0")/../Sources}"

# module → imports it must not have (extended regular expressions matched against the imported module name)
declare -A forbidden=(
    [TradingCore]='.*'
    [MarketData]='^(Storage|Brokerage|Server|SQLKit|SQLiteKit|PostgresKit|Hummingbird.*)$'
    [Storage]='^(MarketData|Brokerage|Server|Hummingbird.*)$'
    [Brokerage]='^(Server|Hummingbird.*|ArgumentParser)$'
    [Server]='^(Storage|SQLKit|SQLiteKit|PostgresKit|SQLiteNIO|PostgresNIO|ArgumentParser)$'
    [papertrade]='^(Storage|SQLKit|SQLiteKit|PostgresKit|SQLiteNIO|PostgresNIO)$'
)
# What TradingCore may still import: the standard library's own modules.
allowed_in_core='^(Swift|_Concurrency|Synchronization)$'

status=0
for module in "${!forbidden[@]}"; do
    dir="$sources/$module"
    [ -d "$dir" ] || continue
    while IFS= read -r line; do
        file="${line%%:*}"
        rest="${line#*:}"
        lineno="${rest%%:*}"
        text="${rest#*:}"
        # `import X`, `@_exported import X`, `@testable import X`, `import struct X.Y`
        name=$(sed -E 's/^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+((struct|class|enum|protocol|func|var|let|typealias|actor)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\4/' <<<"$text")
        if [ "$module" = TradingCore ] && [[ "$name" =~ $allowed_in_core ]]; then continue; fi
        if [[ "$name" =~ ${forbidden[$module]} ]]; then
            echo "layering: $file:$lineno: $module must not import $name"
            status=1
        fi
    done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]' --include='*.swift' "$dir" || true)
done
web="$sources/Server/Web/js"
if [ -d "$web" ]; then
    while IFS= read -r line; do
        echo "layering: ${line%%:*}: the web app's modules must not import main.js (use store.js)"
        status=1
    done < <(grep -rlE "from ['\"](\./|\.\./)main\.js['\"]" --include='*.js' "$web" || true)
fi
if [ "$status" -eq 0 ]; then echo "layering: ok (TradingCore, MarketData, Storage, Brokerage, Server, papertrade, web app)"; fi
exit "$status"
