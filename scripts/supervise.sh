#!/usr/bin/env bash
# Runs a command and starts it again whenever it dies of a signal: a trap (Swift stops the process with SIGILL or
# SIGTRAP on a failed check), a segfault, an abort or the kernel's out-of-memory kill. scripts/run.sh runs
# `papertrade serve` under it, so a defect that still traps costs its users seconds, not the rest of the day.
#   bash scripts/supervise.sh COMMAND [ARGUMENTS…]
# What papertrade acknowledged is on disk before it answered, so a restart loses nothing (tests/e2e/test_crash.py).
# An exit with a status of its own (a clean stop, a port in use, a bad option) ends the supervisor with that status:
# starting a misconfigured server again would fail the same way. SIGINT/SIGTERM go to the command, which shuts down
# gracefully, and then the supervisor exits. Restarts back off from 1 s to 30 s while the command keeps dying within a
# minute of starting.
set -uo pipefail
[ "$#" -gt 0 ] || { echo "usage: supervise.sh COMMAND [ARGUMENTS…]" >&2; exit 64; }

child=""
stopping=0
forward() {
    stopping=1
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap forward INT TERM

delay=1
while true; do
    started=$(date +%s)
    "$@" &
    child=$!
    # `wait` returns early when a trapped signal arrives: wait again until the command has really ended.
    while true; do
        wait "$child"
        status=$?
        kill -0 "$child" 2>/dev/null || break
    done
    child=""
    if [ "$stopping" -eq 1 ] || [ "$status" -lt 128 ]; then exit "$status"; fi
    signal=$(kill -l "$((status - 128))" 2>/dev/null || echo "$((status - 128))")
    if [ $(($(date +%s) - started)) -ge 60 ]; then delay=1; fi
    echo "supervise.sh: $1 died of SIG$signal at $(date -u +%Y-%m-%dT%H:%M:%SZ); starting it again in ${delay}s" >&2
    sleep "$delay" &
    wait $! || true
    [ "$stopping" -eq 1 ] && exit "$status"
    delay=$((delay * 2 > 30 ? 30 : delay * 2))
done
