"""A soak's mixed load against a running papertrade (stdlib only): a few users placing and canceling orders at a
steady rate, reading quotes, bars, option chains and their accounts, and starting a backtest now and then — the
traffic of a class at work, kept to a fixed rate so an hour's database stays the size such an hour makes.

    python3 benchmarks/soak/mixed_load.py URL SECONDS [orders per second, default 100]
"""
import http.client
import json
import random
import sys
import threading
import time
from urllib.parse import urlparse

url, seconds = urlparse(sys.argv[1]), float(sys.argv[2])
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
USERS = 8
SYMBOLS = ["AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "KO", "SPY", "600519", "000001", "BTC/USD"]
counts = {"orders": 0, "cancels": 0, "reads": 0, "backtests": 0, "errors": 0, "open at the end": 0}
lock = threading.Lock()


def count(what):
    with lock:
        counts[what] += 1


class Client:
    def __init__(self):
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        self.cookie = None

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        for attempt in range(2):
            try:
                self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
                response = self.conn.getresponse()
                data = response.read()
                cookie = response.getheader("Set-Cookie")
                if cookie and cookie.startswith("papertrade_session="):
                    self.cookie = cookie.split(";")[0]
                return response.status, (json.loads(data) if data and data[:1] in b"[{" else None)
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        return 0, None


def user(n, stop):
    client = Client()
    status, _ = client.call("POST", "/api/v1/auth/signup", {"username": f"soak-{n}-{random.randrange(1 << 30)}",
                                                             "password": "soak-password-1"})
    assert status == 201, status
    accounts = {a["market"]: a["id"] for a in client.call("GET", "/api/v1/accounts")[1]}
    us, cn = accounts["us"], accounts["cn"]
    interval = USERS / rate
    resting = []
    step = 0
    next_at = time.time()
    while not stop.is_set():
        step += 1
        symbol = random.choice(SYMBOLS)
        account = cn if symbol.isdigit() else us
        qty = "100" if symbol.isdigit() else ("0.001" if "/" in symbol else "1")
        # Cancels keep each user's resting orders at most ~200 (on the always-open clock day orders never expire), so
        # the open book — data, not waste — stays small and what grows is something else.
        if resting and (random.random() < 0.45 or len(resting) > 200):
            status, _ = client.call("DELETE", f"/api/v1/accounts/{resting.pop(0)}")
            count("cancels" if status in (200, 204) else "errors")
        else:
            body = {"symbol": symbol, "qty": qty, "side": random.choice(["buy", "sell"]), "time_in_force": "day"}
            if random.random() < 0.5:
                status, quote = client.call("GET", f"/api/v1/quotes/{symbol.replace('/', '%2F')}")
                price = float(quote["last"]) if status == 200 and quote and quote.get("last") else None
                if price:
                    body.update(type="limit", limit_price=f"{price * (0.9 if body['side'] == 'buy' else 1.1):.2f}")
            body.setdefault("type", "market")
            status, order = client.call("POST", f"/api/v1/accounts/{account}/orders", body)
            if status == 201 and order and order.get("status") in ("new", "accepted", "pending_new"):
                resting.append(f"{account}/orders/{order['id']}")
            count("orders" if status in (201, 403, 422) else "errors")
        # Reads between orders: what a screen shows.
        if step % 5 == 0:
            for path in (f"/api/v1/accounts/{us}", f"/api/v1/bars/{random.choice(SYMBOLS[:7])}?timeframe=5Min",
                         "/api/v1/market/overview", f"/api/v1/accounts/{us}/orders?status=all"):
                client.call("GET", path)
                count("reads")
        if step % 50 == 0:
            client.call("GET", f"/api/v1/options/{random.choice(['AAPL', 'KO', 'SPY'])}/chain")
            count("reads")
        if step % 400 == 0:
            status, _ = client.call("POST", "/api/v1/backtests", {"symbols": [random.choice(SYMBOLS[:6])],
                                                                   "strategy": "sma-cross", "from": "2023-01-01",
                                                                   "to": "2025-06-30"})
            count("backtests" if status in (200, 201, 202) else "errors")
        next_at += interval
        time.sleep(max(0.0, next_at - time.time()))
    with lock:
        counts["open at the end"] += len(resting)


stop = threading.Event()
threads = [threading.Thread(target=user, args=(n, stop), daemon=True) for n in range(USERS)]
for t in threads:
    t.start()
time.sleep(seconds)
stop.set()
for t in threads:
    t.join(timeout=30)
print("soak load: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
