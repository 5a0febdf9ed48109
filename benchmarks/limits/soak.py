"""Drives every limit of docs/limits.md at once against one server and prints its memory (RSS) before, at the peak,
and after the clients left: for each of several API keys the most market-data connections a key may hold, together
following the most symbols a key may (all different, so the simulator computes days for every one), full
watchlists listed over and over, held and trickling connections, oversize bodies and MCP requests with ids JSON-RPC
does not allow. After the clients leave it watches the memory come back down as the market sheds the days nobody
reads (MarketMemoryService, every two minutes).

    .build/e2e-venv/bin/python benchmarks/limits/soak.py [--binary .build/debug/papertrade] [--keys 2] [--seconds 60]

Prints one line per phase and a last line `soak: peak X MB, after Y MB (ceiling 1024 MB)`.
"""
import argparse
import json
import os
import shutil
import socket
import sys
import threading
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import msgpack  # noqa: E402 (from the e2e virtual environment)
import requests  # noqa: E402
import websocket  # noqa: E402

from conftest import Server  # noqa: E402


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


# docs/limits.md: market-data connections per key, symbols a key's connections follow together.
CONNECTIONS_PER_KEY = 5
SYMBOLS_PER_KEY = 1_000


def new_key(server):
    """A new user's API key (a user of its own: its own limits)."""
    s = requests.Session()
    r = s.post(f"{server.url}/api/v1/auth/signup",
               json={"username": "soak" + uuid.uuid4().hex[:8], "password": "correct horse"}, timeout=300)
    r.raise_for_status()
    account = next(a for a in r.json()["accounts"] if a["market"] == "us")
    key = s.post(f"{server.url}/api/v1/accounts/{account['id']}/keys", timeout=300).json()
    return key["key_id"], key["secret"]


def symbols():
    path = os.path.join(ROOT, "..", "shared", "data", "nasdaq-listed-symbols.csv")
    with open(path) as f:
        return [line.split(",")[0] for line in f.readlines()[1:] if line.split(",")[0].isalpha()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "papertrade"))
    parser.add_argument("--keys", type=int, default=2, help="API keys (users), each at its limits")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--after", type=int, default=300, help="seconds to watch the memory after the clients left")
    args = parser.parse_args()
    os.environ["PAPERTRADE_BINARY"] = args.binary
    import conftest
    conftest.BINARY = args.binary

    server = Server().start()
    pid = server.process.pid
    headers = {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}
    try:
        time.sleep(2)
        before = rss_mb(pid)
        print(f"idle: {before:.0f} MB")
        stop = threading.Event()
        peak = [before]

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(pid))
                time.sleep(0.2)

        threading.Thread(target=sample, daemon=True).start()
        names = symbols()
        keys = [(server.key_id, server.secret)] + [new_key(server) for _ in range(args.keys - 1)]
        sockets = []
        refused = 0
        per_socket = SYMBOLS_PER_KEY // CONNECTIONS_PER_KEY
        for n in range(args.keys * CONNECTIONS_PER_KEY):
            key_id, secret = keys[n // CONNECTIONS_PER_KEY]
            ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/v2/iex", timeout=300)
            ws.recv()
            ws.send_binary(msgpack.packb({"action": "auth", "key": key_id, "secret": secret}))
            ws.recv()
            chunk = names[n * per_socket:(n + 1) * per_socket]
            ws.send(json.dumps({"action": "subscribe", "quotes": chunk, "trades": chunk}))
            if n % CONNECTIONS_PER_KEY == CONNECTIONS_PER_KEY - 1:  # the key follows 1,000 now: 10 more are a 405
                ws.send(json.dumps({"action": "subscribe", "quotes": names[-10:]}))
            sockets.append(ws)

        def drain(ws):
            nonlocal refused
            while not stop.is_set():
                try:
                    for message in msgpack.unpackb(ws.recv()):
                        if message.get("T") == "error" and message.get("code") == 405:
                            refused += 1
                except Exception:
                    return

        for ws in sockets:
            threading.Thread(target=drain, args=(ws,), daemon=True).start()
        print(f"{len(sockets)} market-data sockets of {args.keys} keys, {per_socket} symbols each: "
              f"{rss_mb(pid):.0f} MB")

        # Full watchlists (200 known symbols), listed on both APIs again and again.
        known = [s for s in names[:600] if requests.get(f"{server.url}/v2/assets/{s}", headers=headers,
                                                        timeout=300).status_code == 200][:200]
        for _ in range(5):
            requests.post(f"{server.url}/v2/watchlists", headers=headers, timeout=60,
                          json={"name": "w" + uuid.uuid4().hex[:6], "symbols": known})
        # Held connections: half a request head each, a line now and then.
        held = []
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
        ended = time.time() + args.seconds
        oversize = "x" * (70 * 1024)
        rounds = 0
        while time.time() < ended:
            requests.get(f"{server.url}/v2/watchlists", headers=headers, timeout=300)
            requests.post(f"{server.url}/v2/orders", headers=headers, data=oversize, timeout=300)
            requests.post(f"{server.url}/mcp", headers={**headers, "Content-Type": "application/json",
                                                          "Accept": "application/json, text/event-stream"},
                          data='{"jsonrpc": "2.0", "id": true, "method": "ping"}', timeout=300)
            for s in held:
                try:
                    s.sendall(b"X: 1\r\n")
                except OSError:
                    pass
            rounds += 1
            time.sleep(0.5)
        print(f"held for {args.seconds} s ({rounds} rounds of listings, oversize bodies, bad MCP ids): "
              f"{rss_mb(pid):.0f} MB now, {refused} subscribes past the limit refused with 405")
        stop.set()
        for ws in sockets:
            ws.close()
        for s in held:
            s.close()
        left = time.time()
        while time.time() - left < args.after:
            time.sleep(30)
            now = rss_mb(pid)
            peak[0] = max(peak[0], now)
            print(f"{time.time() - left:.0f} s after the clients left: {now:.0f} MB")
        after = rss_mb(pid)
        print(f"soak: peak {peak[0]:.0f} MB, after {after:.0f} MB (ceiling 1024 MB; idle before {before:.0f} MB)")
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
