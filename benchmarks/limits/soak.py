"""Drives every limit of docs/limits.md at once against one server and prints its memory (RSS) before, at the peak,
and after the clients left: market-data sockets each subscribed to the most symbols a connection may follow (all
different, so the simulator computes days for every one), full watchlists listed over and over, held and trickling
connections, oversize bodies and MCP requests with ids JSON-RPC does not allow.

    python3 benchmarks/limits/soak.py [--binary .build/debug/papertrade] [--sockets 10] [--seconds 60]

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


def symbols():
    path = os.path.join(ROOT, "..", "shared", "data", "nasdaq-listed-symbols.csv")
    with open(path) as f:
        return [line.split(",")[0] for line in f.readlines()[1:] if line.split(",")[0].isalpha()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "papertrade"))
    parser.add_argument("--sockets", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--per-socket", type=int, default=1000, help="symbols each socket subscribes to")
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
        sockets = []
        refused = 0
        for n in range(args.sockets):
            ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/v2/iex", timeout=60)
            ws.recv()
            ws.send_binary(msgpack.packb({"action": "auth", "key": server.key_id, "secret": server.secret}))
            ws.recv()
            chunk = names[n * args.per_socket:(n + 1) * args.per_socket]
            ws.send(json.dumps({"action": "subscribe", "quotes": chunk, "trades": chunk}))
            ws.send(json.dumps({"action": "subscribe", "quotes": names[-10:]}))  # one past the limit: 405
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
        print(f"{len(sockets)} market-data sockets, {args.per_socket} symbols each: {rss_mb(pid):.0f} MB")

        # Full watchlists (200 known symbols), listed on both APIs again and again.
        known = [s for s in names[:600] if requests.get(f"{server.url}/v2/assets/{s}", headers=headers,
                                                        timeout=60).status_code == 200][:200]
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
            requests.get(f"{server.url}/v2/watchlists", headers=headers, timeout=60)
            requests.post(f"{server.url}/v2/orders", headers=headers, data=oversize, timeout=60)
            requests.post(f"{server.url}/mcp", headers={**headers, "Content-Type": "application/json",
                                                          "Accept": "application/json, text/event-stream"},
                          data='{"jsonrpc": "2.0", "id": true, "method": "ping"}', timeout=60)
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
        time.sleep(30)
        after = rss_mb(pid)
        print(f"soak: peak {peak[0]:.0f} MB, after {after:.0f} MB (ceiling 1024 MB; idle before {before:.0f} MB)")
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
