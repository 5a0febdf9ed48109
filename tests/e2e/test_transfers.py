"""Money moved between a user's accounts through the native API, the CLI and a cluster: a US-dollar account and an
A-share account convert at USD.CNH's live bid or ask, both ledgers reconcile to the cent, refusals move nothing, and
a kill -9 of the destination's node between the debit and the credit delays the credit until the takeover — it
arrives once."""
import json
import os
import signal
import subprocess
import time
import uuid
from decimal import ROUND_DOWN, Decimal

import pytest
import requests

from conftest import BINARY
from test_cluster import Cluster


def signup(url):
    s = requests.Session()
    name = "x" + uuid.uuid4().hex[:10]
    r = s.post(f"{url}/api/v1/auth/signup", json={"username": name, "password": "correct horse"})
    assert r.status_code in (200, 201), r.text
    accounts = {a["market"]: a for a in s.get(f"{url}/api/v1/accounts").json()}
    return s, name, accounts


def cash(s, url, account_id):
    r = s.get(f"{url}/api/v1/accounts/{account_id}")
    assert r.status_code == 200, r.text
    return Decimal(r.json()["cash"])


def transfers_in_history(s, url, account_id):
    r = s.get(f"{url}/api/v1/accounts/{account_id}/transactions", params={"limit": 500})
    assert r.status_code == 200, r.text
    return [t for t in r.json() if t["kind"] == "transfer"]


def test_dollars_to_yuan_and_back_reconcile_to_the_cent_and_refusals_move_nothing(server):
    s, _, accounts = signup(server.url)
    usd, cny = accounts["us"]["id"], accounts["cn"]["id"]
    usd0, cny0 = cash(s, server.url, usd), cash(s, server.url, cny)

    body = {"from_account": usd, "to_account": cny, "amount": "30000.00", "currency": "USD"}
    q = s.post(f"{server.url}/api/v1/transfers/quote", json=body)
    assert q.status_code == 200, q.text
    quote = q.json()
    assert quote["pair"] == "USD.CNH" and quote["odd_lot"] is False and quote["fee"] == "0"
    assert Decimal(quote["to_amount"]) == (Decimal("30000") * Decimal(quote["pair_price"])).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN)
    # The spread: the rate taken is below the mid rate, and what it costs is shown in dollars.
    assert Decimal(quote["rate"]) < Decimal(quote["mid_rate"]) and Decimal(quote["spread_cost"]) > 0
    assert cash(s, server.url, usd) == usd0, "a quote moves nothing"

    r = s.post(f"{server.url}/api/v1/transfers", json=body)
    assert r.status_code == 201, r.text
    t = r.json()
    assert t["status"] == "completed" and t["from_currency"] == "USD" and t["to_currency"] == "CNY"
    got = Decimal(t["to_amount"])
    # The live rate may have moved since the quote: the transfer's own price is what both ledgers show.
    assert got == (Decimal("30000") * Decimal(t["pair_price"])).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    assert cash(s, server.url, usd) == usd0 - Decimal("30000")
    assert cash(s, server.url, cny) == cny0 + got
    [out] = transfers_in_history(s, server.url, usd)
    [into] = transfers_in_history(s, server.url, cny)
    assert Decimal(out["amount"]) == Decimal("-30000") and Decimal(into["amount"]) == got
    assert out["transfer_id"] == into["transfer_id"] == t["id"]
    assert out["counterparty_account"] == cny and into["counterparty_account"] == usd
    assert Decimal(out["counterparty_amount"]) == got and out["counterparty_currency"] == "CNY"

    # Back, naming what should arrive in dollars: the yuan debited are worked back at the ask, rounded up.
    back = s.post(f"{server.url}/api/v1/transfers", json={
        "from_account": cny, "to_account": usd, "amount": "1000.00", "currency": "USD"})
    assert back.status_code == 201, back.text
    b = back.json()
    assert Decimal(b["to_amount"]) == Decimal("1000.00") and b["odd_lot"] is True
    assert Decimal(b["from_amount"]) == (Decimal("1000") * Decimal(b["pair_price"])).quantize(Decimal("0.01"), rounding="ROUND_UP")
    assert cash(s, server.url, usd) == usd0 - Decimal("29000")
    assert cash(s, server.url, cny) == cny0 + got - Decimal(b["from_amount"])
    listed = s.get(f"{server.url}/api/v1/transfers").json()["transfers"]
    assert [x["id"] for x in listed] == [b["id"], t["id"]] and t["client_transfer_id"] is None
    assert s.get(f"{server.url}/api/v1/transfers/{t['id']}").json()["status"] == "completed"

    # A retry with the client's own id gets the same transfer back (200), never a second one.
    keyed = {**body, "amount": "100.00", "client_transfer_id": "lunch-money"}
    made = s.post(f"{server.url}/api/v1/transfers", json=keyed)
    assert made.status_code == 201, made.text
    again = s.post(f"{server.url}/api/v1/transfers", json=keyed)
    assert again.status_code == 200 and again.json()["id"] == made.json()["id"], again.text
    other_amount = s.post(f"{server.url}/api/v1/transfers", json={**keyed, "amount": "101.00"})
    assert other_amount.status_code == 409, other_amount.text
    assert cash(s, server.url, usd) == usd0 - Decimal("29100")

    # Refusals: nothing moves.
    other, _, theirs = signup(server.url)
    before = (cash(s, server.url, usd), cash(s, server.url, cny))
    for wrong, status in [
        ({**body, "to_account": usd}, 422),
        ({**body, "to_account": theirs["us"]["id"]}, 404),
        ({**body, "currency": "EUR"}, 422),
        ({**body, "amount": "10.001"}, 422),
        ({**body, "amount": "-5"}, 422),
        ({**body, "amount": "abc"}, 422),
        ({k: v for k, v in body.items() if k != "to_account"}, 422),
        ({**body, "to_account": "not-an-id"}, 422),
        ({**body, "amount": str(usd0 * 10)}, 403),
    ]:
        r = s.post(f"{server.url}/api/v1/transfers", json=wrong)
        assert r.status_code == status, (wrong, r.status_code, r.text)
        assert r.json().get("message"), r.text
    assert other.get(f"{server.url}/api/v1/transfers/{t['id']}").status_code == 404
    assert (cash(s, server.url, usd), cash(s, server.url, cny)) == before
    assert len(s.get(f"{server.url}/api/v1/transfers").json()["transfers"]) == 3
    # An account's API key moves no money: a login only.
    key = s.post(f"{server.url}/api/v1/accounts/{usd}/keys").json()
    r = requests.post(f"{server.url}/api/v1/transfers", json=body,
                      headers={"APCA-API-KEY-ID": key["key_id"], "APCA-API-SECRET-KEY": key["secret"]})
    assert r.status_code in (401, 403), r.text


def test_the_cli_shows_the_rate_then_moves_the_money(server):
    s, name, accounts = signup(server.url)
    usd, cny = accounts["us"]["id"], accounts["cn"]["id"]
    cny0 = cash(s, server.url, cny)
    env = dict(os.environ, PAPERTRADE_URL=server.url, PAPERTRADE_USERNAME=name, PAPERTRADE_PASSWORD="correct horse")
    run = lambda *a: subprocess.run([BINARY, "transfer", *a], env=env, capture_output=True, text=True, timeout=60)
    shown = run("500", "--from", "us", "--to", "cn", "--quote")
    assert shown.returncode == 0, shown.stderr
    assert "USD.CNH" in shown.stdout and "Spread cost" in shown.stdout and "odd-lot" in shown.stdout
    assert cash(s, server.url, cny) == cny0
    moved = run("500", "--from", "us", "--to", "cn", "--json")
    assert moved.returncode == 0, moved.stderr
    t = json.loads(moved.stdout)
    assert t["status"] == "completed" and t["from_amount"] == "500"
    assert cash(s, server.url, cny) == cny0 + Decimal(t["to_amount"])
    refused = run("500", "--from", "us", "--to", "us")
    assert refused.returncode == 1 and "different accounts" in refused.stderr


def served_here(node_url, session, account_id):
    r = session.get(f"{node_url}/api/v1/accounts/{account_id}")
    assert r.status_code == 200, r.text
    return "Papertrade-Forwarded-By" not in r.headers


def test_kill9_of_the_destinations_node_between_debit_and_credit_the_credit_arrives_once_after_the_takeover():
    cluster = Cluster(2)
    try:
        (a, a_node), (b, b_node) = list(cluster.nodes.items())
        # A user whose dollar account node a serves (signed up there: a node opens accounts on its own shards) and
        # whose second yuan account node b serves (opened there).
        s, _, accounts = signup(a_node["url"])
        usd = accounts["us"]["id"]
        assert served_here(a_node["url"], s, usd)
        r = s.post(f"{b_node['url']}/api/v1/accounts", json={"market": "cn", "name": "second"})
        assert r.status_code == 201, r.text
        cny = r.json()["id"]
        assert served_here(b_node["url"], s, cny) and not served_here(a_node["url"], s, cny)
        # Either node lists all three of the user's accounts (before, a listing that met an account another node
        # serves bounced between the nodes until it failed).
        for node in (a_node, b_node):
            listed = s.get(f"{node['url']}/api/v1/accounts")
            assert listed.status_code == 200, listed.text
            assert {x["id"] for x in listed.json()} == {usd, accounts["cn"]["id"], cny}
        cny0 = cash(s, a_node["url"], cny)
        os.kill(b_node["pid"], signal.SIGKILL)
        # Node a debits; the credit is node b's shard's, which nobody serves until a takes it over.
        r = s.post(f"{a_node['url']}/api/v1/transfers",
                   json={"from_account": usd, "to_account": cny, "amount": "40000.00"})
        assert r.status_code == 201, r.text
        t = r.json()
        assert t["status"] == "pending", t
        deadline = time.time() + 30
        status = t["status"]
        while time.time() < deadline and status != "completed":
            time.sleep(0.25)
            got = s.get(f"{a_node['url']}/api/v1/transfers/{t['id']}")
            status = got.json()["status"] if got.status_code == 200 else status
        assert status == "completed", cluster.logs()
        assert cash(s, a_node["url"], cny) == cny0 + Decimal(t["to_amount"])
        # Once: one credit in the yuan ledger, and it stays one across further settlement passes.
        time.sleep(1.5)
        credits = [x for x in transfers_in_history(s, a_node["url"], cny) if x["transfer_id"] == t["id"]]
        assert len(credits) == 1 and Decimal(credits[0]["amount"]) == Decimal(t["to_amount"])
        assert cash(s, a_node["url"], cny) == cny0 + Decimal(t["to_amount"])
    finally:
        cluster.stop()
