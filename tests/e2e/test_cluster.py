"""A cluster of three `papertrade serve` nodes on one PostgreSQL behind HAProxy (scripts/cluster.sh), driven by
alpaca-py and the native API: any node answers any account, and kill -9 of a node under load loses nothing."""
import concurrent.futures
import datetime
import os
import signal
import subprocess
import tempfile
import threading
import time
import uuid

import json

import pytest
import requests
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce
from alpaca.trading.requests import GetOrdersRequest, MarketOrderRequest
from alpaca.trading.stream import TradingStream

from conftest import BINARY, ROOT


class Cluster:
    """scripts/cluster.sh's cluster: `nodes` nodes behind HAProxy, on one PostgreSQL or (`ha`) three under Patroni."""

    def __init__(self, nodes, ha=False):
        self.dir = tempfile.mkdtemp(prefix="papertrade-cluster-")
        out = subprocess.run(
            ["bash", "scripts/cluster.sh", "start", str(nodes), self.dir] + (["--ha"] if ha else [])
            + ["--clock", "always-open", "--rate-limit", "0"],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env={**os.environ, "PAPERTRADE_BINARY": BINARY, "PAPERTRADE_WAL_LIMIT_MB": "64"})
        assert out.returncode == 0, out.stdout + out.stderr
        self.nodes = {}
        for line in out.stdout.splitlines():
            kind, *rest = line.split()
            if kind == "postgres":
                self.database = rest[0]
            elif kind == "node":
                self.nodes[rest[0]] = {"url": rest[1], "pid": int(rest[2])}
            elif kind == "front":
                self.front = rest[0]

    def stop(self):
        subprocess.run(["bash", "scripts/cluster.sh", "stop", self.dir], cwd=ROOT, capture_output=True, timeout=120)

    def logs(self):
        return "\n".join(open(os.path.join(self.dir, f"{name}.log"), errors="replace").read()[-3000:]
                         for name in self.nodes)


@pytest.fixture
def cluster():
    c = Cluster(3)
    yield c
    c.stop()


def new_trader(front, session=False):
    """A user signed up through the front, with an Alpaca key for their USD account (and their web session)."""
    s = requests.Session()
    r = s.post(f"{front}/api/v1/auth/signup", json={"username": "c" + uuid.uuid4().hex[:10], "password": "correct horse"})
    assert r.status_code in (200, 201), r.text
    accounts = s.get(f"{front}/api/v1/accounts").json()
    usd = next(a for a in accounts if a["market"] == "us")
    key = s.post(f"{front}/api/v1/accounts/{usd['id']}/keys").json()
    return (key["key_id"], key["secret"], s) if session else (key["key_id"], key["secret"])


def test_any_node_answers_any_account_and_the_operator_sees_the_cluster(cluster):
    assert len(cluster.nodes) == 3
    keys = [new_trader(cluster.front) for _ in range(6)]
    forwarded = 0
    for key_id, secret in keys:
        for node in cluster.nodes.values():
            r = requests.post(f"{node['url']}/v2/orders", headers={"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret},
                              json={"symbol": "KO", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day"})
            assert r.status_code == 200, r.text
            forwarded += "Papertrade-Forwarded-By" in r.headers
        client = TradingClient(key_id, secret, paper=True, url_override=cluster.front)
        assert len(client.get_orders(GetOrdersRequest(status="all"))) == 3
        assert float(client.get_open_position("KO").qty) == 3
    # Six accounts spread over three nodes: each placed on all three, so most requests went one hop.
    assert forwarded >= 6
    counted = 0
    for node in cluster.nodes.values():
        for line in requests.get(f"{node['url']}/metrics").text.splitlines():
            if line.startswith("papertrade_cluster_forwards_total"):
                counted += float(line.split()[-1])
    assert counted >= forwarded, "every node counts what it forwarded (Prometheus)"
    listing = subprocess.run([BINARY, "admin", "cluster", "--json", "--database-url", cluster.database],
                             capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0, listing.stderr
    view = json.loads(listing.stdout)
    assert sorted(n["name"] for n in view["nodes"] if n["live"]) == ["node1", "node2", "node3"]
    assert sorted(n["shards"] for n in view["nodes"]) == [21, 21, 22]


def forwards(cluster):
    """Requests the nodes have sent on to another node so far (their Prometheus counters, summed)."""
    total = 0.0
    for node in cluster.nodes.values():
        for line in requests.get(f"{node['url']}/metrics", timeout=10).text.splitlines():
            if line.startswith("papertrade_cluster_forwards_total"):
                total += float(line.split()[-1])
    return total


def test_the_front_learns_which_node_serves_each_key_so_forwarding_is_the_exception(cluster):
    """Each answer for an Alpaca key names the node that serves its account (Papertrade-Shard-Owner); HAProxy keeps
    it and sends the key's next requests there. Without it, consistent hashing by key lands (N-1)/N of requests on
    a node that must forward them."""
    keys = [new_trader(cluster.front) for _ in range(9)]
    before, sent = forwards(cluster), 0
    owners = {}
    for key_id, secret in keys:
        for i in range(12):
            path = "/v2/orders" if i % 3 == 0 else "/v2/account"
            headers = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
            r = (requests.post(f"{cluster.front}{path}", headers=headers, timeout=30, json={
                "symbol": "KO", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day"})
                 if path == "/v2/orders" else requests.get(f"{cluster.front}{path}", headers=headers, timeout=30))
            assert r.status_code == 200, r.text
            owners.setdefault(key_id, set()).add(r.headers.get("Papertrade-Shard-Owner"))
            sent += 1
    forwarded = forwards(cluster) - before
    print(f"\nforwards per request through the front, 3 nodes, 9 keys: {forwarded:.0f}/{sent} "
          f"({forwarded / sent:.1%}; consistent hashing alone: about 2/3)")
    assert all(len(o) == 1 and None not in o and o <= set(cluster.nodes) for o in owners.values()), owners
    assert forwarded <= len(keys), "at most each key's first request takes a hop"


def test_the_web_app_s_requests_for_an_account_go_to_its_owner_too(cluster):
    """A web session carries no key, but the app's calls name their account in the path (/api/v1/accounts/{id}/…):
    the front keeps the owner per account id, so after an account's first answer its calls are not forwarded —
    orders placed from the app's session included."""
    sessions = [new_trader(cluster.front, session=True)[2] for _ in range(9)]
    before, sent = forwards(cluster), 0
    owners = {}
    for s in sessions:
        usd = next(a for a in s.get(f"{cluster.front}/api/v1/accounts", timeout=30).json() if a["market"] == "us")
        for i in range(12):
            base = f"{cluster.front}/api/v1/accounts/{usd['id']}"
            r = (s.post(f"{base}/orders", timeout=30, json={
                "symbol": "KO", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day"})
                 if i % 3 == 0 else s.get(f"{base}/orders" if i % 3 == 1 else base, timeout=30))
            assert r.status_code in (200, 201), r.text
            owners.setdefault(usd["id"], set()).add(r.headers.get("Papertrade-Shard-Owner"))
            sent += 1
    forwarded = forwards(cluster) - before
    print(f"\nweb app requests forwarded through the front, 3 nodes, 9 sessions: {forwarded:.0f}/{sent} "
          f"({forwarded / sent:.1%}; round-robin alone: about 2/3)")
    assert all(len(o) == 1 and None not in o and o <= set(cluster.nodes) for o in owners.values()), owners
    # The account list above goes round-robin (it names no account; any node reads it): only each account's first
    # call may take a hop.
    assert forwarded <= len(sessions), "at most each account's first request takes a hop"


def test_kill9_of_a_node_under_load_its_shards_return_within_10s_and_nothing_is_lost_or_doubled(cluster):
    keys = [new_trader(cluster.front) for _ in range(6)]
    starting = {k: float(TradingClient(k, s, paper=True, url_override=cluster.front).get_account().cash) for k, s in keys}
    acknowledged = {k: [] for k, _ in keys}
    lock = threading.Lock()
    stop = threading.Event()

    def trader(seed):
        key_id, secret = keys[seed % len(keys)]
        c = TradingClient(key_id, secret, paper=True, url_override=cluster.front)
        n = 0
        while not stop.is_set():
            cid = f"t{seed}-{n}"
            n += 1
            while not stop.is_set():
                try:
                    o = c.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                          time_in_force=TimeInForce.DAY, client_order_id=cid))
                    break
                except APIError as e:
                    if "client_order_id" in str(e):  # placed by an attempt whose answer was lost: it is there once
                        o = c.get_order_by_client_id(cid)
                        break
                    time.sleep(0.1)  # 503 while the shard moves: retry the same client_order_id
                except Exception:
                    time.sleep(0.1)
            else:
                return
            with lock:
                acknowledged[key_id].append(cid)

    def total():
        with lock:
            return sum(len(v) for v in acknowledged.values())

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(trader, i) for i in range(6)]
        while total() < 60:
            time.sleep(0.01)
        victim = cluster.nodes["node2"]
        os.kill(victim["pid"], 9)
        killed = time.time()
        # Every account answers again (through the front) once the survivors serve node2's shards.
        clients = [TradingClient(k, s, paper=True, url_override=cluster.front) for k, s in keys]
        back = None
        while time.time() - killed < 90:
            ok = 0
            for c in clients:
                try:
                    c.get_account()
                    ok += 1
                except Exception:
                    pass
            if ok == len(clients):
                back = time.time() - killed
                break
            time.sleep(0.1)
        before = total()
        while total() < before + 60 and time.time() - killed < 120:
            time.sleep(0.01)
        stop.set()
        for f in futures:
            f.result()
    print(f"\nkill -9 of node2 under load: every account served again after {back or float('nan'):.2f} s; "
          f"{total()} orders acknowledged")
    # Service comes back: how soon is the cluster benchmark's figure (~3 s, benchmarks/cluster), not this test's — a
    # busy machine takes longer; only a takeover that never happens fails here.
    assert back is not None, cluster.logs()

    check_books(cluster.front, keys, acknowledged, starting)


def through_503s(call, within=30):
    """`call()` as a retrying client makes it: a 503 (with Retry-After) is what a shard answers while it cannot read
    the database — for a moment after a failover, until its reload succeeds — so it is asked again, for up to
    `within` seconds."""
    deadline = time.time() + within
    while True:
        try:
            return call()
        except APIError as e:
            if e.status_code != 503 or time.time() > deadline:
                raise
            time.sleep(0.5)


def check_books(front, keys, acknowledged, starting):
    """Every acknowledged order of each key's account is there once, cash moved only by fills and the position is
    what was filled."""
    for key_id, secret in keys:
        client = TradingClient(key_id, secret, paper=True, url_override=front)
        orders = through_503s(lambda: client.get_orders(GetOrdersRequest(status="all", limit=500)))
        ids = [o.client_order_id for o in orders]
        assert len(ids) == len(set(ids)), "no client_order_id was executed twice"
        assert set(acknowledged[key_id]) <= set(ids), "every acknowledged order is there"
        # The bank invariant: cash moved only by fills.
        account = through_503s(client.get_account)
        activities = through_503s(lambda: client.get("/account/activities", {"page_size": 1000}))
        fills = [a for a in activities if a["activity_type"] == "FILL"]
        spent = sum(float(f["price"]) * float(f["qty"]) for f in fills)
        net = sum(float(a.get("net_amount", 0) or 0) for a in activities if a["activity_type"] != "FILL")
        assert abs(starting[key_id] + net - spent - float(account.cash)) < 0.01 * max(1, len(fills))
        filled = sum(float(f["qty"]) for f in fills)
        positions = {p.symbol: float(p.qty) for p in through_503s(client.get_all_positions)}
        assert positions.get("KO", 0) == filled


def place_until_acknowledged(client, cid, stop=None, within=None):
    """Places a market buy with `cid`, retrying through 503s while a shard moves; the order it got, once. With
    `within` (seconds), gives up then and returns None: a shard that never comes back fails the test, not hangs it."""
    deadline = time.time() + within if within else None
    while (stop is None or not stop.is_set()) and (deadline is None or time.time() < deadline):
        try:
            return client.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                          time_in_force=TimeInForce.DAY, client_order_id=cid))
        except APIError as e:
            if "client_order_id" in str(e):  # placed by an attempt whose answer was lost
                return client.get_order_by_client_id(cid)
            time.sleep(0.1)
        except Exception:
            time.sleep(0.1)
    return None


def test_streams_on_any_node_carry_every_order_update_of_an_account_another_node_serves_across_a_takeover(cluster):
    key_id, secret, session = new_trader(cluster.front, session=True)
    auth = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
    # The node serving the account answers without a forward; listen on another, and kill the owner later.
    owners = [name for name, node in cluster.nodes.items()
              if "Papertrade-Forwarded-By" not in requests.get(f"{node['url']}/v2/account", headers=auth).headers]
    assert len(owners) == 1, owners
    owner = owners[0]
    listener = cluster.nodes[next(n for n in sorted(cluster.nodes) if n != owner)]["url"]

    # alpaca-py's trade_updates client on the listening node…
    alpaca_events = []
    stream = TradingStream(key_id, secret, paper=True, url_override=listener.replace("http://", "ws://") + "/stream")

    async def on_update(update):
        alpaca_events.append((str(update.order.id), str(update.event)))

    stream.subscribe_trade_updates(on_update)
    threading.Thread(target=stream.run, daemon=True).start()
    # …and the app's event stream there (server-sent events, the web session's cookie).
    native_events = []
    reading = threading.Event()

    def read_events():
        with session.get(f"{listener}/api/v1/events", stream=True, timeout=(5, 120)) as r:
            kind = None
            for line in r.iter_lines(decode_unicode=True):
                if reading.is_set():
                    return
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "order":
                    data = json.loads(line[6:])
                    native_events.append((data["order"]["id"], data["event"]))

    threading.Thread(target=read_events, daemon=True).start()
    client = TradingClient(key_id, secret, paper=True, url_override=cluster.front)

    def seen_everywhere(order_id):
        return ((order_id, "fill") in alpaca_events or (order_id, "OrderEvent.FILL") in alpaca_events) \
            and (order_id, "fill") in native_events

    # Orders placed before both streams listen are not replayed: place until one is heard on both.
    warmup = 0
    deadline = time.time() + 30
    while time.time() < deadline:
        o = place_until_acknowledged(client, f"warm-{warmup}")
        warmup += 1
        time.sleep(0.3)
        if seen_everywhere(str(o.id)):
            break
    else:
        pytest.fail(f"no stream on {listener} heard the owner's fills: {alpaca_events[-3:]} {native_events[-3:]}\n"
                    + cluster.logs())

    # Orders before, during and after the owner's kill -9: every acknowledged one is heard, once, on both streams.
    acknowledged = []
    for n in range(40):
        if n == 15:
            os.kill(cluster.nodes[owner]["pid"], 9)
        acknowledged.append(str(place_until_acknowledged(client, f"t-{n}").id))
    deadline = time.time() + 60
    while time.time() < deadline and not all(seen_everywhere(o) for o in acknowledged):
        time.sleep(0.1)
    reading.set()
    stream.stop()
    missing = [o for o in acknowledged if not seen_everywhere(o)]
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged orders never heard on {listener}"
    for events in (alpaca_events, native_events):
        heard = [e for e in events if e[0] in acknowledged]
        assert len(heard) == len(set(heard)), "an order update was delivered twice"


def all_orders(client):
    """Every order of the account, newest first, a page of 500 at a time (a fast machine places more than 500 for one
    trader in this test): each page ends a millisecond after the oldest of the last, repeats dropped by id."""
    seen, until = {}, None
    while True:
        page = client.get_orders(GetOrdersRequest(status="all", limit=500, until=until))
        new = [o for o in page if str(o.id) not in seen]
        seen.update((str(o.id), o) for o in new)
        if len(page) < 500 or not new:
            return list(seen.values())
        until = min(o.submitted_at for o in page) + datetime.timedelta(milliseconds=1)


def test_rolling_restart_of_every_node_under_load_fails_no_request(cluster):
    keys = [new_trader(cluster.front) for _ in range(6)]
    acknowledged = {k: [] for k, _ in keys}
    failures = []
    lock = threading.Lock()
    stop = threading.Event()

    def trader(seed):
        """Places orders and reads the account in turn through the front; any error at all is a failure."""
        key_id, secret = keys[seed % len(keys)]
        c = TradingClient(key_id, secret, paper=True, url_override=cluster.front)
        n = 0
        while not stop.is_set():
            cid = f"r{seed}-{n}"
            n += 1
            try:
                c.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                  time_in_force=TimeInForce.DAY, client_order_id=cid))
                with lock:
                    acknowledged[key_id].append(cid)
                c.get_account()
            except Exception as e:
                with lock:
                    failures.append(f"{cid}: {e!r}"[:300])
                time.sleep(0.1)

    def total():
        with lock:
            return sum(len(v) for v in acknowledged.values())

    timings = []
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(trader, i) for i in range(6)]
        while total() < 30:
            time.sleep(0.01)
        for name in sorted(cluster.nodes):
            started = time.time()
            out = subprocess.run(["bash", "scripts/cluster.sh", "restart", cluster.dir, name], cwd=ROOT,
                                 capture_output=True, text=True, timeout=120,
                                 env={**os.environ, "PAPERTRADE_BINARY": BINARY, "PAPERTRADE_WAL_LIMIT_MB": "64"})
            assert out.returncode == 0, out.stdout + out.stderr + cluster.logs()
            _, node, url, pid = out.stdout.split()
            cluster.nodes[name] = {"url": url, "pid": int(pid)}
            # Every node serves its share again before the next one goes.
            deadline = time.time() + 30
            while time.time() < deadline:
                if all(requests.get(f"{n['url']}/readyz", timeout=2).status_code == 200
                       for n in cluster.nodes.values()):
                    break
                time.sleep(0.1)
            timings.append(time.time() - started)
            before = total()
            while total() < before + 20:
                time.sleep(0.01)
        stop.set()
        for f in futures:
            f.result()
    print(f"\nrolling restart of 3 nodes under load: {total()} orders acknowledged, {len(failures)} failed requests; "
          f"each node back and the cluster ready after {', '.join(f'{t:.1f}' for t in timings)} s")
    assert not failures, failures[:5]
    for key_id, secret in keys:
        client = TradingClient(key_id, secret, paper=True, url_override=cluster.front)
        ids = [o.client_order_id for o in all_orders(client)]
        assert len(ids) == len(set(ids))
        assert set(acknowledged[key_id]) <= set(ids), "every acknowledged order is there"


def test_a_paused_owner_woken_after_another_node_took_its_shard_writes_nothing_more_to_it(cluster):
    key_id, secret = new_trader(cluster.front)
    auth = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
    owner = next(name for name, node in cluster.nodes.items()
                 if "Papertrade-Forwarded-By" not in requests.get(f"{node['url']}/v2/account", headers=auth).headers)
    zombie = cluster.nodes[owner]
    client = TradingClient(key_id, secret, paper=True, url_override=cluster.front)
    starting = float(client.get_account().cash)
    acknowledged = [str(place_until_acknowledged(client, f"before-{n}").client_order_id) for n in range(5)]

    os.kill(zombie["pid"], signal.SIGSTOP)
    paused = time.time()
    try:
        # Another node takes the shard once the lease (3 s) runs out; orders through the front wait for it.
        placed = [place_until_acknowledged(client, f"paused-{n}", within=180) for n in range(5)]
        assert all(placed), "the paused owner's shard was not served again within 3 minutes" + cluster.logs()
        acknowledged += [str(o.client_order_id) for o in placed]
        taken = time.time() - paused
        time.sleep(1)
    finally:
        os.kill(zombie["pid"], signal.SIGCONT)
    # Straight at the woken node, before or after its next pass notices: each order is either refused (503) or
    # placed by the shard's new owner — never committed by the node that lost the shard.
    direct = TradingClient(key_id, secret, paper=True, url_override=zombie["url"])
    for n in range(20):
        try:
            o = direct.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                       time_in_force=TimeInForce.DAY, client_order_id=f"woken-{n}"))
            acknowledged.append(str(o.client_order_id))
        except APIError as e:
            assert e.status_code == 503, str(e)
    metrics = requests.get(f"{zombie['url']}/metrics").text
    fenced = sum(float(line.split()[-1]) for line in metrics.splitlines()
                 if line.startswith("papertrade_cluster_fenced_commits_total"))
    # (A request HAProxy had already sent to the paused node waits out its 10 s server timeout; alpaca-py retries
    # the 504 with the same client_order_id.)
    print(f"\nSIGSTOP of {owner}: orders through the front placed again after {taken:.1f} s; woken, it had "
          f"{fenced:.0f} commits refused by the fence")
    assert taken < 90, "orders through the front waited out more than a hang's worth of time"  # figures: benchmarks/

    orders = client.get_orders(GetOrdersRequest(status="all", limit=500))
    ids = [o.client_order_id for o in orders]
    assert len(ids) == len(set(ids))
    assert set(acknowledged) <= set(ids), "every acknowledged order is there"
    account = client.get_account()
    fills = [a for a in client.get("/account/activities", {"page_size": 1000}) if a["activity_type"] == "FILL"]
    spent = sum(float(f["price"]) * float(f["qty"]) for f in fills)
    # The bank invariant: a write the fence let through would be in the ledger but not in the new owner's cash.
    assert abs(starting - spent - float(account.cash)) < 0.01 * max(1, len(fills))
    positions = {p.symbol: float(p.qty) for p in client.get_all_positions()}
    assert positions.get("KO", 0) == sum(float(f["qty"]) for f in fills) == len(set(ids))
