#!/usr/bin/env bash
# Memory and disk soak (prints figures, asserts nothing): a release server on SQLite under an hour (or `minutes`) of
# mixed load — users placing and canceling orders at a steady rate and reading what their screens show, option
# chains, backtests now and then (benchmarks/soak/mixed_load.py), and live-quote clients on both sockets
# (FanoutBench) — with the server's resident memory (and its anonymous part), its heap (in use, and held by the
# allocator: /metrics' papertrade_heap_* gauges, glibc's mallinfo2), the database and its WAL sampled every 30 s.
# Issue 62's question: do memory and the WAL level off, and is what grows data or the allocator's? The summary
# compares the last third's growth with the first's.
#   bash benchmarks/soak/run.sh [minutes (default 60)] [orders/s (default 100)] [quote clients (default 1000)]
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-60}
rate=${2:-100}
clients=${3:-1000}
seconds=$((minutes * 60))
swift build -c release --product papertrade
swift build -c release --product FanoutBench
bin=.build/release/papertrade
work=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$bin serve --port "$port" --clock always-open --rate-limit 0 --connections-per-address 0 --data-dir "$work/data" \
    > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done

python3 benchmarks/soak/mixed_load.py "http://127.0.0.1:$port" "$seconds" "$rate" > "$work/load.txt" 2>&1 &
load=$!
.build/release/FanoutBench --url "http://127.0.0.1:$port" --clients "$clients" --seconds $((seconds - 30)) \
    > "$work/fanout.txt" 2>&1 &

sample() { # minute, then MB: resident, its anonymous part, heap in use, heap the allocator holds, database, WAL
    local rss anon heap held db wal metrics
    rss=$(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$server/status")
    anon=$(awk '/RssAnon/ {printf "%.0f", $2/1024}' "/proc/$server/status")
    metrics=$(curl -sf "http://127.0.0.1:$port/metrics" || true)
    heap=$(awk '/^papertrade_heap_in_use_bytes / {printf "%.0f", $2/1048576}' <<<"$metrics")
    held=$(awk '/^papertrade_heap_held_bytes / {printf "%.0f", $2/1048576}' <<<"$metrics")
    db=$(du -cm "$work"/data/*.sqlite 2>/dev/null | tail -1 | cut -f1)
    wal=$(du -cm "$work"/data/*-wal 2>/dev/null | tail -1 | cut -f1)
    echo "$1 $rss ${anon:-0} ${heap:-0} ${held:-0} $db $wal"
}
echo "minute  RSS MB  anonymous MB  heap in use MB  heap held MB  database MB  WAL MB"
start=$SECONDS
: > "$work/samples"
while kill -0 "$load" 2>/dev/null; do
    s=$(sample $(( (SECONDS - start) / 60 )))
    echo "$s" >> "$work/samples"
    echo "$s" | awk '{printf "%6d  %6d  %12d  %14d  %12d  %11d  %6d\n", $1, $2, $3, $4, $5, $6, $7}'
    sleep 30
done
cat "$work/load.txt"; grep "^fanout:" "$work/fanout.txt" | tail -3 || true
python3 - "$work/samples" <<'PY'
import sys
rows = [list(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
start_rss = rows[0][1] if rows else 0
rows = [r for r in rows if r[0] >= 2]  # (the first two minutes are the clients arriving and the market warming)
if len(rows) >= 6:
    third = len(rows) // 3
    def growth(part, column):  # MB a minute over that part of the run
        first, last = part[0], part[-1]
        return (last[column] - first[column]) / max(1, last[0] - first[0])
    early, late = rows[:third], rows[-third:]
    print(f"soak: RSS {start_rss} at start, {rows[0][1]} at minute 2, {rows[-1][1]} MB at the end (peak {max(r[1] for r in rows)}); growth first third "
          f"{growth(early, 1):+.1f} MB/min, last third {growth(late, 1):+.1f} MB/min; heap in use {rows[0][3]} -> {rows[-1][3]} MB "
          f"(first third {growth(early, 3):+.2f}, last {growth(late, 3):+.2f} MB/min), held by the allocator {rows[0][4]} -> {rows[-1][4]} MB "
          f"(last third {growth(late, 4):+.2f} MB/min), anonymous {rows[0][2]} -> {rows[-1][2]} MB; WAL peak {max(r[6] for r in rows)} MB; "
          f"database {rows[-1][5]} MB")
PY
