#!/usr/bin/env bash
# A throwaway papertrade cluster on loopback: PostgreSQL (scripts/postgres.sh), N nodes, HAProxy in front.
#   bash scripts/cluster.sh start N DIR [--ha] [serve options…]   prints one line per process:
#       postgres URL
#       database NAME URL PID ROLE (with --ha, one per PostgreSQL member: scripts/patroni.sh)
#       node NAME URL PID          (one per node: node1 … nodeN)
#       front URL                  (HAProxy, configured from deploy/haproxy.cfg)
#   With --ha the database fails over: three PostgreSQL members under Patroni and etcd, HAProxy sending the nodes'
#   connections to the primary (scripts/patroni.sh; `patroni.sh status DIR/postgres` gives the members' roles now).
#   bash scripts/cluster.sh restart DIR NAME      SIGTERM to node NAME (it hands its shards over and leaves), then
#       the same node again on its port, once it has exited; prints its new `node NAME URL PID` line once it is ready
#   bash scripts/cluster.sh stop DIR
# The nodes run PAPERTRADE_BINARY (default .build/debug/papertrade, built if missing); their logs are DIR/nodeK.log,
# HAProxy's configuration DIR/haproxy.cfg. Installs Debian's haproxy package if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?start or stop}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_ready() { # url, pid, log
    for _ in $(seq 600); do
        curl -sf "$1/readyz" >/dev/null 2>&1 && return 0
        kill -0 "$2" 2>/dev/null || { echo "node exited:" >&2; tail -20 "$3" >&2; return 1; }
        sleep 0.1
    done
    echo "node at $1 not ready after 60 s" >&2
    return 1
}

start_node() { # dir, name, serve options…: starts the node on its port, waits until it is ready, prints its line
    local dir=$1 name=$2
    shift 2
    local bin=${PAPERTRADE_BINARY:-.build/debug/papertrade}
    local port url node pid
    port=$(cat "$dir/$name.port")
    url=$(cat "$dir/database-url")
    node="http://127.0.0.1:$port"
    mkdir -p "$dir/$name"
    "$bin" serve --port "$port" --database-url "$url" --node-name "$name" --advertise-url "$node" \
        --data-dir "$dir/$name" "$@" >> "$dir/$name.log" 2>&1 &
    pid=$!
    echo "$pid" > "$dir/$name.pid"
    wait_ready "$node" "$pid" "$dir/$name.log"
    echo "node $name $node $pid"
}

case "$action" in
start)
    count=${2:?number of nodes}
    dir=${3:?directory}
    shift 3
    [[ "$count" =~ ^[1-9][0-9]?$ ]] || { echo "N must be 1 to 99" >&2; exit 2; }
    ha=""
    if [ "${1:-}" = --ha ]; then ha=yes; shift; fi
    bin=${PAPERTRADE_BINARY:-.build/debug/papertrade}
    [ -x "$bin" ] || swift build --product papertrade >&2
    if ! command -v haproxy >/dev/null; then
        echo "installing HAProxy (Debian package haproxy)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq haproxy >&2
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ -n "$ha" ]; then
        database=$(bash scripts/patroni.sh start "$dir/postgres")
        url=$(echo "$database" | awk '$1 == "postgres" { print $2 }')
        echo "$url" > "$dir/database-url"
        echo "$database"
    else
        admin=$(bash scripts/postgres.sh start "$dir/postgres" | tail -1)
        psql "$admin" -qc "CREATE DATABASE papertrade" >&2
        url=${admin/\/postgres\?/\/papertrade?}
        echo "$url" > "$dir/database-url"
        echo "postgres $url"
    fi
    printf '%s\0' "$@" > "$dir/serve-args"
    servers=""
    backups=""
    owners=""
    for k in $(seq "$count"); do
        port=$(free_port)
        node="http://127.0.0.1:$port"
        echo "$port" > "$dir/node$k.port"
        # One at a time: the first creates the schema, the others join it.
        start_node "$dir" "node$k" "$@"
        servers+="    server node$k 127.0.0.1:$port check"$'\n'
        owners+="    use-server node$k if { var(txn.owner) -m str node$k }"$'\n'
        backups+="    server node$k-unchecked 127.0.0.1:$port backup"$'\n'
    done
    front=$(free_port)
    : > "$dir/owners.map"
    python3 - "$dir/haproxy.cfg" "$front" "$servers" "$backups" "$owners" "$dir/owners.map" <<'PY'
import re, sys
path, port, servers, backups, owners, owner_map = sys.argv[1:]
text = open("deploy/haproxy.cfg").read()
text = text.replace("bind 127.0.0.1:8080", f"bind 127.0.0.1:{port}")
text = re.sub(r"(    server node\d+ .* check\n)+", lambda _: servers, text)
text = re.sub(r"(    server node\d+-unchecked .*\n)+", lambda _: backups, text)
text = re.sub(r"(    use-server node\d+ .*\n)+", lambda _: owners, text)
text = text.replace("/etc/haproxy/papertrade-owners.map", owner_map)
open(path, "w").write(text)
PY
    haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid" 2> "$dir/haproxy.log"
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$front/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
    echo "front http://127.0.0.1:$front"
    ;;
restart)
    dir=${2:?directory}
    name=${3:?node name}
    [ -f "$dir/$name.port" ] || { echo "no node $name in $dir" >&2; exit 2; }
    pid=$(cat "$dir/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "node $name did not exit within 30 s of SIGTERM" >&2; exit 1; }
    args=()
    while IFS= read -r -d '' arg; do args+=("$arg"); done < "$dir/serve-args"
    start_node "$dir" "$name" "${args[@]}"
    ;;
stop)
    dir=${2:?directory}
    [ -f "$dir/haproxy.pid" ] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true
    for pidfile in "$dir"/node*.pid; do
        [ -f "$pidfile" ] || continue
        kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
    done
    for pidfile in "$dir"/node*.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
    if [ -f "$dir/postgres/etcd.pid" ]; then bash scripts/patroni.sh stop "$dir/postgres"
    else bash scripts/postgres.sh stop "$dir/postgres"; fi
    ;;
*)
    echo "usage: cluster.sh start N DIR [--ha] [serve options…] | restart DIR NAME | stop DIR" >&2
    exit 2
    ;;
esac
