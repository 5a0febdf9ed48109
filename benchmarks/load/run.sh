#!/usr/bin/env bash
# Load benchmark (prints figures, asserts nothing): /healthz requests/s and durable order placements/s — stock,
# option and crypto orders — with p50/p99 latency at 64 connections, on SQLite and on PostgreSQL. Goal: orders ≥ 25%
# of /healthz throughput, p99 < 20 ms on SQLite; option and crypto orders the same share as stock orders. Needs wrk
# (installed from Debian if missing).
#   bash benchmarks/load/run.sh [seconds per measurement] [rounds] [databases: "sqlite postgres" (default), one of them]
# /healthz and orders are measured in alternating rounds (default 3 × 5 s each) and the summary takes the median
# of each, with the worst round's p99: on a shared 2-core VM the machine's speed drifts by ±15% within a minute, so
# one measurement of each, taken a minute apart, mostly measured the drift.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-5}
rounds=${2:-3}
databases=${3:-sqlite postgres}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --product papertrade
bin=.build/release/papertrade
work=$(mktemp -d)
pgdir="$work/pg"
cleanup() { pkill -f "$bin serve --port" 2>/dev/null || true; bash scripts/postgres.sh stop "$pgdir" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # $1 = label, rest = database options
    local label=$1; shift
    local port; port=$(free_port)
    echo 'load-bench-password' | $bin admin create-user bench --password-stdin "$@" >/dev/null
    local account; account=$($bin admin create-account bench --market us --cash 1000000000 "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["account_id"])')
    local key; key=$($bin admin create-key "$account" "$@")
    export PT_KEY; PT_KEY=$(echo "$key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["key_id"])')
    export PT_SECRET; PT_SECRET=$(echo "$key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
    $bin serve --port "$port" --clock always-open --rate-limit 0 "$@" > "$work/$label.log" 2>&1 &
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    # The option: KO's in-the-money call of the nearest monthly expiration with the highest close (deep in the money).
    export PT_OPTION; PT_OPTION=$(curl -sf -H "APCA-API-KEY-ID: $PT_KEY" -H "APCA-API-SECRET-KEY: $PT_SECRET" \
        "http://127.0.0.1:$port/v2/options/contracts?underlying_symbols=KO&type=call&limit=200" \
        | python3 -c 'import json,sys; c=json.load(sys.stdin)["option_contracts"]; print(max(c, key=lambda x: float(x["close_price"] or 0))["symbol"])')
    wrk -t2 -c64 -d2s "http://127.0.0.1:$port/healthz" >/dev/null # warm up every path
    wrk -t2 -c64 -d2s -s benchmarks/load/orders.lua "http://127.0.0.1:$port/v2/orders" >/dev/null
    wrk -t2 -c64 -d2s -s benchmarks/load/option-orders.lua "http://127.0.0.1:$port/v2/orders" >/dev/null
    wrk -t2 -c64 -d2s -s benchmarks/load/crypto-orders.lua "http://127.0.0.1:$port/v2/orders" >/dev/null
    local round
    for round in $(seq "$rounds"); do
        wrk -t2 -c64 -d"${duration}s" --latency "http://127.0.0.1:$port/healthz" > "$work/$label.health.$round"
        wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/orders.lua "http://127.0.0.1:$port/v2/orders" > "$work/$label.orders.$round"
        wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/option-orders.lua "http://127.0.0.1:$port/v2/orders" > "$work/$label.options.$round"
        wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/crypto-orders.lua "http://127.0.0.1:$port/v2/orders" > "$work/$label.crypto.$round"
    done
    pkill -f "$bin serve --port $port" || true
    python3 - "$label" "$work" "$rounds" <<'PY'
import re, statistics, sys
label, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def figures(path):
    text = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def pct(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", text)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return rps, pct(50), pct(99), int(errors.group(1)) if errors else 0
health = [figures(f"{work}/{label}.health.{r}") for r in range(1, rounds + 1)]
kinds = {"orders": "stock", "options": "option", "crypto": "crypto"}
runs = {k: [figures(f"{work}/{label}.{k}.{r}") for r in range(1, rounds + 1)] for k in kinds}
for r in range(rounds):
    h = health[r]
    parts = [f"{kinds[k]} orders {runs[k][r][0]:>7.0f} req/s (p99 {runs[k][r][2]:.2f} ms) → {100 * runs[k][r][0] / h[0]:.0f}%"
             for k in kinds]
    print(f"{label:10} round {r + 1}: /healthz {h[0]:>7.0f} req/s, " + ", ".join(parts))
h = (statistics.median(x[0] for x in health), statistics.median(x[1] for x in health), max(x[2] for x in health))
print(f"{label:10} /healthz {h[0]:>9.0f} req/s  p50 {h[1]:6.2f} ms  p99 {h[2]:6.2f} ms   (medians; worst p99)")
for k, goal in (("orders", "goal ≥ 25%"), ("options", "goal: as stock orders"), ("crypto", "goal: as stock orders")):
    x = runs[k]
    o = (statistics.median(y[0] for y in x), statistics.median(y[1] for y in x), max(y[2] for y in x), sum(y[3] for y in x))
    print(f"{label:10} {k:8} {o[0]:>9.0f} req/s  p50 {o[1]:6.2f} ms  p99 {o[2]:6.2f} ms  non-2xx {o[3]}  "
          f"→ {100 * o[0] / h[0]:.0f}% of /healthz ({goal})")
PY
}

for database in $databases; do
    case "$database" in
    sqlite) run sqlite --data-dir "$work/sqlite" ;;
    postgres)
        url=$(bash scripts/postgres.sh start "$pgdir" | tail -1)
        run postgres --database-url "$url"
        ;;
    *) echo "unknown database $database (sqlite or postgres)" >&2; exit 2 ;;
    esac
done
