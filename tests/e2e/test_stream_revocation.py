"""Streams end with their credentials: a stream is checked once, when it opens, and then lives for hours — a revoked
key's Alpaca trade stream, market-data stream and event stream, and a logged-out session's app socket, are told why and
closed (within a quarter of a second when this server revoked it — the test allows 5 s on a busy machine — and within
the 5-second look-again when another process did, as a second node of a cluster would), while the streams of the keys
and sessions still valid carry on."""

import asyncio
import json
import subprocess
import threading
import time

import msgpack
import requests
import websockets

from conftest import BINARY

POLICY_VIOLATION = 1008


def login(server):
    session = requests.Session()
    r = session.post(f"{server.url}/api/v1/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    return session, r.json()["accounts"][0]["id"]


def cookie(session):
    return "; ".join(f"{k}={v}" for k, v in session.cookies.items())


async def trade_stream(server, key):
    ws = await websockets.connect(f"ws://127.0.0.1:{server.port}/stream")
    await ws.send(json.dumps({"action": "authenticate", "data": {"key_id": key["key_id"], "secret_key": key["secret"]}}))
    assert json.loads(await ws.recv())["data"]["status"] == "authorized"
    await ws.send(json.dumps({"action": "listen", "data": {"streams": ["trade_updates"]}}))
    assert json.loads(await ws.recv())["stream"] == "listening"
    return ws


async def quote_stream(server, key):
    ws = await websockets.connect(f"ws://127.0.0.1:{server.port}/v2/iex")
    assert msgpack.unpackb(await ws.recv())[0]["msg"] == "connected"
    await ws.send(msgpack.packb({"action": "auth", "key": key["key_id"], "secret": key["secret"]}))
    assert msgpack.unpackb(await ws.recv())[0]["msg"] == "authenticated"
    await ws.send(msgpack.packb({"action": "subscribe", "quotes": ["AAPL"]}))
    return ws


async def app_socket(server, session):
    ws = await websockets.connect(f"ws://127.0.0.1:{server.port}/api/v1/ws",
                                  additional_headers={"Cookie": cookie(session)})
    assert json.loads(await ws.recv())["type"] == "hello"
    await ws.send(json.dumps({"type": "subscribe", "symbols": ["AAPL"]}))
    return ws


async def last_words(ws, decode, within):
    """What the stream says before the server closes it, and the close code (fails if it is still open `within` s)."""
    said = []
    deadline = time.monotonic() + within
    try:
        while True:
            said.append(decode(await asyncio.wait_for(ws.recv(), timeout=max(0.01, deadline - time.monotonic()))))
    except websockets.ConnectionClosed as closed:
        return said, closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        raise AssertionError(f"still open {within} s after its credentials ended; it said last {said[-1:]}")


async def still_open(ws, seconds):
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            await asyncio.wait_for(ws.recv(), timeout=end - time.monotonic())
    except TimeoutError:
        pass
    return ws.state == websockets.protocol.State.OPEN


def event_stream(server, key, lines, done):
    """Reads the event stream (server-sent events) with `key` into `lines` until it ends."""
    headers = {"APCA-API-KEY-ID": key["key_id"], "APCA-API-SECRET-KEY": key["secret"]}
    with requests.get(f"{server.url}/api/v1/events?symbols=AAPL", headers=headers, stream=True, timeout=60) as r:
        assert r.status_code == 200, r.text
        for line in r.iter_lines(decode_unicode=True):
            lines.append(line)
    done.set()


def test_a_revoked_keys_streams_end_and_the_other_keys_carry_on(server):
    session, account = login(server)
    made = []
    for _ in range(2):
        r = session.post(f"{server.url}/api/v1/accounts/{account}/keys")
        assert r.status_code == 201, r.text
        made.append(r.json())
    revoked, kept = made

    lines, ended = [], threading.Event()
    threading.Thread(target=event_stream, args=(server, revoked, lines, ended), daemon=True).start()

    async def scenario():
        trades, quotes = await trade_stream(server, revoked), await quote_stream(server, revoked)
        other = await trade_stream(server, kept)
        await asyncio.sleep(0.5)  # (the event stream is open)
        r = await asyncio.to_thread(session.delete, f"{server.url}/api/v1/accounts/{account}/keys/{revoked['key_id']}")
        assert r.status_code == 204, r.text
        said, code = await last_words(trades, json.loads, within=5)
        assert code == POLICY_VIOLATION
        assert said[-1]["stream"] == "authorization" and said[-1]["data"]["status"] == "unauthorized", said
        said, code = await last_words(quotes, msgpack.unpackb, within=5)
        assert code == POLICY_VIOLATION
        assert {"T": "error", "code": 402, "msg": "auth failed"} in said[-1], said

        # The other key's stream is open and still carries its account's orders.
        assert await still_open(other, 1)
        order = {"symbol": "AAPL", "qty": 1, "side": "buy", "type": "market", "time_in_force": "day"}
        headers = {"APCA-API-KEY-ID": kept["key_id"], "APCA-API-SECRET-KEY": kept["secret"]}
        r = await asyncio.to_thread(requests.post, f"{server.url}/v2/orders", json=order, headers=headers, timeout=30)
        assert r.status_code == 200, r.text
        while True:
            update = json.loads(await asyncio.wait_for(other.recv(), timeout=30))
            if update["stream"] == "trade_updates" and update["data"]["order"]["id"] == r.json()["id"]:
                break

        # Revoked by another process on the same database (a second node would): within the 5-second look-again.
        out = await asyncio.to_thread(
            subprocess.run, [BINARY, "admin", "revoke-key", kept["key_id"], "--data-dir", server.data_dir],
            capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        said, code = await last_words(other, json.loads, within=12)
        assert code == POLICY_VIOLATION and said[-1]["data"]["status"] == "unauthorized"

    asyncio.run(asyncio.wait_for(scenario(), 90))
    assert ended.wait(5), "the revoked key's event stream ended"
    assert "event: error" in lines, lines[-5:]


def test_a_logged_out_sessions_socket_ends_and_the_other_sessions_carries_on(server):
    leaving, _ = login(server)
    staying, _ = login(server)

    async def scenario():
        gone, kept = await app_socket(server, leaving), await app_socket(server, staying)
        r = await asyncio.to_thread(leaving.post, f"{server.url}/api/v1/auth/logout")
        assert r.status_code in (200, 204), r.text
        said, code = await last_words(gone, json.loads, within=5)
        assert code == POLICY_VIOLATION
        assert said[-1] == {"type": "error", "data": {"message": "not logged in", "reason": "signed_out"}}, said[-1:]
        assert await still_open(kept, 1.5)
        await kept.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
