"""Does model work hold up cheap requests? Prints figures, asserts nothing.

Starts papertrade (the binary given, on a fresh data directory, clock always open), sets BURN CPU-bound processes
beside it (2 unless told), asks for several underlyings' first option chains at once (each builds four years of
history, a volatility surface and thousands of priced contracts; SPY's history is an index of 500 members) and
meanwhile polls /healthz every 50 ms. Before the compute lane (Sources/MarketData/Feeds/ComputeLane.swift) the
slowest /healthz took 7 s; after it, a fraction of a second.

    python3 benchmarks/load/stall.py .build/debug/papertrade [SPY,AAPL,...]
"""
import os
import subprocess
import sys
import threading
import time
from harness import BenchServer

binary = sys.argv[1]
underlyings = (sys.argv[2] if len(sys.argv) > 2 else "SPY,AAPL,MSFT,QQQ,NVDA,TSLA,AMZN,META").split(",")
server = BenchServer(binary, password="stall-bench-password")


def get(path):
    start = time.monotonic()
    server.get(path)
    return time.monotonic() - start


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
    server.stop()
health.sort()
print(f"{len(underlyings)} first option chains at once beside {len(burners)} busy processes: all done in {wall:.1f} s; "
      + ", ".join(f"{symbol} {seconds:.1f} s" for symbol, seconds in sorted(times.items(), key=lambda x: x[1])))
print(f"/healthz meanwhile: {len(health)} answers, p50 {health[len(health) // 2] * 1000:.0f} ms, "
      f"slowest {health[-1] * 1000:.0f} ms")
