"""ibind (PyPI, unchanged) against papertrade's Interactive Brokers Client Portal listener: session, accounts, conids,
snapshots (US and A-share), history, orders through IB's reply questions, modify and cancel, live orders, positions,
trades and the WebSocket's smd/sor topics — over HTTPS with the self-signed certificate papertrade made."""
import os
import shutil
import socket
import time
from decimal import Decimal

os.environ.setdefault("IBIND_LOG_TO_FILE", "False")
os.environ.setdefault("IBIND_AUTO_REGISTER_SHUTDOWN", "False")

import pytest
import requests
from ibind import IbkrClient, IbkrWsClient, QueueSink, StockQuery
from ibind.client.ibkr_utils import OrderRequest, QuestionType
from ibind.events import MarketData, Orders
from ibind.ibkr_ws.ibkr_subscriptions import MarketDataSubscription, OrdersSubscription
from ibind.support.errors import ExternalBrokerError

from conftest import Server, free_port


def wait_for_port(port, deadline=30):
    end = time.time() + deadline
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"IB listener did not open port {port}")


def start_gateway(user="demo"):
    ib_port = free_port()
    env = {"PAPERTRADE_IB_PORT": str(ib_port)}
    if user:
        env["PAPERTRADE_IB_USER"] = user
    server = Server(env=env).start()
    wait_for_port(ib_port)
    server.ib_port = ib_port
    server.cacert = os.path.join(server.data_dir, "ib-gateway.crt")
    return server


@pytest.fixture(scope="module")
def gateway():
    server = start_gateway()
    yield server
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def client(gateway):
    # The certificate papertrade generated on first start verifies for 127.0.0.1, as a pinned CA file.
    c = IbkrClient(host="127.0.0.1", port=str(gateway.ib_port), cacert=gateway.cacert, timeout=30)
    accounts = c.portfolio_accounts().data
    c.account_id = accounts[0]["id"]
    yield c
    c.close()


def us_account(client):
    return next(a for a in client.portfolio_accounts().data if a["currency"] == "USD")["id"]


def cn_account(client):
    return next(a for a in client.portfolio_accounts().data if a["currency"] == "CNY")["id"]


def test_health_accounts_and_conids(client):
    assert client.check_health() is True
    assert client.check_auth_status() is True
    accounts = client.portfolio_accounts().data
    assert {a["currency"] for a in accounts} == {"USD", "CNY"}
    assert all(a["type"] == "DEMO" and a["id"].startswith("DU") for a in accounts)
    brokerage = client.receive_brokerage_accounts().data
    assert sorted(brokerage["accounts"]) == sorted(a["id"] for a in accounts)
    assert brokerage["selectedAccount"] in brokerage["accounts"]

    conids = client.stock_conid_by_symbol(["AAPL", "MSFT"]).data
    assert set(conids) == {"AAPL", "MSFT"} and conids["AAPL"] != conids["MSFT"]
    # The same conid again, and the contract it names.
    assert client.stock_conid_by_symbol("AAPL").data["AAPL"] == conids["AAPL"]
    info = client.contract_information_by_conid(str(conids["AAPL"])).data
    assert info["symbol"] == "AAPL" and info["currency"] == "USD"
    search = client.search_contract_by_symbol("AAPL").data
    assert search[0]["symbol"] == "AAPL" and int(search[0]["conid"]) == conids["AAPL"]

    moutai = client.stock_conid_by_symbol(StockQuery("600519"), default_filtering=False).data["600519"]
    rules = client.info_and_rules_by_conid(str(moutai), is_buy=True).data["rules"]
    assert Decimal(str(rules["lotSize"])) == 100 and rules["sellableSameDay"] is False
    assert Decimal(str(rules["limitUp"])) > Decimal(str(rules["limitDown"]))


def test_switch_account(client):
    cn = cn_account(client)
    assert client.switch_account(cn).data["set"] is True
    assert client.receive_brokerage_accounts().data["selectedAccount"] == cn
    client.switch_account(us_account(client))


def test_snapshot_first_call_has_data(client):
    conid = client.stock_conid_by_symbol("AAPL").data["AAPL"]
    first = client.live_marketdata_snapshot(str(conid), ["31", "84", "86", "55", "7295", "6509", "87"]).data[0]
    assert first["conid"] == conid and first["55"] == "AAPL"
    last = Decimal(first["31"].lstrip("CH"))
    bid, ask = Decimal(first["84"]), Decimal(first["86"])
    assert bid <= ask and bid > 0
    assert first["6509"].startswith("R")

    by_symbol = client.live_marketdata_snapshot_by_symbol("MSFT", ["31", "83", "7762"])
    assert Decimal(by_symbol["MSFT"]["last_price"].lstrip("CH")) > 0
    assert int(by_symbol["MSFT"]["volume_long"]) >= 0

    moutai = client.stock_conid_by_symbol(StockQuery("600519"), default_filtering=False).data["600519"]
    cn = client.live_marketdata_snapshot(str(moutai), ["31", "55", "7051", "7741"]).data[0]
    assert cn["55"] == "600519" and cn["7051"] and Decimal(cn["7741"]) > 0
    assert last > 0


def test_history(client):
    daily = client.marketdata_history_by_symbol("AAPL", bar="1d", period="1y").data
    assert daily["symbol"] == "AAPL" and daily["barLength"] == 86400
    bars = daily["data"]
    assert 240 <= len(bars) <= 367  # one bar per session (every day is one on the always-open clock)
    assert all(b["l"] <= min(b["o"], b["c"]) and b["h"] >= max(b["o"], b["c"]) for b in bars)
    assert [b["t"] for b in bars] == sorted(b["t"] for b in bars)
    intraday = client.marketdata_history_by_symbol("AAPL", bar="5min", period="1d").data
    # Today's 5-minute bars so far, back to back (every minute trades on the always-open clock; shortly after
    # midnight in New York there are only a few).
    times = [b["t"] for b in intraday["data"]]
    assert intraday["barLength"] == 300 and times
    assert all(later - earlier == 300_000 for earlier, later in zip(times, times[1:]))
    with pytest.raises(ExternalBrokerError) as error:
        client.marketdata_history_by_symbol("AAPL", bar="7min", period="1d")
    assert error.value.status_code == 400


def test_market_order_through_the_reply_flow(client):
    account = us_account(client)
    conid = client.stock_conid_by_symbol("AAPL").data["AAPL"]
    order = OrderRequest(conid=conid, side="BUY", quantity=10, order_type="MKT", acct_id=account, coid="ibind-mkt-1",
                         tif="DAY")
    # Without an answer to IB's market-order question, ibind refuses to go on.
    with pytest.raises(ValueError):
        client.place_order(order, answers={}, account_id=account)
    placed = client.place_order(order, answers={QuestionType.MARKET_ORDER_CONFIRMATION: True}, account_id=account).data
    order_id = placed["order_id"]
    assert placed["order_status"] in ("Filled", "Submitted")

    status = wait_until(lambda: client.order_status(order_id).data, lambda s: s["order_status"] == "Filled")
    assert status["symbol"] == "AAPL" and Decimal(status["cum_fill"]) == 10

    positions = client.positions(account_id=account).data
    aapl = next(p for p in positions if p["ticker"] == "AAPL")
    assert Decimal(str(aapl["position"])) == 10 and aapl["conid"] == conid

    trades = client.trades(days="1", account_id=account).data
    mine = [t for t in trades if str(t["order_id"]) == str(order_id)]
    assert mine and sum(Decimal(str(t["size"])) for t in mine) == 10
    assert all(t["side"] == "B" and Decimal(t["commission"]) >= 0 for t in mine)

    # The same client order id again is refused the way IB words it.
    with pytest.raises(Exception) as duplicate:
        client.place_order(order, answers={QuestionType.MARKET_ORDER_CONFIRMATION: True}, account_id=account)
    assert "already registered" in str(duplicate.value)


def wait_until(read, done, timeout=60):
    end = time.time() + timeout
    value = read()
    while not done(value) and time.time() < end:
        time.sleep(0.2)
        value = read()
    return value


def test_limit_order_modified_then_cancelled(client):
    account = us_account(client)
    conid = client.stock_conid_by_symbol("MSFT").data["MSFT"]
    last = Decimal(client.live_marketdata_snapshot(str(conid), ["31"]).data[0]["31"].lstrip("CH"))
    low = (last * Decimal("0.90")).quantize(Decimal("0.01"))
    order = OrderRequest(conid=conid, side="BUY", quantity=5, order_type="LMT", price=float(low), acct_id=account,
                         tif="GTC")
    # 10% below the last price: IB's 3% price constraint asks first.
    placed = client.place_order(order, answers={QuestionType.PRICE_PERCENTAGE_CONSTRAINT: True}, account_id=account)
    order_id = placed.data["order_id"]
    live = {str(o["orderId"]): o for o in client.live_orders(account_id=account).data["orders"]}
    assert live[str(order_id)]["status"] == "Submitted" and Decimal(live[str(order_id)]["price"]) == low

    higher = (last * Decimal("0.95")).quantize(Decimal("0.01"))
    changed = OrderRequest(conid=conid, side="BUY", quantity=7, order_type="LMT", price=float(higher), acct_id=account,
                           tif="GTC")
    modified = client.modify_order(order_id, changed, answers={QuestionType.PRICE_PERCENTAGE_CONSTRAINT: True},
                                   account_id=account).data
    assert str(modified["order_id"]) == str(order_id)  # a modified order keeps its id, as at IB
    live = {str(o["orderId"]): o for o in client.live_orders(account_id=account).data["orders"]}
    assert Decimal(live[str(order_id)]["price"]) == higher and Decimal(str(live[str(order_id)]["totalSize"])) == 7

    cancelled = client.cancel_order(order_id, account_id=account).data
    assert str(cancelled["order_id"]) == str(order_id)
    status = wait_until(lambda: client.order_status(order_id).data, lambda s: s["order_status"] == "Cancelled")
    assert status["order_status"] == "Cancelled"
    filtered = client.live_orders(filters="cancelled", account_id=account).data["orders"]
    assert str(order_id) in {str(o["orderId"]) for o in filtered}
    assert all(o["status"] == "Cancelled" for o in filtered)


def test_several_orders_waiting_for_replies(client, gateway):
    """Each held order has its own reply id: answering them in any order places each one (ibind #35, #103)."""
    account = us_account(client)
    conid = client.stock_conid_by_symbol("KO").data["KO"]
    base = f"https://127.0.0.1:{gateway.ib_port}/v1/api"
    questions = []
    for coid in ("many-1", "many-2", "many-3"):
        body = {"orders": [{"conid": conid, "side": "BUY", "quantity": 1, "orderType": "MKT", "tif": "DAY",
                            "cOID": coid}]}
        answer = requests.post(f"{base}/iserver/account/{account}/orders", json=body, verify=gateway.cacert).json()
        assert answer[0]["messageIds"] == ["o10151"]
        questions.append(answer[0]["id"])
    for reply_id in reversed(questions):
        confirmed = requests.post(f"{base}/iserver/reply/{reply_id}", json={"confirmed": True},
                                  verify=gateway.cacert).json()
        assert "order_id" in confirmed[0]
    again = requests.post(f"{base}/iserver/reply/{questions[0]}", json={"confirmed": True}, verify=gateway.cacert)
    assert again.status_code == 400 and "not found" in again.json()["error"]


def test_suppressed_questions_and_errors(client, gateway):
    account = us_account(client)
    conid = client.stock_conid_by_symbol("KO").data["KO"]
    client.suppress_messages(["o10151"])
    try:
        order = OrderRequest(conid=conid, side="BUY", quantity=1, order_type="MKT", acct_id=account, tif="DAY")
        placed = client.place_order(order, answers={}, account_id=account).data
        assert placed["order_id"]
    finally:
        client.reset_suppressed_messages()
    base = f"https://127.0.0.1:{gateway.ib_port}/v1/api"
    bad = requests.post(f"{base}/iserver/account/{account}/orders",
                        json={"orders": [{"conid": 3, "side": "BUY", "quantity": 1, "orderType": "MKT"}]},
                        verify=gateway.cacert)
    assert bad.status_code == 400 and "conid" in bad.json()["error"]
    bad = requests.get(f"{base}/iserver/marketdata/snapshot", params={"conids": "abc"}, verify=gateway.cacert)
    assert bad.status_code == 400 and bad.json()["error"]
    wrong_market = requests.post(
        f"{base}/iserver/account/{account}/orders",
        json={"orders": [{"conid": client.stock_conid_by_symbol(StockQuery("600519"), default_filtering=False)
                          .data["600519"], "side": "BUY", "quantity": 100, "orderType": "MKT"}]},
        verify=gateway.cacert)
    assert wrong_market.status_code == 400 and "US stocks" in wrong_market.json()["error"]


def test_websocket_market_data_and_orders(client, gateway):
    account = us_account(client)
    conid = str(client.stock_conid_by_symbol("AAPL").data["AAPL"])
    sink = QueueSink()
    ws = IbkrWsClient(account_id=account, host="127.0.0.1", port=str(gateway.ib_port), ibkr_client=client,
                      cacert=gateway.cacert, sink=sink)
    assert ws.start()
    try:
        md = ws.subscribe(MarketDataSubscription(conid=conid, fields=["31", "84", "86"]))
        assert md.wait(15)
        event = sink.get(MarketData, block=True, timeout=60)
        assert event.conid == conid and "last_price" in event.data

        orders = ws.subscribe(OrdersSubscription())
        orders.wait(5)
        order = OrderRequest(conid=int(conid), side="BUY", quantity=2, order_type="MKT", acct_id=account,
                             coid="ws-sor-1", tif="DAY")
        placed = client.place_order(order, answers={QuestionType.MARKET_ORDER_CONFIRMATION: True},
                                    account_id=account).data
        deadline = time.time() + 60
        seen = set()
        while time.time() < deadline and "Filled" not in seen:
            event = sink.get(Orders, block=True, timeout=deadline - time.time())
            for row in event.data.get("args", []):
                if str(row.get("orderId")) == str(placed["order_id"]):
                    seen.add(row["status"])
        assert "Filled" in seen
    finally:
        ws.shutdown()


def test_login_page_and_logged_out_gateway():
    server = start_gateway(user=None)
    try:
        base = f"https://127.0.0.1:{server.ib_port}"
        c = IbkrClient(host="127.0.0.1", port=str(server.ib_port), cacert=server.cacert)
        assert c.check_health() is False  # tickle answers 401 until someone logs in
        status = c.authentication_status().data
        assert status["authenticated"] is False
        with pytest.raises(ExternalBrokerError) as error:
            c.portfolio_accounts()
        assert error.value.status_code == 401
        page = requests.get(base + "/", verify=server.cacert)
        assert page.status_code == 200 and "<form" in page.text
        wrong = requests.post(base + "/sso/Login", data={"username": "demo", "password": "wrong-password"},
                              verify=server.cacert)
        assert wrong.status_code == 401
        ok = requests.post(base + "/sso/Login", data={"username": "demo", "password": server.password},
                           verify=server.cacert)
        assert ok.status_code == 200 and "Client login succeeds" in ok.text
        assert c.check_health() is True
        assert len(c.portfolio_accounts().data) == 2
        c.logout()
        assert c.check_health() is False
        c.close()
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


def test_modify_a_partly_filled_order(client, gateway):
    """IB's quantity is the order's total: a partly filled order can be modified and stays one order (ibind #114)."""
    account = us_account(client)
    base = f"https://127.0.0.1:{gateway.ib_port}/v1/api"
    precautions = requests.post(f"{base}/iserver/account/{account}/precautions",
                                json={"size_limit": None, "value_limit": None, "price_percent": None},
                                verify=gateway.cacert)
    assert precautions.json()["size_limit"] is None
    try:
        conid = client.stock_conid_by_symbol("KO").data["KO"]
        # The quote moves between the snapshot and the order: when it moved so that the order filled whole
        # (or not at all), try again with a fresh quote.
        for _ in range(6):
            snap = client.live_marketdata_snapshot(str(conid), ["86", "85"]).data[0]
            ask, ask_lots = Decimal(snap["86"]), Decimal(snap["85"])
            qty = int(ask_lots * 100) + 200  # more than the offer at the ask: part fills, the rest rests
            order = OrderRequest(conid=conid, side="BUY", quantity=qty, order_type="LMT", price=float(ask),
                                 acct_id=account, tif="GTC")
            order_id = client.place_order(order, answers={}, account_id=account).data["order_id"]
            status = client.order_status(order_id).data
            filled = Decimal(status["cum_fill"])
            if 0 < filled < qty:
                break
            if filled == 0:
                client.cancel_order(order_id, account_id=account)
        assert 0 < filled < qty and status["order_status"] == "Submitted"

        # A new total above the first: the resting part may fill a little more before the change arrives.
        lower = (ask * Decimal("0.97")).quantize(Decimal("0.01"))
        new_total = qty + 100
        changed = OrderRequest(conid=conid, side="BUY", quantity=new_total, order_type="LMT", price=float(lower),
                               acct_id=account, tif="GTC")
        modified = client.modify_order(order_id, changed, answers={}, account_id=account).data
        assert str(modified["order_id"]) == str(order_id)
        status = client.order_status(order_id).data
        filled = Decimal(status["cum_fill"])  # three percent below the market, nothing more fills
        assert filled < qty and Decimal(status["total_size"]) == new_total
        assert Decimal(status["size"]) == new_total - filled and Decimal(status["limit_price"]) == lower
        row = next(o for o in client.live_orders(account_id=account).data["orders"]
                   if str(o["orderId"]) == str(order_id))
        assert (Decimal(str(row["filledQuantity"])), Decimal(str(row["totalSize"]))) == (filled, new_total)

        # Below what is already filled: refused, the order keeps working.
        too_small = requests.post(f"{base}/iserver/account/{account}/order/{order_id}",
                                  json={"quantity": int(filled)}, verify=gateway.cacert)
        assert too_small.status_code == 400 and "filled" in too_small.json()["error"]
        client.cancel_order(order_id, account_id=account)
    finally:
        requests.post(f"{base}/iserver/account/{account}/precautions",
                      json={"size_limit": 500, "value_limit": 100000, "price_percent": 3}, verify=gateway.cacert)


def test_the_socket_closes_when_the_gateway_logs_out():
    """A logged-out gateway's socket says so (`sts`, not authenticated) and closes: the orders and quotes it carried
    are no longer the client's to see (another user may log in next)."""
    import asyncio
    import json
    import ssl

    import websockets

    server = start_gateway()
    try:
        base = f"https://127.0.0.1:{server.ib_port}/v1/api"
        session = requests.post(f"{base}/tickle", verify=server.cacert).json()["session"]
        context = ssl.create_default_context(cafile=server.cacert)

        async def scenario():
            async with websockets.connect(f"wss://127.0.0.1:{server.ib_port}/v1/api/ws", ssl=context,
                                          additional_headers={"Cookie": f'api={{"session":"{session}"}}'}) as ws:
                topics = []
                while "act" not in topics:
                    topics.append(json.loads(await asyncio.wait_for(ws.recv(), 15)).get("topic"))
                out = await asyncio.to_thread(requests.post, f"{base}/logout", verify=server.cacert)
                assert out.status_code == 200
                said = []
                try:
                    while True:  # within the next heartbeat (10 s)
                        said.append(json.loads(await asyncio.wait_for(ws.recv(), 15)))
                except websockets.ConnectionClosed as closed:
                    assert closed.rcvd and closed.rcvd.code == 1008, closed
                assert {"topic": "sts", "args": {"authenticated": False}} in said, said[-3:]
                assert not [m for m in said if m.get("topic") in ("sor", "str", "smd")]

        asyncio.run(asyncio.wait_for(scenario(), 40))
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
