"""Does model work hold up cheap requests? Prints figures, asserts nothing.

Starts papertrade (the binary given, on a fresh data directory, clock always open), sets BURN CPU-bound processes
beside it (2 unless told), asks for several underlyings' first option chains at once (each builds four years of
history, a volatility surface and thousands of priced contracts; SPY's history is an index of 500 members) and
meanwhile polls /healthz every 50 ms. Before the compute lane (Sources/MarketData/Feeds/ComputeLane.swift) the
slowest /healthz took 7 s; after it, a fraction of a second.

    python3 benchmarks/load/stall.py .build/debug/papertrade [SPY,AAPL,...]
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

binary = sys.argv[1]
underlyings = (sys.argv[2] if len(sys.argv) > 2 else "SPY,AAPL,MSFT,QQQ,NVDA,TSLA,AMZN,META").split(",")
work = tempfile.mkdtemp()


def admin(*args, stdin=None):
    return subprocess.run([binary, "admin", *args, "--data-dir", work], input=stdin, capture_output=True, text=True,
                          check=True).stdout


admin("create-user", "bench", "--password-stdin", stdin="stall-bench-password\n")
account = json.loads(admin("create-account", "bench", "--market", "us"))["account_id"]
key = json.loads(admin("create-key", account))
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
port = listener.getsockname()[1]
listener.close()
server = subprocess.Popen([binary, "serve", "--port", str(port), "--clock", "always-open", "--rate-limit", "0",
                           "--data-dir", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{port}"
headers = {"APCA-API-KEY-ID": key["key_id"], "APCA-API-SECRET-KEY": key["secret_key"]}


def get(path):
    start = time.monotonic()
    urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=600).read()
    return time.monotonic() - start


for _ in range(600):
    try:
        get("/healthz")
        break
    except OSError:
        time.sleep(0.1)
burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(int(os.environ.get("BURN", "2")))]
try:
    finished = threading.Event()
    health = []

    def poll():
        while not finished.is_set():
            health.append(get("/healthz"))
            time.sleep(0.05)

    threading.Thread(target=poll, daemon=True).start()
    times = {}

    def chain(symbol):
        times[symbol] = get(f"/v1beta1/options/snapshots/{symbol}?limit=1000")

    began = time.monotonic()
    threads = [threading.Thread(target=chain, args=(symbol,)) for symbol in underlyings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - began
    finished.set()
    time.sleep(0.2)
finally:
    for burner in burners:
        burner.kill()
    server.terminate()
    server.wait()
health.sort()
print(f"{len(underlyings)} first option chains at once beside {len(burners)} busy processes: all done in {wall:.1f} s; "
      + ", ".join(f"{symbol} {seconds:.1f} s" for symbol, seconds in sorted(times.items(), key=lambda x: x[1])))
print(f"/healthz meanwhile: {len(health)} answers, p50 {health[len(health) // 2] * 1000:.0f} ms, "
      f"slowest {health[-1] * 1000:.0f} ms")
