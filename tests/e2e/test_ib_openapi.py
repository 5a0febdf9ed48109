"""The fuzz wall on the Interactive Brokers Client Portal port: schemathesis (PyPI, pinned) generates requests for
every operation of the gateway's own OpenAPI document (/v1/api/openapi.json) — examples, boundary values,
schema-violating input, random fuzzing and stateful sequences — against a real `papertrade serve --ib-port`, logged
in as the demo user, over HTTPS with the certificate papertrade made. No 5xx (the document declares 503 only where
the market data feed can be unavailable), only documented statuses, 405 with Allow for undeclared methods; after
each seed the server must still run and its log must hold no runtime failure.

Logging the gateway out is left out of the generated requests: one would turn the rest of the run into 401s.
The account path parameter is the demo user's real US account, so the account and order operations reach the
brokerage instead of stopping at 404."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest
import requests

from conftest import runtime_failure
from test_ib_client_portal import start_gateway
from test_openapi import EXAMPLES, SEEDS

PHASES = ["examples,coverage,fuzzing,stateful"] + ["fuzzing,stateful"] * (len(SEEDS) - 1)


@pytest.fixture(scope="module")
def gateway():
    server = start_gateway()
    yield server
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


def url(gateway, path):
    return f"https://127.0.0.1:{gateway.ib_port}{path}"


def test_the_document_describes_every_route_the_gateway_answers(gateway):
    document = requests.get(url(gateway, "/v1/api/openapi.json"), verify=gateway.cacert, timeout=10).json()
    paths = document["paths"]
    for path in ["/v1/api/iserver/account/{acct}/orders", "/v1/api/iserver/reply/{id}",
                 "/v1/api/iserver/marketdata/snapshot", "/v1/api/portfolio/{acct}/positions/{page}",
                 "/v1/api/iserver/secdef/search", "/v1/api/pa/performance", "/sso/Login"]:
        assert path in paths, path
    assert "401" in paths["/v1/api/iserver/accounts"]["get"]["responses"]
    assert "503" in paths["/v1/api/iserver/marketdata/snapshot"]["get"]["responses"]
    # A documented path asked with a method it does not have: 405 naming the ones it has, in IB's error shape.
    answer = requests.delete(url(gateway, "/v1/api/iserver/accounts"), verify=gateway.cacert, timeout=10)
    assert answer.status_code == 405 and answer.headers["Allow"] == "GET"
    assert answer.json() == {"error": "method DELETE is not allowed here; use GET", "statusCode": 405}


def schemathesis(gateway, account, seed, phases):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as config:
        config.write(f"""
[parameters]
"path.acct" = "{account}"
""")
    st = os.path.join(os.path.dirname(sys.executable), "st")
    try:
        return subprocess.run(
            [st, "--config-file", config.name, "run", url(gateway, "/v1/api/openapi.json"),
             "--url", url(gateway, ""), "--tls-verify", gateway.cacert,
             "--exclude-path-regex", "logout",
             # One worker: hypothesis describing filters from two threads at once can hit CPython 3.11's
             # "AST constructor recursion depth mismatch" (a crash of the tool, not of papertrade).
             # A deadline only a hang reaches (see test_openapi.py).
             "--exclude-checks", "positive_data_acceptance", "--phases", phases, "--workers", "1",
             "--max-examples", str(EXAMPLES), "--seed", str(seed), "--request-timeout", "300"],
            capture_output=True, text=True, timeout=1800,
            cwd=tempfile.mkdtemp(prefix="papertrade-schemathesis-"))  # its cache stays out of the checkout
    finally:
        os.unlink(config.name)


@pytest.mark.parametrize("run_index", range(len(SEEDS)), ids=[str(seed) for seed in SEEDS])
def test_no_request_fails_or_stops_the_gateway(gateway, run_index):
    seed, phases = SEEDS[run_index], PHASES[run_index]
    accounts = requests.get(url(gateway, "/v1/api/portfolio/accounts"), verify=gateway.cacert, timeout=10).json()
    account = next(a["id"] for a in accounts if a["currency"] == "USD")
    run = schemathesis(gateway, account, seed, phases)
    summary = "\n".join(run.stdout.splitlines()[-25:])
    cases = re.search(r"(\d+) generated", summary)
    print(f"schemathesis on the IB port, seed {seed}: {cases.group(1) if cases else '?'} test cases, {EXAMPLES} "
          f"examples per operation, phases {phases}\n{summary}")
    failure = runtime_failure(gateway)
    assert failure is None, f"the server hit a runtime failure (seed {seed}):\n{failure}\n\n{run.stdout[-20000:]}"
    assert gateway.process.poll() is None, f"the server stopped (seed {seed}):\n{run.stdout[-20000:]}"
    assert run.returncode == 0, run.stdout[-20000:]
    assert " passed" in summary and "failures" not in summary
