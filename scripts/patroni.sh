#!/usr/bin/env bash
# PostgreSQL that fails over, on loopback, for the tests and for trying it: etcd (one member), three PostgreSQL
# members under Patroni (synchronous mode: an acknowledged commit is on two members) and HAProxy in front, which
# sends every connection to whichever member Patroni says is primary. Configured from deploy/patroni.yml,
# deploy/etcd.yml and deploy/haproxy-postgres.cfg with loopback ports (docs/OPERATIONS.md: on three machines).
#   bash scripts/patroni.sh start DIR     prints
#       postgres URL                         the proxy's address: what papertrade's --database-url names
#       database NAME URL PID ROLE           one per member (pg1 … pg3); PID the postmaster's, ROLE primary or replica
#   bash scripts/patroni.sh status DIR    the `database` lines again, as they are now (a failover changes them)
#   bash scripts/patroni.sh stop DIR
# Logs: DIR/etcd.log, DIR/pgK.log (Patroni and PostgreSQL), DIR/haproxy.log. Installs Debian's patroni,
# etcd-server, haproxy and postgresql packages if missing. Patroni and PostgreSQL run as `postgres` when invoked as
# root (PostgreSQL refuses root).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?start, status or stop}
dir=${2:?directory}
members=(pg1 pg2 pg3)
py=/usr/bin/python3  # Debian's: Patroni's own modules (yaml) are installed for it

free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
rest() { cat "$dir/$1.rest"; }

# One `database` line: the member's role from its Patroni (GET /primary answers 200 on the primary only).
member_line() {
    local name=$1 role pid code
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(rest "$name")/primary" || true)
    case "$code" in 200) role=primary ;; 503) role=replica ;; *) role=down ;; esac
    pid=$(head -1 "$dir/$name/data/postmaster.pid" 2>/dev/null || echo 0)
    echo "database $name postgres://papertrade@127.0.0.1:$(cat "$dir/$name.port")/papertrade?sslmode=disable $pid $role"
}

case "$action" in
start)
    missing=()
    command -v patroni >/dev/null || missing+=(patroni)
    command -v etcd >/dev/null || missing+=(etcd-server)
    command -v haproxy >/dev/null || missing+=(haproxy)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing ${missing[*]} (Debian packages)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2
    fi
    bin_dir=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then chmod a+x "$(dirname "$dir")"; fi

    # etcd: one member on loopback (deploy/etcd.yml's three-machine settings, its own ports).
    client=$(free_port)
    peer=$(free_port)
    etcd --name etcd1 --data-dir "$dir/etcd" \
        --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "etcd1=http://127.0.0.1:$peer" --initial-cluster-state new \
        --heartbeat-interval 100 --election-timeout 1000 > "$dir/etcd.log" 2>&1 &
    echo $! > "$dir/etcd.pid"
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$client/health" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:$client/health" >/dev/null || { echo "etcd did not start:" >&2; tail -20 "$dir/etcd.log" >&2; exit 1; }

    # Three members, each from deploy/patroni.yml with loopback addresses, its own directory and trust on loopback.
    for name in "${members[@]}"; do
        port=$(free_port)
        restport=$(free_port)
        echo "$port" > "$dir/$name.port"
        echo "$restport" > "$dir/$name.rest"
        mkdir -p "$dir/$name"
        "$py" - "$dir" "$name" "$port" "$restport" "$client" "$bin_dir" <<'PY'
import sys, yaml
dir, name, port, rest, client, bin_dir = sys.argv[1:]
config = yaml.safe_load(open("deploy/patroni.yml"))
config["name"] = name
config["restapi"] = {"listen": f"127.0.0.1:{rest}", "connect_address": f"127.0.0.1:{rest}"}
config["etcd3"] = {"hosts": f"127.0.0.1:{client}"}
config["bootstrap"]["pg_hba"] = ["local all all trust", "host replication replicator 127.0.0.1/32 trust",
                                 "host all all 127.0.0.1/32 trust"]
config["bootstrap"]["initdb"] = [{"encoding": "UTF8"}, {"auth": "trust"}]
pg = config["postgresql"]
pg.update({"listen": f"127.0.0.1:{port}", "connect_address": f"127.0.0.1:{port}",
           "data_dir": f"{dir}/{name}/data", "bin_dir": bin_dir, "pgpass": f"{dir}/{name}/pgpass"})
pg["parameters"] = {"unix_socket_directories": f"{dir}/{name}", "fsync": "on"}
yaml.safe_dump(config, open(f"{dir}/{name}.yml", "w"), sort_keys=False)
PY
        if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir/$name" "$dir/$name.yml"; fi
    done
    # The first member alone, so it is the one that bootstraps (initdb); the others copy it (pg_basebackup).
    for name in "${members[@]}"; do
        # (Patroni's own pid, not runuser's: stopping must reach Patroni, or a Patroni left behind stops the
        # PostgreSQL of the next cluster started in the same directory.)
        as_owner sh -c 'echo $$ > "$1"; exec patroni "$2"' patroni "$dir/$name/patroni.pid" "$dir/$name.yml" \
            > "$dir/$name.log" 2>&1 &
        if [ "$name" = pg1 ]; then
            for _ in $(seq 600); do
                curl -sf "http://127.0.0.1:$(rest pg1)/primary" >/dev/null 2>&1 && break
                sleep 0.1
            done
            curl -sf "http://127.0.0.1:$(rest pg1)/primary" >/dev/null \
                || { echo "the first PostgreSQL member did not become primary:" >&2; tail -30 "$dir/pg1.log" >&2; exit 1; }
        fi
    done
    # Ready when both others stream from the primary and one of them is its synchronous standby.
    ready=""
    for _ in $(seq 1200); do
        replicas=0
        for name in pg2 pg3; do curl -sf "http://127.0.0.1:$(rest "$name")/replica" >/dev/null 2>&1 && replicas=$((replicas + 1)); done
        sync=$(curl -sf "http://127.0.0.1:$(rest pg1)/cluster" 2>/dev/null | "$py" -c \
            'import json,sys; print(sum(m.get("role") == "sync_standby" for m in json.load(sys.stdin)["members"]))' 2>/dev/null || echo 0)
        if [ "$replicas" = 2 ] && [ "$sync" -ge 1 ]; then ready=yes; break; fi
        sleep 0.1
    done
    [ -n "$ready" ] || { echo "the standbys did not catch up within 120 s:" >&2; tail -n 20 "$dir/pg2.log" "$dir/pg3.log" >&2; exit 1; }

    # HAProxy: deploy/haproxy-postgres.cfg with this machine's ports.
    front=$(free_port)
    servers=""
    for name in "${members[@]}"; do
        servers+="    server $name 127.0.0.1:$(cat "$dir/$name.port") maxconn 400 check port $(rest "$name")"$'\n'
    done
    "$py" - "$dir/haproxy.cfg" "$front" "$servers" <<'PY'
import re, sys
path, port, servers = sys.argv[1:]
text = open("deploy/haproxy-postgres.cfg").read()
text = text.replace("bind 127.0.0.1:5000", f"bind 127.0.0.1:{port}")
text = re.sub(r"(    server pg\d+ .*\n)+", lambda _: servers, text)
open(path, "w").write(text)
PY
    haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid" 2> "$dir/haproxy.log"
    admin="postgres://papertrade@127.0.0.1:$front/postgres?sslmode=disable"
    # HAProxy counts each member up until its checks say otherwise: wait until only the primary is left (several
    # connections in a row land on a member that is not in recovery).
    writable=0
    for _ in $(seq 300); do
        if [ "$(psql "$admin" -qAtc "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ]; then writable=$((writable + 1)); else writable=0; fi
        [ "$writable" -ge 5 ] && break
        sleep 0.1
    done
    psql "$admin" -qc "CREATE DATABASE papertrade" >&2
    echo "postgres postgres://papertrade@127.0.0.1:$front/papertrade?sslmode=disable"
    for name in "${members[@]}"; do member_line "$name"; done
    ;;
status)
    for name in "${members[@]}"; do member_line "$name"; done
    ;;
stop)
    [ -d "$dir" ] || exit 0
    [ -f "$dir/haproxy.pid" ] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true
    for name in "${members[@]}"; do
        [ -f "$dir/$name/patroni.pid" ] && kill -TERM "$(cat "$dir/$name/patroni.pid")" 2>/dev/null || true
    done
    # Patroni stops its PostgreSQL before it exits.
    for name in "${members[@]}"; do
        pidfile="$dir/$name/patroni.pid"
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        postmaster=$(head -1 "$dir/$name/data/postmaster.pid" 2>/dev/null || true)
        [ -n "$postmaster" ] && kill -9 "$postmaster" 2>/dev/null || true
    done
    [ -f "$dir/etcd.pid" ] && kill "$(cat "$dir/etcd.pid")" 2>/dev/null || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: patroni.sh start DIR | status DIR | stop DIR" >&2
    exit 2
    ;;
esac
