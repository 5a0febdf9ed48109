#!/usr/bin/env bash
# Quote fan-out benchmark (prints figures, asserts nothing): starts a release server on the always-open clock, then
# the Swift load client (benchmarks/FanoutBench) opens N WebSocket connections — half to Alpaca's market-data stream,
# half to the app's socket — subscribes each to a watchlist and measures, for `seconds`, every quote and trade's
# delivery latency from the server's stamp. Goal (issue 62): 10,000 clients on one node, p99 ≤ 50 ms, server memory
# ≤ 1 GB, no client dropped. The client runs on the same cores as the server: its own work is in the figures.
#   bash benchmarks/fanout/run.sh [clients (default 1000; several: "1000 5000 10000")] [seconds (default 30)]
# The last line: `fanout: N clients, p50 X ms, p99 Y ms, dropped Z, server RSS W MB`.
set -euo pipefail
cd "$(dirname "$0")/../.."
counts=${1:-1000}
seconds=${2:-30}
swift build -c release --product papertrade
swift build -c release --product FanoutBench
bin=.build/release/papertrade
work=$(mktemp -d)
cleanup() { [ -n "${server:-}" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# Each connection is a descriptor on both sides.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for clients in $counts; do
    port=$(free_port)
    rm -rf "$work/data"
    # One address opens every connection here, so the per-address limit is off; the rate limit too (set-up).
    $bin serve --port "$port" --clock always-open --rate-limit 0 --connections-per-address 0 \
        --data-dir "$work/data" > "$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    echo "fanout: server idle RSS $(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' /proc/$server/status)"
    .build/release/FanoutBench --url "http://127.0.0.1:$port" --clients "$clients" --seconds "$seconds" \
        --server-pid "$server"
    kill "$server"; wait "$server" 2>/dev/null || true
    server=
done
