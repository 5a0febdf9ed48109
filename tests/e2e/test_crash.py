"""kill -9 under load, restart, reconcile: nothing acknowledged is lost and no fill is half-applied."""
import concurrent.futures
import random
import threading

from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce
from alpaca.trading.requests import LimitOrderRequest, MarketOrderRequest


def test_kill9_under_load_loses_nothing_acknowledged(fresh_server):
    s = fresh_server
    client = TradingClient(s.key_id, s.secret, paper=True, url_override=s.url)
    acknowledged = []
    lock = threading.Lock()
    stop = threading.Event()

    def trader(seed):
        rng = random.Random(seed)
        c = TradingClient(s.key_id, s.secret, paper=True, url_override=s.url)
        while not stop.is_set():
            try:
                if rng.random() < 0.5:
                    o = c.submit_order(MarketOrderRequest(symbol=rng.choice(["AAPL", "MSFT", "KO"]), qty=1,
                                                          side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
                else:
                    o = c.submit_order(LimitOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                         time_in_force=TimeInForce.GTC, limit_price=1.0))
                with lock:
                    acknowledged.append((str(o.id), o.status))
            except Exception:
                return  # the server went away mid-request: that order was never acknowledged

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for i in range(8):
            pool.submit(trader, i)
        while len(acknowledged) < 60:
            stop.wait(0.01)
        s.kill9()
        stop.set()

    s.start()
    client = TradingClient(s.key_id, s.secret, paper=True, url_override=s.url)
    for order_id, status in acknowledged:
        try:
            stored = client.get_order_by_id(order_id)
        except Exception:
            raise AssertionError("server after restart:\n" + s.log()[-4000:])
        assert stored.status == status or stored.status in ("filled", "canceled", "expired")
    # Cash, positions and the activity log agree: starting cash + Σ net amounts = cash; Σ fills = positions.
    account = client.get_account()
    activities = client.get("/account/activities", {"page_size": 1000})
    net = sum(float(a.get("net_amount", 0) or 0) for a in activities if a["activity_type"] != "FILL")
    fills = [a for a in activities if a["activity_type"] == "FILL"]
    spent = sum(float(f["price"]) * float(f["qty"]) * (1 if f["side"] == "buy" else -1) for f in fills)
    assert abs(100_000 + net - spent - float(account.cash)) < 0.01 * max(1, len(fills))
    held = {}
    for f in fills:
        held[f["symbol"]] = held.get(f["symbol"], 0) + float(f["qty"]) * (1 if f["side"] == "buy" else -1)
    positions = {p.symbol: float(p.qty) for p in client.get_all_positions()}
    assert positions == {k: v for k, v in held.items() if v}


def test_kill9_with_eight_shard_actors_loses_nothing_on_any_account():
    """Four accounts in four shards, run by eight shard owners, traded at once; kill -9; every acknowledged order
    is on its account after the restart, and each account's cash and positions agree with its own activities."""
    import json
    import shutil
    import urllib.request
    from http.cookiejar import CookieJar

    from conftest import Server

    s = Server(env={"PAPERTRADE_SHARD_ACTORS": "8"}).start()
    try:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

        def call(method, path, body=None):
            request = urllib.request.Request(s.url + "/api/v1" + path, method=method,
                                             data=json.dumps(body).encode() if body is not None else None,
                                             headers={"Content-Type": "application/json"})
            with opener.open(request) as response:
                return json.loads(response.read())

        call("POST", "/auth/login", {"username": "demo", "password": s.password})
        keys = [(s.key_id, s.secret)]
        for n in range(3):
            account = call("POST", "/accounts", {"market": "us", "cash": "100000", "name": f"shard {n}"})
            key = call("POST", f"/accounts/{account['id']}/keys")
            keys.append((key["key_id"], key["secret"]))
        acknowledged = {k: [] for k, _ in keys}
        lock = threading.Lock()
        stop = threading.Event()

        def trader(seed):
            rng = random.Random(seed)
            key_id, secret = keys[seed % len(keys)]
            c = TradingClient(key_id, secret, paper=True, url_override=s.url)
            while not stop.is_set():
                try:
                    o = c.submit_order(MarketOrderRequest(symbol=rng.choice(["AAPL", "MSFT", "KO"]), qty=1,
                                                          side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
                    with lock:
                        acknowledged[key_id].append((str(o.id), o.status))
                except Exception:
                    return

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for i in range(8):
                pool.submit(trader, i)
            while sum(len(v) for v in acknowledged.values()) < 80:
                stop.wait(0.01)
            s.kill9()
            stop.set()

        s.start()
        for key_id, secret in keys:
            client = TradingClient(key_id, secret, paper=True, url_override=s.url)
            assert acknowledged[key_id], "every account traded before the kill"
            for order_id, status in acknowledged[key_id]:
                stored = client.get_order_by_id(order_id)
                assert stored.status == status or stored.status in ("filled", "canceled", "expired")
            account = client.get_account()
            activities = client.get("/account/activities", {"page_size": 1000})
            net = sum(float(a.get("net_amount", 0) or 0) for a in activities if a["activity_type"] != "FILL")
            fills = [a for a in activities if a["activity_type"] == "FILL"]
            spent = sum(float(f["price"]) * float(f["qty"]) for f in fills)
            assert abs(100_000 + net - spent - float(account.cash)) < 0.01 * max(1, len(fills))
            held = {}
            for f in fills:
                held[f["symbol"]] = held.get(f["symbol"], 0) + float(f["qty"])
            assert {p.symbol: float(p.qty) for p in client.get_all_positions()} == held
        # The operator's view, from a second process while the server runs: the demo user's two accounts and the three
        # made here, one to a shard (new accounts go to the emptiest), on eight owners.
        import subprocess
        from conftest import BINARY
        listing = subprocess.run([BINARY, "admin", "shards", "--json", "--shard-actors", "8", "--data-dir", s.data_dir],
                                 capture_output=True, text=True, timeout=60)
        assert listing.returncode == 0, listing.stderr
        layout = json.loads(listing.stdout)
        assert layout["shards"] == 64 and layout["accounts"] == 5
        assert [line["accounts"] for line in layout["layout"]] == [1] * 5
        assert [line["shard"] for line in layout["layout"]] == [0, 1, 2, 3, 4]
        assert layout["owners"] == 8 and [line["owner"] for line in layout["layout"]] == [0, 1, 2, 3, 4]
    finally:
        s.stop()
        shutil.rmtree(s.data_dir, ignore_errors=True)
