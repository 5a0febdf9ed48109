#!/usr/bin/env bash
# Load benchmark (prints figures, asserts nothing): /healthz requests/s and durable order placements/s — stock
# orders and option orders — with p50/p99 latency at 64 connections, on SQLite and on PostgreSQL. Goal: orders ≥ 25%
# of /healthz throughput, p99 < 20 ms on SQLite; option orders the same share as stock orders. Needs wrk (installed
# from Debian if missing).
#   bash benchmarks/load/run.sh [seconds per measurement] [rounds]
# /healthz and orders are measured in alternating rounds (default 3 × 5 s each) and the summary takes the median
# of each, with the worst round's p99: on a shared 2-core VM the machine's speed drifts by ±15% within a minute, so
# one measurement of each, taken a minute apart, mostly measured the drift.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-5}
rounds=${2:-3}
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
    local round
    for round in $(seq "$rounds"); do
        wrk -t2 -c64 -d"${duration}s" --latency "http://127.0.0.1:$port/healthz" > "$work/$label.health.$round"
        wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/orders.lua "http://127.0.0.1:$port/v2/orders" > "$work/$label.orders.$round"
        wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/option-orders.lua "http://127.0.0.1:$port/v2/orders" > "$work/$label.options.$round"
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
orders = [figures(f"{work}/{label}.orders.{r}") for r in range(1, rounds + 1)]
options = [figures(f"{work}/{label}.options.{r}") for r in range(1, rounds + 1)]
for r, (h, o, p) in enumerate(zip(health, orders, options), 1):
    print(f"{label:10} round {r}: /healthz {h[0]:>7.0f} req/s, orders {o[0]:>7.0f} req/s (p99 {o[2]:.2f} ms) → {100 * o[0] / h[0]:.0f}%, "
          f"option orders {p[0]:>7.0f} req/s (p99 {p[2]:.2f} ms) → {100 * p[0] / h[0]:.0f}%")
h = (statistics.median(x[0] for x in health), statistics.median(x[1] for x in health), max(x[2] for x in health))
o = (statistics.median(x[0] for x in orders), statistics.median(x[1] for x in orders), max(x[2] for x in orders),
     sum(x[3] for x in orders))
print(f"{label:10} /healthz {h[0]:>9.0f} req/s  p50 {h[1]:6.2f} ms  p99 {h[2]:6.2f} ms   (medians; worst p99)")
print(f"{label:10} orders   {o[0]:>9.0f} req/s  p50 {o[1]:6.2f} ms  p99 {o[2]:6.2f} ms  non-2xx {o[3]}  "
      f"→ {100 * o[0] / h[0]:.0f}% of /healthz (goal ≥ 25%)")
p = (statistics.median(x[0] for x in options), statistics.median(x[1] for x in options), max(x[2] for x in options),
     sum(x[3] for x in options))
print(f"{label:10} options  {p[0]:>9.0f} req/s  p50 {p[1]:6.2f} ms  p99 {p[2]:6.2f} ms  non-2xx {p[3]}  "
      f"→ {100 * p[0] / h[0]:.0f}% of /healthz (goal: as stock orders)")
PY
}

run sqlite --data-dir "$work/sqlite"
url=$(bash scripts/postgres.sh start "$pgdir" | tail -1)
run postgres --database-url "$url"
