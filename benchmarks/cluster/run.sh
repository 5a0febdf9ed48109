#!/usr/bin/env bash
# Cluster benchmark (prints figures, asserts nothing): durable orders/s, p50/p99 and forwards per request through
# HAProxy with 1, 2 and 3 nodes on one PostgreSQL (scripts/cluster.sh), 64 connections over 12 accounts — with 2 and
# 3 nodes twice: sent to the account's owner (deploy/haproxy.cfg's owner map) and by key alone (the use-server rules
# taken out, as before owner routing); then the time for the survivors to serve a kill -9'd node's shards (every
# account answering again through the front).
#   bash benchmarks/cluster/run.sh [seconds]
# On this project's 2-core VM every node, PostgreSQL, HAProxy and wrk share two cores: the figures show what the
# cluster costs (forwarding, fencing), not how it scales — see docs/OPERATIONS.md "Running several servers" for the model.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --product papertrade >&2
export PAPERTRADE_BINARY=.build/release/papertrade
work=$(mktemp -d)
chmod 755 "$work" # PostgreSQL runs as its own user and must reach its directory inside
trap 'bash scripts/cluster.sh stop "$work/c" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

keys_for() { # front URL → PT_KEYS for 12 new users' USD accounts
    python3 - "$1" <<'PY'
import json, sys, urllib.request, uuid
from http.cookiejar import CookieJar
front, keys = sys.argv[1], []
for _ in range(12):
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    def call(method, path, body=None):
        request = urllib.request.Request(front + "/api/v1" + path, method=method, headers={"Content-Type": "application/json"},
                                         data=json.dumps(body).encode() if body is not None else None)
        with opener.open(request) as response:
            return json.loads(response.read())
    call("POST", "/auth/signup", {"username": "b" + uuid.uuid4().hex[:10], "password": "benchmark password"})
    usd = next(a for a in call("GET", "/accounts") if a["market"] == "us")
    key = call("POST", f"/accounts/{usd['id']}/keys")
    keys.append(f"{key['key_id']}:{key['secret']}")
print(",".join(keys))
PY
}

forwards_total() { # node URLs → the cluster's forwards so far
    local total=0 url n
    for url in "$@"; do
        n=$(curl -sf "$url/metrics" | awk '$1 == "papertrade_cluster_forwards_total" {print int($2)}')
        total=$((total + ${n:-0}))
    done
    echo "$total"
}

measure() { # label, front, node URLs…
    local label=$1 front=$2; shift 2
    wrk -t2 -c64 -d2s -s benchmarks/cluster/orders.lua "$front" >/dev/null # warm up (and teach the owner map)
    local before; before=$(forwards_total "$@")
    wrk -t2 -c64 -d"${duration}s" --latency -s benchmarks/cluster/orders.lua "$front" > "$work/wrk"
    python3 - "$label" "$work/wrk" "$before" "$(forwards_total "$@")" <<'PY'
import re, sys
label, text, before, after = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
requests = int(re.search(r"(\d+) requests in", text).group(1))
def pct(p):
    m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", text)
    v, u = float(m.group(1)), m.group(2)
    return v / 1000 if u == "us" else v * 1000 if u == "s" else v
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{label}: {rps:7.0f} orders/s  p50 {pct(50):6.2f} ms  p99 {pct(99):6.2f} ms  "
      f"forwarded {100 * (after - before) / max(requests, 1):5.1f}%  non-2xx {errors.group(1) if errors else 0}")
PY
}

without_owner_routing() { # cluster dir: HAProxy again without the use-server rules
    sed -i '/^ *use-server /d' "$1/haproxy.cfg"
    kill "$(cat "$1/haproxy.pid")"
    sleep 0.5
    haproxy -f "$1/haproxy.cfg" -D -p "$1/haproxy.pid" 2>/dev/null
}

for nodes in 1 2 3; do
    out=$(bash scripts/cluster.sh start "$nodes" "$work/c" --clock always-open --rate-limit 0)
    front=$(echo "$out" | awk '$1 == "front" {print $2}')
    mapfile -t urls < <(echo "$out" | awk '$1 == "node" {print $3}')
    export PT_KEYS; PT_KEYS=$(keys_for "$front")
    measure "$nodes node(s) behind HAProxy, sent to the owner" "$front" "${urls[@]}"
    if [ "$nodes" -gt 1 ]; then
        without_owner_routing "$work/c"
        for _ in $(seq 100); do curl -sf "$front/readyz" >/dev/null && break; sleep 0.1; done
        measure "$nodes node(s) behind HAProxy, by key alone  " "$front" "${urls[@]}"
    fi
    if [ "$nodes" = 3 ]; then
        victim=$(echo "$out" | awk '$1 == "node" && $2 == "node2" {print $4}')
        start=$(date +%s.%N)
        kill -9 "$victim"
        python3 - "$front" "$start" <<'PY'
import json, os, sys, time, urllib.request
front, start = sys.argv[1], float(sys.argv[2])
keys = [k.split(":", 1) for k in os.environ["PT_KEYS"].split(",")]
while time.time() - start < 60:
    ok = 0
    for key_id, secret in keys:
        request = urllib.request.Request(front + "/v2/account", headers={"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret})
        try:
            with urllib.request.urlopen(request, timeout=5) as r:
                ok += r.status == 200
        except Exception:
            pass
    if ok == len(keys):
        print(f"kill -9 of one node of three: every account served again after {time.time() - start:.2f} s")
        break
    time.sleep(0.05)
else:
    print("kill -9 of one node of three: accounts still unserved after 60 s")
PY
    fi
    bash scripts/cluster.sh stop "$work/c" >/dev/null 2>&1
    rm -rf "$work/c"
done
