#!/usr/bin/env bash
# Options benchmark (prints figures, asserts nothing).
#  1. The model: each underlying's whole chain priced with greeks and quotes (MarketDataBench, section 4);
#     goal ≤ 5 ms a chain.
#  2. The Alpaca chain snapshot endpoint (/v1beta1/options/snapshots/{underlying}, 100 and 1,000 contracts a page)
#     at 4 connections: p50/p99 latency, goal p99 ≤ 20 ms. Needs wrk (installed from Debian if missing).
#   bash benchmarks/options/run.sh [seconds per measurement]
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-5}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --product papertrade
swift build -c release --product MarketDataBench
.build/release/MarketDataBench --options
bin=.build/release/papertrade
work=$(mktemp -d)
cleanup() { pkill -f "$bin serve --port" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo 'options-bench-password' | $bin admin create-user bench --password-stdin --data-dir "$work" >/dev/null
account=$($bin admin create-account bench --market us --data-dir "$work" | python3 -c 'import json,sys; print(json.load(sys.stdin)["account_id"])')
key=$($bin admin create-key "$account" --data-dir "$work")
id=$(echo "$key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["key_id"])')
secret=$(echo "$key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret_key"])')
$bin serve --port "$port" --clock always-open --rate-limit 0 --data-dir "$work" > "$work/server.log" 2>&1 &
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
# The first request of SPY's chain after the server started (its warm-up — SimulatedMarket.warm — has had 5 s; the
# chain's day is made by this request): goal ≤ 50 ms. Then one more, warm.
sleep 5
for n in first second; do
    curl -sf -o /dev/null -w "options endpoint: SPY's chain, $n request after the start: %{time_total} s\n" \
        -H "APCA-API-KEY-ID: $id" -H "APCA-API-SECRET-KEY: $secret" \
        "http://127.0.0.1:$port/v1beta1/options/snapshots/SPY?limit=100"
done
for query in "SPY?limit=100" "SPY?limit=1000" "AAPL?limit=1000"; do
    url="http://127.0.0.1:$port/v1beta1/options/snapshots/$query"
    curl -sf -H "APCA-API-KEY-ID: $id" -H "APCA-API-SECRET-KEY: $secret" "$url" >/dev/null # the chain's day, made once
    # One client thread: on a 2-core machine a second wrk thread takes a core from the server, and its own waits
    # for the CPU show up as a p99 of ~90 ms that the server never had (c=4 with -t2 against 11 ms with -t1).
    wrk -t1 -c4 -d"${duration}s" --latency -H "APCA-API-KEY-ID: $id" -H "APCA-API-SECRET-KEY: $secret" "$url" > "$work/wrk"
    python3 - "$query" "$work/wrk" <<'PY'
import re, sys
query, text = sys.argv[1], open(sys.argv[2]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
def pct(p):
    value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", text).groups()
    return float(value) / 1000 if unit == "us" else float(value) * 1000 if unit == "s" else float(value)
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"chain snapshot {query:16} {rps:7.0f} req/s  p50 {pct(50):6.2f} ms  p99 {pct(99):6.2f} ms  "
      f"non-2xx {errors.group(1) if errors else 0}  (goal p99 ≤ 20 ms)")
PY
done
