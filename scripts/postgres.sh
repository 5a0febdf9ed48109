#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the tests and prints its URL on the last line.
#   start: bash scripts/postgres.sh start DIR    stop: bash scripts/postgres.sh stop DIR
# Installs Debian's postgresql package if the server binaries are missing. Runs the server as the
# `postgres` user when invoked as root (initdb refuses root).
set -euo pipefail
action=${1:?start or stop}
dir=${2:?data directory}

find_bin() {
    for candidate in "$(command -v "$1" 2>/dev/null || true)" /usr/lib/postgresql/*/bin/"$1"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
start)
    if ! find_bin initdb >/dev/null; then
        echo "installing PostgreSQL (Debian package postgresql)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
    fi
    initdb=$(find_bin initdb)
    pg_ctl=$(find_bin pg_ctl)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; chmod a+x "$(dirname "$dir")"; fi
    as_owner "$initdb" -D "$dir/data" -U papertrade --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
    as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c fsync=on -c max_wal_size=8GB" start >&2
    echo "$port" > "$dir/port"
    echo "postgres://papertrade@127.0.0.1:$port/postgres?sslmode=disable"
    ;;
stop)
    [ -d "$dir/data" ] || exit 0
    as_owner "$(find_bin pg_ctl)" -D "$dir/data" -m fast stop >&2 || true
    rm -rf "$dir"
    ;;
esac
