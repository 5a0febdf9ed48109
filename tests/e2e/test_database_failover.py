"""The database fails over too: papertrade on PostgreSQL under Patroni (three members, synchronous mode, etcd) behind
HAProxy (scripts/cluster.sh --ha), driven by alpaca-py through the front — kill -9 of the primary's postmaster and a
planned switchover under load lose nothing and apply nothing twice. And the case a failover makes possible: the
connection cut after the commit was sent, so papertrade never hears whether its commit landed (a TCP proxy here cuts it
on purpose) — the commit's key is looked up once the database answers again, and the client is told the truth."""
import concurrent.futures
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import pytest
import requests
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce
from alpaca.trading.requests import GetOrdersRequest, MarketOrderRequest

from conftest import ROOT, Server
from test_cluster import Cluster, check_books, new_trader


# MARK: Failover under load


@pytest.fixture(scope="module")
def ha():
    c = Cluster(2, ha=True)
    yield c
    c.stop()


def database_members(cluster):
    out = subprocess.run(["bash", "scripts/patroni.sh", "status", os.path.join(cluster.dir, "postgres")], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    members = {}
    for line in out.stdout.splitlines():
        _, name, url, pid, role = line.split()
        members[name] = {"url": url, "pid": int(pid), "role": role}
    return members


def sync_standby(cluster, within=90):
    """The member that is the primary's synchronous standby, once there is one (after a member's crash or a
    switchover Patroni names one again within seconds). In synchronous mode only that member may be promoted: a
    primary that dies with none leaves the cluster waiting, rather than promote a standby that may lack commits."""
    deadline = time.time() + within
    while time.time() < deadline:
        for name in ("pg1", "pg2", "pg3"):
            try:
                rest = open(os.path.join(cluster.dir, "postgres", f"{name}.rest")).read().strip()
                members = requests.get(f"http://127.0.0.1:{rest}/cluster", timeout=5).json()["members"]
            except (OSError, ValueError, KeyError):
                continue
            if any(m["role"] == "leader" and m["state"] == "running" for m in members):
                found = next((m["name"] for m in members
                              if m["role"] == "sync_standby" and m["state"] in ("running", "streaming")), None)
                if found:
                    return found
            break
        time.sleep(0.5)
    raise AssertionError(f"no synchronous standby within {within} s")


class Traders:
    """Six alpaca-py clients placing market buys through the front as fast as they are answered, each retrying an
    order (same client_order_id) until it is acknowledged. Records every acknowledged order, and the longest time
    no order at all was acknowledged (the outage a client saw)."""

    def __init__(self, front, keys):
        self.front, self.keys = front, keys
        self.acknowledged = {k: [] for k, _ in keys}
        self.answers = []  # times orders were acknowledged
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.pool = concurrent.futures.ThreadPoolExecutor(len(keys))
        self.futures = [self.pool.submit(self.trade, i) for i in range(len(keys))]

    def trade(self, seed):
        key_id, secret = self.keys[seed]
        c = TradingClient(key_id, secret, paper=True, url_override=self.front)
        n = 0
        while not self.stop.is_set():
            cid = f"f{seed}-{n}-{uuid.uuid4().hex[:6]}"
            n += 1
            while True:
                try:
                    c.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                      time_in_force=TimeInForce.DAY, client_order_id=cid))
                    break
                except APIError as e:
                    if "client_order_id" in str(e):  # placed by an attempt whose answer was lost: it is there once
                        c.get_order_by_client_id(cid)
                        break
                    time.sleep(0.1)  # 503 while the database fails over: the same order again
                except Exception:
                    time.sleep(0.1)
                if self.stop.is_set() and n > 1:
                    return  # (an order never acknowledged is not counted; the books still must balance)
            with self.lock:
                self.acknowledged[key_id].append(cid)
                self.answers.append(time.time())

    def count(self):
        with self.lock:
            return len(self.answers)

    def wait_for(self, n, within):
        deadline = time.time() + within
        while self.count() < n and time.time() < deadline:
            time.sleep(0.01)
        return self.count() >= n

    def longest_gap(self, since):
        with self.lock:
            times = sorted(t for t in self.answers if t >= since)
        return max((b - a for a, b in zip([since] + times, times)), default=float("nan"))

    def finish(self):
        self.stop.set()
        for f in self.futures:
            f.result(timeout=120)
        self.pool.shutdown()


@pytest.mark.parametrize("what", ["postmaster", "machine"])
def test_kill9_of_the_primary_under_load_writes_resume_and_nothing_is_lost_or_doubled(ha, what):
    """`postmaster`: the primary's PostgreSQL dies and its Patroni restarts it in place (crash recovery). `machine`:
    its Patroni dies with it, the leader key expires in etcd and a standby — the synchronous one, which has every
    acknowledged commit — is promoted; HAProxy sends the nodes' new connections there."""
    sync_standby(ha)  # a healthy cluster to start from
    keys = [new_trader(ha.front) for _ in range(6)]
    starting = {k: float(TradingClient(k, s, paper=True, url_override=ha.front).get_account().cash) for k, s in keys}
    traders = Traders(ha.front, keys)
    try:
        assert traders.wait_for(60, within=120), ha.logs()
        name, primary = next((n, m) for n, m in database_members(ha).items() if m["role"] == "primary")
        if what == "machine":
            os.kill(int(open(os.path.join(ha.dir, "postgres", name, "patroni.pid")).read()), signal.SIGKILL)
        os.kill(primary["pid"], signal.SIGKILL)
        killed = time.time()
        before = traders.count()
        resumed = traders.wait_for(before + 60, within=90)
        gap = traders.longest_gap(killed)
    finally:
        traders.finish()
    print(f"\nkill -9 of the primary's {what} under load: longest wait for an acknowledged order {gap:.1f} s; "
          f"{traders.count()} orders acknowledged; members now "
          f"{ {n: m['role'] for n, m in database_members(ha).items()} }")
    assert resumed, ha.logs()
    assert gap < 30, f"writes resumed after {gap:.1f} s"
    check_books(ha.front, keys, traders.acknowledged, starting)


def test_a_switchover_under_load_fails_no_order_a_retrying_client_cannot_complete(ha):
    keys = [new_trader(ha.front) for _ in range(6)]
    starting = {k: float(TradingClient(k, s, paper=True, url_override=ha.front).get_account().cash) for k, s in keys}
    members = database_members(ha)
    leader = next(n for n, m in members.items() if m["role"] == "primary")
    candidate = sync_standby(ha)  # in synchronous mode Patroni switches over only to it
    traders = Traders(ha.front, keys)
    try:
        assert traders.wait_for(40, within=120), ha.logs()
        switched = time.time()
        out = subprocess.run(["patronictl", "-c", os.path.join(ha.dir, "postgres", f"{leader}.yml"), "switchover",
                              "--leader", leader, "--candidate", candidate, "--force"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and "Successfully" in out.stdout, out.stdout + out.stderr
        before = traders.count()
        resumed = traders.wait_for(before + 40, within=90)
        gap = traders.longest_gap(switched)
    finally:
        traders.finish()
    deadline = time.time() + 30
    while (now := database_members(ha))[candidate]["role"] != "primary" and time.time() < deadline:
        time.sleep(0.5)
    print(f"\npatronictl switchover {leader} → {candidate} under load: longest wait for an acknowledged order "
          f"{gap:.1f} s; {traders.count()} orders acknowledged")
    assert resumed, ha.logs()
    assert now[candidate]["role"] == "primary", now
    check_books(ha.front, keys, traders.acknowledged, starting)


# MARK: A commit whose answer never came


class CuttingProxy:
    """A TCP proxy to PostgreSQL that cuts a connection once, at a chosen moment of a journal commit — one prepared
    statement, `papertrade_journal`, that commits by itself (its text, with the key's INSERT, goes out once per
    connection in a Parse; each commit is a Bind naming it, with Execute and Sync): `arm("after")` forwards the
    commit's Bind/Execute/Sync and then closes both ends (the server commits; papertrade never hears it);
    `arm("before", times)` closes both ends instead of forwarding the statement (nothing commits), `times` commits
    in a row."""

    statement = b"papertrade_journal"
    parse = b"INSERT INTO journal_commits"

    def __init__(self, port):
        self.target = port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.mode = None
        self.times = 0
        self.cuts = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def arm(self, mode, times=1):
        with self.lock:
            self.mode, self.times = mode, times

    def accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            state = {"silenced": False}
            threading.Thread(target=self.pump, args=(client, upstream, state, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, state, False), daemon=True).start()

    def pump(self, source, sink, state, outbound):
        try:
            while data := source.recv(65536):
                cut = False
                if outbound:
                    with self.lock:
                        if self.mode == "before" and self.statement in data:
                            cut, self.times = True, self.times - 1
                            self.mode = self.mode if self.times > 0 else None
                        elif self.mode == "after" and self.statement in data and self.parse not in data:
                            state["silenced"] = True  # the server's answer goes nowhere
                            sink.sendall(data)
                            time.sleep(0.2)  # the server has read it and committed
                            cut, self.mode = True, None
                if not outbound and state["silenced"]:
                    break
                if cut:
                    self.cuts += 1
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


@pytest.fixture(scope="module")
def cut_server():
    directory = tempfile.mkdtemp(prefix="papertrade-pg-")
    out = subprocess.run(["bash", "scripts/postgres.sh", "start", directory], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    admin = out.stdout.strip().splitlines()[-1]
    subprocess.run(["psql", admin, "-qc", "CREATE DATABASE papertrade"], check=True, capture_output=True)
    port = int(open(os.path.join(directory, "port")).read())
    proxy = CuttingProxy(port)
    url = f"postgres://papertrade@127.0.0.1:{proxy.port}/papertrade?sslmode=disable"
    server = Server(env={"PAPERTRADE_DATABASE_URL": url}).start()
    server.proxy = proxy
    server.database = admin.replace("/postgres?", "/papertrade?")
    yield server
    server.process.terminate()
    server.process.wait(timeout=60)
    subprocess.run(["bash", "scripts/postgres.sh", "stop", directory], cwd=ROOT, capture_output=True, timeout=120)


def stored_orders(server, cid):
    out = subprocess.run(["psql", server.database, "-qAtc",
                          f"SELECT count(*) FROM orders WHERE client_order_id = '{cid}'"],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_a_commit_whose_answer_was_cut_off_is_looked_up_and_reported_as_done(cut_server):
    key_id, secret = new_trader(cut_server.url)
    client = TradingClient(key_id, secret, paper=True, url_override=cut_server.url)
    client.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    cuts = cut_server.proxy.cuts
    cut_server.proxy.arm("after")
    cid = "cut-after-" + uuid.uuid4().hex[:8]
    order = client.submit_order(MarketOrderRequest(symbol="KO", qty=2, side=OrderSide.BUY,
                                                   time_in_force=TimeInForce.DAY, client_order_id=cid))
    assert cut_server.proxy.cuts == cuts + 1, "the proxy cut the commit's connection"
    # The server committed; papertrade found its key after reconnecting and answered with the order.
    assert order.client_order_id == cid and order.status.value == "filled"
    assert stored_orders(cut_server, cid) == 1
    assert float(client.get_open_position("KO").qty) == 3
    assert "had closed; connected again" in cut_server.log()


def test_a_commit_cut_off_before_it_was_sent_is_written_again_once(cut_server):
    """The group commit retries each step of a failed group on its own, on a new connection: the order goes
    through, once."""
    key_id, secret = new_trader(cut_server.url)
    client = TradingClient(key_id, secret, paper=True, url_override=cut_server.url)
    cuts = cut_server.proxy.cuts
    cut_server.proxy.arm("before")
    cid = "cut-once-" + uuid.uuid4().hex[:8]
    order = client.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                   time_in_force=TimeInForce.DAY, client_order_id=cid))
    assert cut_server.proxy.cuts == cuts + 1
    assert order.status.value == "filled" and stored_orders(cut_server, cid) == 1
    assert float(client.get_open_position("KO").qty) == 1


def test_a_commit_that_fails_twice_is_reported_as_not_done_and_the_same_order_again_goes_through_once(cut_server):
    key_id, secret = new_trader(cut_server.url)
    client = TradingClient(key_id, secret, paper=True, url_override=cut_server.url)
    cash = float(client.get_account().cash)
    cut_server.proxy.arm("before", times=2)  # the group's commit, then the step's own retry
    cid = "cut-twice-" + uuid.uuid4().hex[:8]
    body = {"symbol": "KO", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day", "client_order_id": cid}
    headers = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
    r = requests.post(f"{cut_server.url}/v2/orders", json=body, headers=headers, timeout=120)
    assert r.status_code == 503, r.text
    assert r.headers.get("Retry-After") == "1"
    assert "nothing was changed" in r.json()["message"]
    assert stored_orders(cut_server, cid) == 0
    # Memory did not run ahead of the database: the account is as before, and the same order again goes through once.
    assert float(client.get_account().cash) == cash
    assert client.get_orders(GetOrdersRequest(status="all")) == []
    again = requests.post(f"{cut_server.url}/v2/orders", json=body, headers=headers, timeout=60)
    assert again.status_code == 200, again.text
    assert stored_orders(cut_server, cid) == 1
    assert float(client.get_open_position("KO").qty) == 1
