#!/usr/bin/env bash
# Load benchmark (prints figures, asserts nothing): /healthz requests/s and durable order placements/s with
# p50/p99 latency at 64 connections, on SQLite and on PostgreSQL. Goal: orders ≥ 25% of /healthz throughput,
# p99 < 20 ms on SQLite. Needs wrk (installed from Debian if missing).
#   bash benchmarks/load/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
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
    wrk -t2 -c64 -d2s "http://127.0.0.1:$port/healthz" >/dev/null # warm up
    local health orders
    health=$(wrk -t2 -c64 -d"${duration}s" --latency "http://127.0.0.1:$port/healthz")
    orders=$(wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/load/orders.lua "http://127.0.0.1:$port/v2/orders")
    pkill -f "$bin serve --port $port" || true
    python3 - "$label" "$health" "$orders" <<'PY'
import re, sys
label, health, orders = sys.argv[1:4]
def figures(text):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def pct(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", text)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return rps, pct(50), pct(99), int(errors.group(1)) if errors else 0
h, o = figures(health), figures(orders)
print(f"{label:10} /healthz {h[0]:>9.0f} req/s  p50 {h[1]:6.2f} ms  p99 {h[2]:6.2f} ms")
print(f"{label:10} orders   {o[0]:>9.0f} req/s  p50 {o[1]:6.2f} ms  p99 {o[2]:6.2f} ms  non-2xx {o[3]}  "
      f"→ {100 * o[0] / h[0]:.0f}% of /healthz (goal ≥ 25%)")
PY
}

run sqlite --data-dir "$work/sqlite"
url=$(bash scripts/postgres.sh start "$pgdir" | tail -1)
run postgres --database-url "$url"
