"""SIGTERM under load: every request is answered or refused cleanly, the process exits by itself, nothing is lost."""
import concurrent.futures
import json
import signal
import threading
import time
import urllib.error
import urllib.request

from alpaca.trading.client import TradingClient
from alpaca.trading.enums import QueryOrderStatus
from alpaca.trading.requests import GetOrdersRequest


def place(s, limit_price):
    body = json.dumps({"symbol": "KO", "qty": "1", "side": "buy", "type": "limit", "time_in_force": "gtc",
                       "limit_price": limit_price}).encode()
    request = urllib.request.Request(s.url + "/v2/orders", data=body, method="POST", headers={
        "APCA-API-KEY-ID": s.key_id, "APCA-API-SECRET-KEY": s.secret, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_sigterm_under_load_answers_or_refuses_and_loses_nothing(fresh_server):
    s = fresh_server
    acknowledged = []   # (order id, status) of every 200
    failures = []       # anything that is neither a complete answer nor a refused/closed connection
    lock = threading.Lock()
    stop = threading.Event()

    def trader(seed):
        n = 0
        while not stop.is_set():
            n += 1
            try:
                status, order = place(s, "1.%02d" % ((seed * 7 + n) % 100))
                with lock:
                    if status == 200 and order.get("id"):
                        acknowledged.append((order["id"], order["status"]))
                    else:
                        failures.append((status, order))
            except urllib.error.HTTPError as e:
                with lock:
                    failures.append((e.code, e.read()[:200]))
            except (ConnectionError, urllib.error.URLError, TimeoutError, OSError):
                # Refused or closed before an answer: the server stopped listening. Never acknowledged.
                return

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for i in range(8):
            pool.submit(trader, i)
        while len(acknowledged) < 80:
            time.sleep(0.01)
        s.process.send_signal(signal.SIGTERM)
        code = s.process.wait(timeout=30)
        stop.set()

    assert code == 0, "graceful shutdown exits cleanly:\n" + s.log()[-3000:]
    assert failures == [], f"every request answered fully or refused, no errors: {failures[:5]}"
    assert len(acknowledged) >= 80

    s.start()
    client = TradingClient(s.key_id, s.secret, paper=True, url_override=s.url)
    open_orders = {str(o.id): o for o in client.get_orders(GetOrdersRequest(status=QueryOrderStatus.OPEN, limit=500))}
    for order_id, status in acknowledged:
        stored = client.get_order_by_id(order_id)
        assert str(stored.id) == order_id
        assert stored.status == status
    assert set(open_orders) >= {order_id for order_id, _ in acknowledged}, "every acknowledged order is still open"
    account = client.get_account()
    reserved = sum(float(o.limit_price) for o in open_orders.values())
    # A margin account: open orders hold Reg T buying power (twice the $100,000 equity).
    assert float(account.regt_buying_power) == 200_000
    assert abs(float(account.buying_power) - (200_000 - reserved)) < 0.005, "buying power reserves every open order"


def test_sigterm_does_not_wait_for_clients_that_hold_half_a_request(fresh_server):
    """Connections holding half a request head (or nothing) and an MCP request that JSON-RPC does not allow do not
    keep the server from stopping: it exits within its drain time, well before their 30 s head deadline."""
    import socket
    s = fresh_server
    held = []
    for n in range(50):
        c = socket.create_connection(("127.0.0.1", s.port), timeout=30)
        if n % 2 == 0:
            c.sendall(b"POST /v2/orders HTTP/1.1\r\nHost: x\r\n")
        held.append(c)
    body = b'{"jsonrpc": "2.0", "id": true, "method": "ping"}'
    mcp = urllib.request.Request(s.url + "/mcp", data=body, method="POST", headers={
        "APCA-API-KEY-ID": s.key_id, "APCA-API-SECRET-KEY": s.secret, "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream"})
    try:
        urllib.request.urlopen(mcp, timeout=30)
    except urllib.error.HTTPError as e:
        assert e.code == 400  # answered at once, not left open
    started = time.time()
    s.process.send_signal(signal.SIGTERM)
    code = s.process.wait(timeout=60)
    took = time.time() - started
    for c in held:
        c.close()
    print(f"\nSIGTERM beside 50 half-open connections: exited in {took:.1f} s")
    assert code == 0
    assert took < 25, f"the server waited {took:.1f} s for clients that never finished a request"
