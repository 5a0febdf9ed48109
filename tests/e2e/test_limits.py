"""Limits no client can break (issue 55), each driven at the limit and one past it against a real server: bodies
answered 413 on every route (MCP and the IB login too), every JSON-RPC request answered (an id that is not a string
or an integer in range gets -32600, over HTTP and stdio), malformed and oversized request heads answered 400/431
and their connections closed, slow and idle connections closed while a normal client is served, WebSocket messages
up to 64 KiB and Alpaca's symbol limit (405) on the market-data stream, and one watchlist size on both APIs."""
import json
import os
import select
import socket
import ssl
import subprocess
import threading
import time
import uuid

import msgpack
import pytest
import requests
import websocket

from conftest import BINARY, Server, free_port

HEAD_TIMEOUT = 30  # ConnectionLimits.headTimeout


@pytest.fixture(scope="module")
def ib_server():
    ib_port = free_port()
    server = Server(env={"PAPERTRADE_IB_PORT": str(ib_port), "PAPERTRADE_IB_USER": "demo"}).start()
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", ib_port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.05)
    server.ib_port = ib_port
    server.cacert = os.path.join(server.data_dir, "ib-gateway.crt")
    yield server
    server.stop()


def listed_symbols():
    """Nasdaq's listed symbols of letters only (../shared/data), in the file's order."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "nasdaq-listed-symbols.csv")
    with open(path) as f:
        return [s for s in (line.split(",")[0] for line in f.readlines()[1:]) if s.isalpha()]


def key_headers(server):
    return {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}


def mcp(server, body, path="/mcp", timeout=30):
    headers = {**key_headers(server), "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return requests.post(server.url + path, data=data, headers=headers, timeout=timeout)


def raw(port, payload, wait=10):
    """Sends `payload` on a fresh connection; returns (what came back, whether the server closed it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(payload)
        received = b""
        deadline = time.time() + wait
        while time.time() < deadline:
            ready, _, _ = select.select([s], [], [], max(0.0, deadline - time.time()))
            if not ready:
                break
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return received, True
            if not chunk:
                return received, True
            received += chunk
        return received, False


# -- bodies ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/mcp", "/mcp/read-only"])
def test_an_mcp_body_at_the_limit_is_read_and_one_byte_past_it_is_413(server, path):
    limit = 64 * 1024
    request = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
    padded = json.dumps(request)[:-1] + ', "pad": "' + "x" * 10 + '"}'
    filler = limit - len(padded.encode())
    at_limit = padded.replace("x" * 10, "x" * (10 + filler))
    assert len(at_limit.encode()) == limit
    answer = mcp(server, at_limit, path)
    assert answer.status_code != 413 and answer.status_code < 500, answer.text
    past = mcp(server, at_limit.replace("xx", "xxx", 1), path)
    assert past.status_code == 413, past.text
    assert past.json()["error"]["code"] == -32600 and "larger than" in past.json()["error"]["message"]


def test_the_ib_login_past_its_limit_is_413_in_ibs_shape(ib_server):
    base = f"https://127.0.0.1:{ib_server.ib_port}"
    small = requests.post(base + "/sso/Login", data={"username": "demo", "password": "x" * 100},
                          verify=ib_server.cacert, timeout=30)
    assert small.status_code == 401  # read, and refused as a wrong password
    big = requests.post(base + "/sso/Login", data={"username": "demo", "password": "x" * 20_000},
                        verify=ib_server.cacert, timeout=30)
    assert big.status_code == 413 and "larger than" in big.json()["error"]


# -- JSON-RPC ----------------------------------------------------------------------------------------------------

INVALID_IDS = ["true", "false", "-9223372036854775809", "9223372036854775808", "18446744073709551616", "1e308",
               "1.5", '{"a": 1}', "[1]", "null"]


@pytest.mark.parametrize("id_text", INVALID_IDS)
def test_an_mcp_request_with_an_id_json_rpc_does_not_allow_is_answered_invalid_request(server, id_text):
    body = '{"jsonrpc": "2.0", "id": ' + id_text + ', "method": "tools/list", "params": {}}'
    started = time.time()
    answer = mcp(server, body)
    assert answer.status_code == 400, answer.text
    assert answer.json() == {"jsonrpc": "2.0", "id": None,
                             "error": {"code": -32600, "message": answer.json()["error"]["message"]}}
    assert time.time() - started < 25  # answered, not waited out


@pytest.mark.parametrize("body, code", [
    ('{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "tools/list"}', -32600),
    ('{"jsonrpc": "2.0", "id": "\\ud800", "method": "tools/list"}', -32700),
    ('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', -32700),
    ('[]', -32600),
    ('"hello"', -32600),
    ('[' * 300 + ']' * 300, -32700),
], ids=["duplicate-id", "lone-surrogate", "truncated", "empty-batch", "a-string", "too-deep"])
def test_malformed_json_rpc_gets_an_error_with_a_null_id(server, body, code):
    answer = mcp(server, body)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code, answer.text
    assert answer.json()["id"] is None


def test_tool_arguments_that_are_not_an_object_are_invalid_params_for_that_request(server):
    answer = mcp(server, {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": "get_account_info", "arguments": [1, 2]}})
    assert answer.status_code == 200 and answer.json()["id"] == 7
    assert answer.json()["error"]["code"] == -32602


def test_every_stdio_line_that_is_a_request_gets_an_answer(server):
    lines = [
        '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
        '"capabilities": {}, "clientInfo": {"name": "limits", "version": "1"}}}',
        '{"jsonrpc": "2.0", "id": 1e308, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 18446744073709551616, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": "\\udc00", "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "get_clock", "arguments": []}}',
        '{"jsonrpc": "2.0", "id": 6, "method": "ping"}',
    ]
    env = {**os.environ, "PAPERTRADE_URL": server.url, "APCA_API_KEY_ID": server.key_id,
           "APCA_API_SECRET_KEY": server.secret}
    process = subprocess.Popen([BINARY, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdin.write("\n".join(lines) + "\n")
        process.stdin.flush()
        answers = []
        reader = threading.Thread(
            target=lambda: answers.extend(json.loads(l) for l in iter(process.stdout.readline, "") if l.strip()),
            daemon=True)
        reader.start()
        deadline = time.time() + 60
        while len(answers) < len(lines) and time.time() < deadline:
            time.sleep(0.05)
    finally:
        process.kill()
        process.wait()
    assert len(answers) == len(lines), answers
    by_id = {json.dumps(a.get("id")): a for a in answers}
    assert [a["error"]["code"] for a in answers if a.get("id") is None] == [-32600, -32600, -32600, -32700]
    assert by_id["5"]["error"]["code"] == -32602
    assert by_id["6"]["result"] == {}


# -- request heads and slow clients ------------------------------------------------------------------------------

@pytest.mark.parametrize("payload, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /healthz\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /healthz\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400),
    (b"BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n", 431),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(200)) + b"\r\n", 431),
], ids=["garbage", "nul-in-url", "del-in-url", "nul-in-header", "unknown-method", "100kb-header", "200-headers"])
def test_a_request_the_parser_refuses_is_answered_and_its_connection_closed(server, payload, status):
    received, closed = raw(server.port, payload)
    assert received.startswith(b"HTTP/1.1 %d " % status), received[:200]
    assert closed, "the connection was left open"


def test_slow_and_idle_clients_are_closed_while_a_normal_client_is_served(server):
    """500 connections that trickle their request heads (and 50 that send nothing) do not keep a normal client
    waiting, and each is closed once its head has not arrived within the limit."""
    slow = []
    for n in range(550):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        if n < 500:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        slow.append(s)
    opened = time.time()
    try:
        for _ in range(5):
            started = time.time()
            assert requests.get(server.url + "/healthz", timeout=30).status_code == 200
            print(f"\n/healthz beside 550 held connections: {(time.time() - started) * 1000:.1f} ms")
            for s in slow[:500]:
                s.sendall(b"X: 1\r\n")  # a header line every so often: still no whole head
            time.sleep(1)
        closed = set()
        deadline = opened + HEAD_TIMEOUT + 60
        while len(closed) < len(slow) and time.time() < deadline:
            ready, _, _ = select.select([s for s in slow if s not in closed], [], [], 1)
            for s in ready:
                try:
                    if not s.recv(4096):
                        closed.add(s)
                except OSError:
                    closed.add(s)
        print(f"closed {len(closed)} of {len(slow)} after {time.time() - opened:.1f} s")
        assert len(closed) == len(slow)
        assert time.time() - opened >= HEAD_TIMEOUT - 1, "closed before their time"
        assert requests.get(server.url + "/healthz", timeout=30).status_code == 200
    finally:
        for s in slow:
            s.close()


def test_an_address_holds_its_connection_limit_and_the_next_is_answered_503_while_another_address_is_served():
    server = Server(env={"PAPERTRADE_CONNECTIONS_PER_ADDRESS": "20"}).start()
    held = []
    try:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"200 OK" in s.recv(4096)  # answered: counted in, and kept open (keep-alive)
            held.append(s)
        extra = socket.create_connection(("127.0.0.1", server.port))
        extra.settimeout(30)
        answer = b""
        while chunk := extra.recv(4096):  # answered and closed before it sends a byte
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 503"), answer
        assert b"at most 20 at once" in answer and b"Retry-After: 1" in answer, answer
        # Another address (all of 127.0.0.0/8 is this machine) is served meanwhile.
        other = socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.2", 0))
        other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert b"200 OK" in other.recv(4096)
        other.close()
        # A connection that closes frees its place.
        held.pop().close()
        deadline = time.time() + 60
        while True:
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(30)
            if b"200 OK" in s.recv(4096):
                held.append(s)
                break
            s.close()
            assert time.time() < deadline, "the closed connection was never counted out"
            time.sleep(0.2)
    finally:
        for s in held:
            s.close()
        server.stop()


# -- WebSockets --------------------------------------------------------------------------------------------------

def stream(server):
    ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/v2/iex", timeout=30)
    assert msgpack.unpackb(ws.recv())[0]["msg"] == "connected"
    ws.send_binary(msgpack.packb({"action": "auth", "key": server.key_id, "secret": server.secret}))
    assert msgpack.unpackb(ws.recv())[0]["msg"] == "authenticated"
    return ws


def test_a_subscription_up_to_the_symbol_limit_is_taken_and_past_it_refused_with_405(server):
    symbols = listed_symbols()[:1_500]
    ws = stream(server)
    try:
        # 1,000 symbols in one message of ~6 KB JSON; then 500 more in a message over 16 KiB (the old frame limit).
        ws.send(json.dumps({"action": "subscribe", "quotes": symbols[:1_000]}))
        first = msgpack.unpackb(ws.recv())
        while first[0]["T"] != "subscription":
            first = msgpack.unpackb(ws.recv())
        assert len(first[0]["quotes"]) == 1_000
        big = json.dumps({"action": "subscribe", "quotes": symbols[1_000:], "trades": symbols[:1_000] * 3})
        assert len(big) > 16 * 1024
        ws.send(big)
        refused = msgpack.unpackb(ws.recv())
        while refused[0]["T"] not in ("error", "subscription"):
            refused = msgpack.unpackb(ws.recv())
        assert refused[0] == {"T": "error", "code": 405, "msg": "symbol limit exceeded"}
        ws.send(json.dumps({"action": "unsubscribe", "quotes": symbols[:10]}))
        after = msgpack.unpackb(ws.recv())
        while after[0]["T"] != "subscription":
            after = msgpack.unpackb(ws.recv())
        assert len(after[0]["quotes"]) == 990, "the refused subscribe changed nothing"
    finally:
        ws.close()


def subscribed(ws, symbols):
    """Subscribes to the symbols' quotes; the server's answer (the subscription, or an error)."""
    ws.send(json.dumps({"action": "subscribe", "quotes": symbols}))
    answer = msgpack.unpackb(ws.recv())
    while answer[0]["T"] not in ("error", "subscription"):
        answer = msgpack.unpackb(ws.recv())
    return answer[0]


def test_the_symbol_limit_counts_every_connection_of_a_key_and_frees_when_one_leaves(server):
    symbols = listed_symbols()[:1_200]
    first, second = stream(server), stream(server)
    try:
        assert len(subscribed(first, symbols[:600])["quotes"]) == 600
        # Symbols the key follows already cost nothing more on its other connection.
        assert len(subscribed(second, symbols[200:600])["quotes"]) == 400
        assert len(subscribed(second, symbols[600:1_000])["quotes"]) == 800
        assert subscribed(second, symbols[1_000:1_001]) == {"T": "error", "code": 405, "msg": "symbol limit exceeded"}
        first.close()
        deadline = time.time() + 60  # once the server has seen the first connection go, its symbols are free
        while (answer := subscribed(second, symbols[1_000:1_100]))["T"] == "error":
            assert time.time() < deadline, "the closed connection's symbols were never counted out"
            time.sleep(0.2)
        assert len(answer["quotes"]) == 900
    finally:
        first.close()
        second.close()


def test_a_key_holds_five_market_data_connections_and_a_sixth_is_refused_with_406(server):
    held = [stream(server) for _ in range(5)]
    try:
        ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/v2/iex", timeout=30)
        ws.recv()
        ws.send_binary(msgpack.packb({"action": "auth", "key": server.key_id, "secret": server.secret}))
        assert msgpack.unpackb(ws.recv()) == [{"T": "error", "code": 406, "msg": "connection limit exceeded"}]
        ws.close()
        held.pop().close()
        deadline = time.time() + 60  # the server sees the close in a moment: then the key may connect again
        while True:
            try:
                held.append(stream(server))
                break
            except AssertionError:
                assert time.time() < deadline, "the closed connection was never counted out"
                time.sleep(0.2)
    finally:
        for ws in held:
            ws.close()


def test_a_websocket_message_past_64_kib_closes_with_1009(server):
    ws = stream(server)
    try:
        message = json.dumps({"action": "subscribe", "quotes": ["A" * 10] * 7_000})
        assert len(message) > 64 * 1024
        ws.send(message)
        codes = []
        for _ in range(10):
            frame = ws.recv_frame()  # frames as they come: no close answered for us
            if frame.opcode == websocket.ABNF.OPCODE_CLOSE:
                codes.append(int.from_bytes(frame.data[:2], "big"))
                break
        assert codes == [1009]
    finally:
        ws.close()


# -- watchlists --------------------------------------------------------------------------------------------------

def test_a_watchlist_holds_200_symbols_on_both_apis(server):
    known = []
    for s in listed_symbols():
        if len(known) == 201:
            break
        if s.isalpha() and requests.get(f"{server.url}/v2/assets/{s}", headers=key_headers(server),
                                        timeout=30).status_code == 200:
            known.append(s)
    alpaca = requests.post(server.url + "/v2/watchlists", headers=key_headers(server), timeout=30,
                           json={"name": "w" + uuid.uuid4().hex[:6], "symbols": known[:200]})
    assert alpaca.status_code == 200, alpaca.text
    past = requests.post(server.url + "/v2/watchlists", headers=key_headers(server), timeout=30,
                         json={"name": "w" + uuid.uuid4().hex[:6], "symbols": known})
    assert past.status_code == 422 and "at most 200" in past.json()["message"]
    listed = alpaca.json()
    added = requests.post(f"{server.url}/v2/watchlists/{listed['id']}", headers=key_headers(server), timeout=30,
                          json={"symbol": known[200]})
    assert added.status_code == 422 and "at most 200" in added.json()["message"]
