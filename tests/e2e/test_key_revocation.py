"""Revoking API keys, with the real alpaca-py driving the real server: a key revoked by the operator from another
process (`papertrade admin revoke-key`, as a second node of a cluster would) is refused by the running server within
its cache's 5-second look-again; one revoked through the server's own API is refused at once; the account's other key
keeps trading."""

import json
import subprocess
import time

import pytest
import requests
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.requests import MarketOrderRequest

from conftest import BINARY


def refused(client):
    try:
        client.get_account()
        return False
    except APIError as error:
        assert error.status_code == 401, error
        return True


def test_a_revoked_key_is_refused_and_the_other_keeps_trading(server):
    session = requests.Session()
    r = session.post(f"{server.url}/api/v1/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    account = TradingClient(server.key_id, server.secret, paper=True, url_override=server.url).get_account()
    made = []
    for _ in range(2):
        r = session.post(f"{server.url}/api/v1/accounts/{account.id}/keys")
        assert r.status_code == 201, r.text
        made.append(r.json())
    first, second = (TradingClient(k["key_id"], k["secret"], paper=True, url_override=server.url) for k in made)
    assert str(first.get_account().id) == str(account.id)  # now in the server's cache of verified keys
    assert str(second.get_account().id) == str(account.id)
    listed = session.get(f"{server.url}/api/v1/accounts/{account.id}/keys").json()
    assert {k["key_id"] for k in made} <= {k["key_id"] for k in listed}
    assert all("secret" not in k for k in listed)

    # The operator revokes the first from another process, on the same database.
    out = subprocess.run([BINARY, "admin", "revoke-key", made[0]["key_id"], "--data-dir", server.data_dir],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["key_id"] == made[0]["key_id"]
    revoked_at = time.monotonic()
    while not refused(first):
        assert time.monotonic() - revoked_at < 6.5, "a key revoked elsewhere is refused within 5 s"
        time.sleep(0.25)
    again = subprocess.run([BINARY, "admin", "revoke-key", made[0]["key_id"], "--data-dir", server.data_dir],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "no API key" in again.stderr + again.stdout

    # The second, revoked through the server's API, is refused at once; the demo key still trades.
    order = second.submit_order(MarketOrderRequest(symbol="AAPL", qty=1, side="buy", time_in_force="day"))
    assert order.symbol == "AAPL"
    r = session.delete(f"{server.url}/api/v1/accounts/{account.id}/keys/{made[1]['key_id']}")
    assert r.status_code == 204, r.text
    assert refused(second)
    demo = TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)
    assert demo.submit_order(MarketOrderRequest(symbol="AAPL", qty=1, side="buy", time_in_force="day")).symbol == "AAPL"
