"""/openapi.json is true: schemathesis (PyPI, pinned) generates requests for every operation of the Alpaca-compatible
and the native API from the document alone — examples, boundary values, schema-violating input and random fuzzing —
and checks each answer against it: no 5xx, only documented statuses and content types, undeclared methods answered
405 with Allow, bad input refused, credentials required where declared.

One check is left out: `positive_data_acceptance` (a schema-valid request must succeed). A request can be valid for
the schema and still rightly refused — an unknown symbol, a date the calendar does not have, an order beyond buying
power — and no schema can say which."""
import os
import subprocess
import sys
import tempfile

import requests


def test_schemathesis_finds_the_document_true(server):
    login = requests.post(f"{server.url}/api/v1/auth/login", json={"username": "demo", "password": server.password})
    assert login.status_code == 200
    session = login.cookies["papertrade_session"]
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as config:
        config.write(f"""
[auth.openapi.alpacaKeyID]
api_key = "{server.key_id}"
[auth.openapi.alpacaSecretKey]
api_key = "{server.secret}"
[auth.openapi.session]
api_key = "{session}"
""")
    st = os.path.join(os.path.dirname(sys.executable), "st")
    run = subprocess.run(
        [st, "--config-file", config.name, "run", f"{server.url}/openapi.json",
         "--exclude-checks", "positive_data_acceptance", "--phases", "examples,coverage,fuzzing",
         "--max-examples", "20", "--seed", "20261124", "--request-timeout", "30"],
        capture_output=True, text=True, timeout=900,
        cwd=tempfile.mkdtemp(prefix="papertrade-schemathesis-"))  # its cache stays out of the checkout
    os.unlink(config.name)
    summary = "\n".join(run.stdout.splitlines()[-25:])
    print(summary)
    assert run.returncode == 0, run.stdout[-20000:]
    assert " passed" in summary and "failures" not in summary
    assert server.process.poll() is None, "the server is still up"
