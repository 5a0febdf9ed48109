"""The fuzz wall for the WebSockets, which no OpenAPI document describes: after a valid authentication, each socket
(Alpaca's trade_updates, stock, option and crypto market data, the web app's) gets random messages — JSON documents of any shape,
near-misses of the real ones (huge and odd symbol lists, wrong types, deep nesting), MessagePack of any shape, and
raw bytes as text and binary frames. Every message must get an answer or a close, never a dead server: afterwards the
server is up and its log holds no runtime failure. hypothesis (pinned) generates them from a fixed seed per socket;
PAPERTRADE_FUZZ_SOCKET_EXAMPLES sets how many (default 150 a socket)."""
import json
import os

import msgpack
import pytest
import requests
import websocket
from hypothesis import HealthCheck, given, seed, settings, strategies as st

from conftest import runtime_failure

EXAMPLES = int(os.environ.get("PAPERTRADE_FUZZ_SOCKET_EXAMPLES", "150"))

scalars = (st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1) | st.floats(allow_nan=True)
           | st.text(max_size=40))
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=30)
symbol_lists = st.lists(st.text(max_size=12) | st.integers(min_value=-2**63, max_value=2**63 - 1) | st.none(), max_size=400) | st.just(["*"])
near_misses = st.fixed_dictionaries({
    "action": st.sampled_from(["subscribe", "unsubscribe", "listen", "auth", "authenticate", "", "SUBSCRIBE"]),
    "type": st.sampled_from(["subscribe", "unsubscribe", "nope"]),
}, optional={
    "trades": symbol_lists, "quotes": symbol_lists, "bars": symbol_lists, "symbols": symbol_lists,
    "data": st.fixed_dictionaries({}, optional={"streams": symbol_lists}) | documents,
})
messages = (
    documents.map(lambda d: ("text", json.dumps(d)))
    | near_misses.map(lambda d: ("text", json.dumps(d)))
    | near_misses.map(lambda d: ("binary", msgpack.packb(d, use_bin_type=True)))
    | documents.map(lambda d: ("binary", msgpack.packb(d, use_bin_type=True)))
    | st.binary(max_size=300).map(lambda b: ("binary", b))
    | st.text(max_size=300).map(lambda t: ("text", t))
    # JSON strings with escapes of every kind, lone surrogates among them (one once trapped the parser).
    | st.lists(st.sampled_from(["\\ud800", "\\udc00", "\\u0000", "\\n", "\\\"", "a", "\\ud83d\\ude00", "\\u12"]),
               max_size=12).map(lambda parts: ("text", '{"action":"' + "".join(parts) + '"}'))
)


def connect(server, path, auth, session=None):
    headers = [f"Cookie: papertrade_session={session}"] if session else []
    if path.startswith("/v1beta1/"):
        headers.append("Content-Type: application/msgpack")  # the option stream speaks MessagePack only
    ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}{path}", timeout=5, header=headers)
    if auth is not None:
        ws.send(json.dumps(auth))
    return ws


def drain(ws):
    """Reads what the server answers within a moment; False once it closed the socket."""
    ws.settimeout(0.05)
    try:
        while True:
            frame = ws.recv()
            if frame in ("", b""):
                return False
    except websocket.WebSocketTimeoutException:
        return True
    except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
        return False


def fuzz_socket(server, path, auth, socket_seed, session=None):
    state = {"ws": None, "sent": 0}

    @seed(socket_seed)
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(messages)
    def one(message):
        if state["ws"] is None:
            state["ws"] = connect(server, path, auth, session)
            drain(state["ws"])
        kind, payload = message
        try:
            if kind == "text":
                state["ws"].send(payload)
            else:
                state["ws"].send_binary(payload)
            state["sent"] += 1
            alive = drain(state["ws"])
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
            alive = False
        if not alive:
            state["ws"] = None
        assert server.process.poll() is None, f"the server stopped after {kind} message {payload!r:.300}"

    one()
    if state["ws"] is not None:
        state["ws"].close()
    return state["sent"]


@pytest.mark.parametrize("path,socket_seed", [("/stream", 32), ("/v2/iex", 33), ("/api/v1/ws", 34),
                                              ("/v1beta1/indicative", 35), ("/v1beta3/crypto/us", 36)])
def test_no_socket_message_stops_the_server(server, path, socket_seed):
    session = None
    if path == "/stream":
        auth = {"action": "authenticate", "data": {"key_id": server.key_id, "secret_key": server.secret}}
    elif path in ("/v2/iex", "/v1beta1/indicative", "/v1beta3/crypto/us"):
        auth = {"action": "auth", "key": server.key_id, "secret": server.secret}
    else:
        auth = None
        login = requests.post(f"{server.url}/api/v1/auth/login",
                              json={"username": "demo", "password": server.password})
        session = login.cookies["papertrade_session"]
    sent = fuzz_socket(server, path, auth, socket_seed, session)
    print(f"{path}: {sent} messages (seed {socket_seed})")
    assert sent >= EXAMPLES // 2
    failure = runtime_failure(server)
    assert failure is None, f"runtime failure after fuzzing {path}:\n{failure}"
    assert requests.get(f"{server.url}/healthz", timeout=5).status_code == 200
