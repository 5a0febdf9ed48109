"""The fuzz wall for what no OpenAPI document describes over HTTP: MCP's `POST /mcp` (JSON-RPC envelopes with ids,
methods and params of any shape, near-misses of real tool calls, raw text) and the IB gateway's login form. Every
request must be answered — a JSON-RPC result or error with a status MCP's transport uses, or a 4xx — in time, never a
500 or a dead server: afterwards the server is up and its log holds no runtime failure. hypothesis (pinned)
generates them from a fixed seed; PAPERTRADE_FUZZ_MCP_EXAMPLES sets how many (default 300)."""
import json
import os
import time

import pytest
import requests
from hypothesis import HealthCheck, given, seed, settings, strategies as st

from conftest import Server, free_port, runtime_failure

EXAMPLES = int(os.environ.get("PAPERTRADE_FUZZ_MCP_EXAMPLES", "300"))

scalars = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats(allow_nan=False)
           | st.text(max_size=30))
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=25)
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "resources/list", "prompts/list",
                           "notifications/initialized", "", "nope"]) | st.text(max_size=20)
tool_names = st.sampled_from(["get_account_info", "get_clock", "place_stock_order", "get_orders", "search_symbols",
                              "get_stock_latest_quote", "nope"])
calls = st.fixed_dictionaries({"name": tool_names}, optional={"arguments": documents})
envelopes = st.fixed_dictionaries({"jsonrpc": st.sampled_from(["2.0", "1.0", ""]) | documents}, optional={
    "id": documents, "method": methods, "params": calls | documents, "result": documents, "error": documents})
bodies = (
    envelopes.map(json.dumps)
    | st.lists(envelopes, max_size=3).map(json.dumps)
    | documents.map(json.dumps)
    | st.text(max_size=200)
    # ids and strings written by hand: duplicate keys, huge numbers, lone surrogates.
    | st.sampled_from(['{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', '{"jsonrpc":"2.0","id":1e999,"method":"ping"}',
                       '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', '{"jsonrpc":"2.0","id":-0,"method":"ping"}'])
)
MCP_STATUSES = {200, 202, 400, 404, 405, 406, 413, 415}


@pytest.fixture(scope="module")
def gateway():
    ib_port = free_port()
    server = Server(env={"PAPERTRADE_IB_PORT": str(ib_port), "PAPERTRADE_IB_USER": "demo"}).start()
    server.ib_port = ib_port
    server.cacert = os.path.join(server.data_dir, "ib-gateway.crt")
    yield server
    server.stop()


def test_no_mcp_request_goes_unanswered_or_stops_the_server(gateway):
    server = gateway
    headers = {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret,
               "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    slowest = [0.0]

    @seed(20261203)
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(body=bodies, path=st.sampled_from(["/mcp", "/mcp/read-only"]))
    def one(body, path):
        started = time.time()
        answer = requests.post(server.url + path, data=body.encode("utf-8", "surrogatepass"), headers=headers,
                               timeout=120)
        slowest[0] = max(slowest[0], time.time() - started)
        assert answer.status_code in MCP_STATUSES, (body, answer.status_code, answer.text[:300])
        if answer.status_code in (200, 400) and answer.text:
            reply = json.loads(answer.text.split("data: ", 1)[-1]) if answer.text.startswith("event") else answer.json()
            for message in reply if isinstance(reply, list) else [reply]:
                assert message.get("jsonrpc") == "2.0" and ("result" in message or "error" in message), message

    one()
    print(f"\n{EXAMPLES} MCP requests, slowest answer {slowest[0]:.2f} s")
    assert runtime_failure(server) is None, runtime_failure(server)
    assert requests.get(server.url + "/healthz", timeout=30).status_code == 200


def test_no_login_form_stops_the_ib_gateway(gateway):
    server = gateway
    base = f"https://127.0.0.1:{server.ib_port}"
    forms = (st.dictionaries(st.sampled_from(["username", "password", "user", ""]) | st.text(max_size=10),
                             st.text(max_size=60), max_size=4).map(lambda d: ("form", d))
             | documents.map(lambda d: ("json", d))
             | st.binary(max_size=400).map(lambda b: ("raw", b)))

    @seed(20261203)
    @settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(form=forms)
    def one(form):
        kind, value = form
        if kind == "form":
            answer = requests.post(base + "/sso/Login", data=value, verify=server.cacert, timeout=60,
                                   allow_redirects=False)
        elif kind == "json":
            answer = requests.post(base + "/sso/Login", data=json.dumps(value), verify=server.cacert, timeout=60,
                                   allow_redirects=False, headers={"Content-Type": "application/json"})
        else:
            answer = requests.post(base + "/sso/Login", data=value, verify=server.cacert, timeout=60,
                                   allow_redirects=False, headers={"Content-Type": "application/octet-stream"})
        # 429: the gateway slows down a stream of failed log-ins (a guess at passwords).
        assert answer.status_code in (200, 302, 303, 400, 401, 413, 415, 429), (form, answer.status_code, answer.text[:200])

    one()
    assert runtime_failure(server) is None, runtime_failure(server)
