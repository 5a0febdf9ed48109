"""What does streaming every crypto pair cost the server? Prints figures, asserts nothing.

Starts papertrade (the binary given, a fresh data directory, the always-open clock), measures its CPU time over a quiet
stretch, then over the same stretch with one alpaca-py-style client subscribed to every pair (`*`) on the crypto
stream's trades, quotes and order books — each pair's simulated book and quote computed, compared and sent once a
second — and prints the difference as a share of one core, for the pairs there are and scaled to 40 (goal < 5%).

    python3 benchmarks/load/crypto-stream.py .build/release/papertrade [seconds]
(Run it with the e2e venv's python, which has msgpack and websockets: .build/e2e-venv/bin/python.)
"""
import asyncio
import json
import os
import sys
import time

import msgpack
import websockets
from harness import BenchServer

binary = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
tick = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime


bench = BenchServer(binary, password="crypto-stream-bench")
server, port, key = bench.process, bench.port, bench.key
pairs = len(json.loads(bench.get("/v2/assets?asset_class=crypto")))


async def stream(duration):
    messages = 0
    async with websockets.connect(f"ws://127.0.0.1:{port}/v1beta3/crypto/us", max_size=None) as ws:
        await ws.recv()
        await ws.send(msgpack.packb({"action": "auth", "key": key["key_id"], "secret": key["secret_key"]}))
        await ws.recv()
        await ws.send(msgpack.packb({"action": "subscribe", "trades": ["*"], "quotes": ["*"], "orderbooks": ["*"]}))
        await asyncio.sleep(3)  # the first round (every pair-day built) is not the steady cost
        while True:  # drain what came meanwhile
            try:
                await asyncio.wait_for(ws.recv(), 0.05)
            except asyncio.TimeoutError:
                break
        before, start = cpu_seconds(server.pid), time.time()
        while time.time() - start < duration:
            try:
                frame = await asyncio.wait_for(ws.recv(), 1)
                messages += len(msgpack.unpackb(frame))
            except asyncio.TimeoutError:
                pass
        return cpu_seconds(server.pid) - before, time.time() - start, messages


try:
    time.sleep(2)
    quiet_before, quiet_start = cpu_seconds(server.pid), time.time()
    time.sleep(seconds)
    quiet = (cpu_seconds(server.pid) - quiet_before) / (time.time() - quiet_start)
    used, elapsed, messages = asyncio.run(stream(seconds))
    busy = used / elapsed
    cost = max(busy - quiet, 0)
    print(f"crypto stream: {pairs} pairs on trades, quotes and order books for {elapsed:.0f} s: {messages} messages "
          f"({messages / elapsed:.0f}/s); server CPU {100 * busy:.2f}% of a core streaming, {100 * quiet:.2f}% quiet "
          f"→ {100 * cost:.2f}% for {pairs} pairs, {100 * cost * 40 / max(pairs, 1):.2f}% scaled to 40 (goal < 5%)")
finally:
    bench.stop()
