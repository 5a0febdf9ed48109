"""The web app's socket: live quotes for subscribed symbols, order updates and notifications, over a session."""
import asyncio
import json

import requests
import websockets


def test_app_socket_quotes_orders_notifications(server):
    session = requests.Session()
    r = session.post(f"{server.url}/api/v1/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    account = r.json()["accounts"][0]["id"]
    cookie = "; ".join(f"{k}={v}" for k, v in session.cookies.items())

    async def scenario():
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/api/v1/ws",
                                      additional_headers={"Cookie": cookie}) as ws:
            assert json.loads(await ws.recv())["type"] == "hello"
            await ws.send(json.dumps({"type": "subscribe", "symbols": ["AAPL", "nope"]}))
            seen = {}
            placed = False
            while not {"quote", "order", "notification"} <= seen.keys():
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
                seen.setdefault(message["type"], message)
                if message["type"] == "subscribed":
                    assert message["data"]["symbols"] == ["AAPL"]
                if message["type"] == "quote" and not placed:
                    placed = True
                    order = {"symbol": "AAPL", "qty": 2, "side": "buy", "type": "market", "time_in_force": "day"}
                    response = await asyncio.to_thread(session.post, f"{server.url}/api/v1/accounts/{account}/orders", json=order)
                    assert response.status_code == 201, response.text
            assert seen["quote"]["data"]["symbol"] == "AAPL"
            assert seen["order"]["data"]["order"]["symbol"] == "AAPL"
            assert seen["notification"]["data"]["body"].startswith("You have successfully bought 2 shares of AAPL")

    asyncio.run(scenario())

    unauthenticated = asyncio.run(_first_message_without_cookie(server))
    assert unauthenticated["type"] == "error"


async def _first_message_without_cookie(server):
    async with websockets.connect(f"ws://127.0.0.1:{server.port}/api/v1/ws") as ws:
        return json.loads(await ws.recv())


def test_a_batched_socket_gets_a_seconds_quotes_in_one_frame_and_a_new_symbol_at_once(server):
    """The web app's form: `"batch": true` on subscribe; what is subscribed arrives whole in one frame, in symbol order."""
    session = requests.Session()
    r = session.post(f"{server.url}/api/v1/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    cookie = "; ".join(f"{k}={v}" for k, v in session.cookies.items())

    async def batches(ws, count):
        out = []
        while len(out) < count:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            assert message["type"] != "quote", "a batched socket gets no single quotes"
            if message["type"] == "quotes":
                out.append(message["data"])
        return out

    async def scenario():
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/api/v1/ws",
                                      additional_headers={"Cookie": cookie}) as ws:
            assert json.loads(await ws.recv())["type"] == "hello"
            await ws.send(json.dumps({"type": "subscribe", "symbols": ["MSFT", "AAPL", "600519"], "batch": True}))
            [first] = await batches(ws, 1)
            assert [q["symbol"] for q in first] == ["600519", "AAPL", "MSFT"], first
            assert all(q["last"] and q["time"] for q in first)
            # A symbol added later comes at once (in the round the subscription wakes, or one already under way).
            await ws.send(json.dumps({"type": "subscribe", "symbols": ["NVDA"], "batch": True}))
            later = []
            while not any(q["symbol"] == "NVDA" for b in later for q in b):
                assert len(later) < 3, later
                later += await batches(ws, 1)
            for batch in later:
                symbols = [q["symbol"] for q in batch]
                assert symbols == sorted(symbols) and set(symbols) <= {"600519", "AAPL", "MSFT", "NVDA"}, symbols

    asyncio.run(scenario())
