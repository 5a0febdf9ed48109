"""Trading from the terminal: `papertrade quote|buy|sell|positions|orders|cancel|account|history|watch` (built on
PapertradeKit) against a real `papertrade serve`, with the demo account's API key or a user's login; human tables by
default, the server's JSON with --json, refusals on standard error with a non-zero exit."""
import json
import os
import pty
import signal
import subprocess
import threading
import time
import uuid
from decimal import ROUND_HALF_EVEN, Decimal

import requests

from conftest import BINARY


def cli(server, *args, login=None, timeout=60):
    env = dict(os.environ, PAPERTRADE_URL=server.url)
    if login:
        env.update(PAPERTRADE_USERNAME=login, PAPERTRADE_PASSWORD="correct horse")
        args = (*args, "--username", login)
    else:
        env.update(APCA_API_KEY_ID=server.key_id, APCA_API_SECRET_KEY=server.secret)
    return subprocess.run([BINARY, *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_a_limit_order_is_placed_listed_and_canceled(server):
    placed = cli(server, "buy", "MSFT", "3", "--limit", "1.5", "--tif", "gtc")
    assert placed.returncode == 0, placed.stderr
    order_id = placed.stdout.split()[1].rstrip(":")
    assert "buy 3 MSFT limit 1.5 (gtc): new" in placed.stdout
    assert "\x1b[" not in placed.stdout  # no colour in a pipe

    listed = cli(server, "orders")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.strip().splitlines()
    assert header.split()[:4] == ["ID", "CREATED", "SYMBOL", "SIDE"]
    row = next(r for r in rows if r.startswith(order_id))
    assert row.split()[3:9] == ["MSFT", "buy", "3", "limit", "1.5", "gtc"] and "new" in row

    as_json = json.loads(cli(server, "orders", "--json").stdout)
    mine = next(o for o in as_json if o["id"] == order_id)
    assert mine["limit_price"] == "1.5" and mine["qty"] == "3" and mine["status"] == "new"
    assert mine["time_in_force"] == "gtc" and mine["type"] == "limit"

    canceled = cli(server, "cancel", order_id, "--json")
    assert canceled.returncode == 0, canceled.stderr
    assert json.loads(canceled.stdout)[0]["status"] == "canceled"
    assert order_id not in cli(server, "orders").stdout
    closed = json.loads(cli(server, "orders", "--status", "closed", "--json").stdout)
    assert any(o["id"] == order_id and o["status"] == "canceled" for o in closed)

    again = cli(server, "cancel", order_id)
    assert again.returncode == 1 and again.stderr.startswith("papertrade: ") and again.stdout == ""


def test_a_market_buy_shows_in_positions_and_the_account(server):
    before = json.loads(cli(server, "account", "--json").stdout)
    quote = json.loads(cli(server, "quote", "NVDA", "--json").stdout)[0]
    assert quote["symbol"] == "NVDA" and len(quote["asks"]) == 5

    bought = cli(server, "buy", "NVDA", "2", "--json")
    assert bought.returncode == 0, bought.stderr
    order = json.loads(bought.stdout)
    assert order["status"] == "filled" and order["filled_qty"] == "2"

    positions = json.loads(cli(server, "positions", "--json").stdout)
    nvda = next(p for p in positions if p["symbol"] == "NVDA")
    assert float(nvda["qty"]) >= 2
    table = cli(server, "positions").stdout.splitlines()
    assert table[0].split()[:3] == ["SYMBOL", "QTY", "AVG"] and any(r.startswith("NVDA") for r in table[1:])

    after = json.loads(cli(server, "account", "--json").stdout)
    cost = Decimal(order["filled_qty"]) * Decimal(order["filled_avg_price"]) + Decimal(order["fees"])
    assert Decimal(after["cash"]) == Decimal(before["cash"]) - cost
    human = cli(server, "account").stdout
    assert f"Cash          {after['cash']}" in human and "Equity" in human

    quotes = cli(server, "quote", "NVDA", "AAPL").stdout.splitlines()
    assert quotes[0].split()[:3] == ["SYMBOL", "NAME", "LAST"] and [q.split()[0] for q in quotes[1:]] == ["NVDA", "AAPL"]

    sold = cli(server, "sell", "NVDA", "2")
    assert sold.returncode == 0 and "sell 2 NVDA market (day): filled" in sold.stdout


def test_refusals_print_the_servers_message_and_exit_non_zero(server):
    broke = cli(server, "buy", "AAPL", "100000000")
    assert broke.returncode == 1
    assert broke.stderr.startswith("papertrade: insufficient buying power") and "(403)" in broke.stderr
    unknown = cli(server, "quote", "NOSUCH")
    assert unknown.returncode == 1 and "unknown symbol NOSUCH (404)" in unknown.stderr
    bad_flag = cli(server, "buy", "AAPL", "ten")
    assert bad_flag.returncode != 0 and "positive number" in bad_flag.stderr
    both = cli(server, "sell", "AAPL", "1", "--trail", "5%", "--limit", "3")
    assert both.returncode != 0 and "--trail" in both.stderr
    wrong_key = subprocess.run(
        [BINARY, "account"], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PAPERTRADE_URL=server.url, APCA_API_KEY_ID=server.key_id, APCA_API_SECRET_KEY="nope"))
    assert wrong_key.returncode == 1 and "request is not authorized (401)" in wrong_key.stderr
    unreachable = subprocess.run(
        [BINARY, "account"], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PAPERTRADE_URL="http://127.0.0.1:9", APCA_API_KEY_ID="k", APCA_API_SECRET_KEY="s"))
    assert unreachable.returncode == 2 and unreachable.stderr.startswith("papertrade: ")


def test_trailing_stops_stops_and_orders_by_amount(server):
    cli(server, "buy", "AAPL", "2")
    trail = json.loads(cli(server, "sell", "AAPL", "1", "--trail", "5%", "--tif", "gtc", "--json").stdout)
    assert trail["type"] == "trailing_stop" and trail["trail_percent"] == "5" and trail["status"] == "new"
    stop = json.loads(cli(server, "sell", "AAPL", "1", "--stop", "1", "--json").stdout)
    assert stop["type"] == "stop" and stop["stop_price"] == "1"
    by_value = json.loads(cli(server, "buy", "AAPL", "$250", "--json").stdout)
    assert by_value["notional"] == "250" and by_value["status"] == "filled"
    everything = cli(server, "cancel", "--all", "--json")
    assert {o["id"] for o in json.loads(everything.stdout)} >= {trail["id"], stop["id"]}
    assert cli(server, "orders").stdout.strip() == "No open orders."


def test_history_prints_bars(server):
    daily = cli(server, "history", "AAPL")
    assert daily.returncode == 0, daily.stderr
    header, *rows = daily.stdout.strip().splitlines()
    assert header.split() == ["TIME", "OPEN", "HIGH", "LOW", "CLOSE", "VOLUME"] and len(rows) >= 15
    assert all(len(r.split()) == 6 and r[:4].isdigit() for r in rows)
    bars = json.loads(cli(server, "history", "AAPL", "--timeframe", "1Day", "--from", "2026-01-05",
                          "--to", "2026-01-10", "--json").stdout)
    assert bars["symbol"] == "AAPL" and bars["timeframe"] == "1Day"
    assert [b["t"][:10] for b in bars["bars"]] == ["2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09"]
    bad = cli(server, "history", "AAPL", "--timeframe", "7Fortnights")
    assert bad.returncode == 1 and "timeframe" in bad.stderr


def test_a_login_trades_the_account_of_the_symbols_market(server):
    user = "t" + uuid.uuid4().hex[:8]
    r = requests.post(f"{server.url}/api/v1/auth/signup", json={"username": user, "password": "correct horse"})
    assert r.status_code in (200, 201), r.text
    bought = json.loads(cli(server, "buy", "600519", "100", "--json", login=user).stdout)
    accounts = {a["market"]: a["id"] for a in r.json()["accounts"]}
    assert bought["account_id"] == accounts["cn"] and bought["status"] == "filled"
    us = json.loads(cli(server, "account", "--json", login=user).stdout)
    assert us["id"] == accounts["us"] and us["positions"] == []
    cn = json.loads(cli(server, "positions", "--account", accounts["cn"], "--json", login=user).stdout)
    assert [p["symbol"] for p in cn] == ["600519"] and cn[0]["qty_available"] == "0"  # T+1: sellable tomorrow
    refused = cli(server, "sell", "600519", "100", login=user)
    assert refused.returncode == 1 and "T+1" in refused.stderr, refused.stderr


class Lines:
    """A child's standard output read line by line in the background, to wait for what it prints."""

    def __init__(self, process):
        self.lines = []
        self.thread = threading.Thread(target=lambda: self.lines.extend(iter(process.stdout.readline, "")), daemon=True)
        self.thread.start()

    def until(self, done, timeout=60):
        deadline = time.time() + timeout
        while not done(list(self.lines)) and time.time() < deadline:
            time.sleep(0.05)
        return list(self.lines)

    def rest(self):
        self.thread.join(timeout=20)
        return "".join(self.lines)


def ctrl_c_works():
    """In the child, before it runs: Ctrl-C (SIGINT) ends it as at a terminal. A suite started in the background
    (`cmd &` in a script) runs with SIGINT ignored, and an ignored signal stays ignored across exec: the watcher
    then never heard the test's Ctrl-C (seen as a 20 s timeout in a background run of the suite)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_watch_streams_quotes_and_fills_until_interrupted(server):
    env = dict(os.environ, PAPERTRADE_URL=server.url, APCA_API_KEY_ID=server.key_id, APCA_API_SECRET_KEY=server.secret)
    watcher = subprocess.Popen([BINARY, "watch", "AAPL", "MSFT", "--json"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_works)
    parsed = lambda lines: [json.loads(line) for line in lines if line.strip()]
    quoted = lambda lines: {l["symbol"] for l in parsed(lines) if "last" in l}
    filled = lambda lines: [l for l in parsed(lines) if l.get("event") == "fill"]
    output = Lines(watcher)
    try:
        # Both symbols' quotes show that the stream is up before the order is placed.
        output.until(lambda lines: quoted(lines) == {"AAPL", "MSFT"})
        cli(server, "buy", "MSFT", "1")
        output.until(filled)
    finally:
        watcher.send_signal(2)  # Ctrl-C
        watcher.wait(timeout=20)
    out, err = output.rest(), watcher.stderr.read()
    fills = filled(out.splitlines())
    assert quoted(out.splitlines()) == {"AAPL", "MSFT"}, (out, err)
    assert len(fills) == 1 and fills[0]["order"]["symbol"] == "MSFT" and fills[0]["order"]["filled_qty"] == "1"

    plain = subprocess.Popen([BINARY, "watch", "AAPL"], env=env, stdout=subprocess.PIPE, text=True,
                             preexec_fn=ctrl_c_works)
    output = Lines(plain)
    output.until(lambda lines: any(r.startswith("AAPL") for r in lines))
    plain.send_signal(2)
    plain.wait(timeout=20)
    out = output.rest()
    rows = [r for r in out.splitlines() if r.startswith("AAPL")]
    assert rows and "\x1b[" not in out  # in a pipe: plain lines, no cursor movement or colour


def test_colour_only_on_a_terminal(server):
    """Red/green on a terminal (a pty here), never in a pipe; NO_COLOR turns it off."""
    def on_terminal(extra_env):
        env = dict(os.environ, PAPERTRADE_URL=server.url, APCA_API_KEY_ID=server.key_id,
                   APCA_API_SECRET_KEY=server.secret, **extra_env)
        env.pop("NO_COLOR", None) if "NO_COLOR" not in extra_env else None
        leader, follower = pty.openpty()
        proc = subprocess.Popen([BINARY, "quote", "AAPL", "MSFT", "600519"], env=env, stdout=follower,
                                stderr=subprocess.PIPE)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=30)
        os.close(leader)
        return b"".join(chunks).decode()

    coloured = on_terminal({})
    assert "\x1b[32m" in coloured or "\x1b[31m" in coloured, coloured
    assert "\x1b[" not in on_terminal({"NO_COLOR": "1"})
    assert "\x1b[" not in cli(server, "quote", "AAPL", "MSFT").stdout


def test_a_crypto_pair_from_the_terminal(server):
    quote = json.loads(cli(server, "quote", "BTC/USD", "--json").stdout)[0]
    assert quote["symbol"] == "BTC/USD" and len(quote["asks"]) == 5
    bought = cli(server, "buy", "BTC/USD", "$50", "--json")
    assert bought.returncode == 0, bought.stderr
    order = json.loads(bought.stdout)
    assert order["status"] == "filled" and order["time_in_force"] == "gtc", "a pair's orders are gtc by default"
    # The positions table shows the coins exactly as held (to the pair's increment, 0.000000001 for bitcoin), and the
    # average cost, value and profit to the cent, not to the many places a fractional quantity divides them into.
    held = next(p for p in json.loads(cli(server, "positions", "--json").stdout) if p["symbol"] == "BTC/USD")
    row = next(r for r in cli(server, "positions").stdout.splitlines() if r.startswith("BTC/USD")).split()
    assert row[1] == held["qty"], (row, held)
    cost, value, profit, today = row[2], row[4], row[5], row[7]
    assert Decimal(cost) == Decimal(held["avg_entry_price"]).quantize(Decimal("0.01"), ROUND_HALF_EVEN), (row, held)
    assert Decimal(value) == Decimal(held["market_value"]).quantize(Decimal("0.01"), ROUND_HALF_EVEN), (row, held)
    assert all(len(x.split(".")[-1]) <= 2 for x in (cost, value, profit, today) if "." in x), row
    sold = cli(server, "sell", "BTC/USD", "0.0001")
    assert sold.returncode == 0 and "sell 0.0001 BTC/USD market (gtc): filled" in sold.stdout, sold.stdout + sold.stderr
    day = cli(server, "buy", "BTC/USD", "0.001", "--tif", "day")
    assert day.returncode == 1 and "invalid crypto time_in_force" in day.stderr


def test_euros_bought_from_the_terminal_show_in_the_account(server):
    bought = cli(server, "buy", "EUR.USD", "1000", "--tif", "gtc")
    assert bought.returncode == 0, bought.stderr
    assert "buy 1000 EUR.USD market (gtc): filled" in bought.stdout
    account = json.loads(cli(server, "account", "--json").stdout)
    eur = next(b for b in account["balances"] if b["currency"] == "EUR")
    assert eur["amount"] == "1000" and eur["pair"] == "EUR.USD"
    shown = cli(server, "account").stdout
    assert any(line.split()[:2] == ["EUR", "1000"] and "USD at" in line for line in shown.splitlines()), shown
    # Selling more euros than held is refused on standard error, and nothing moves.
    refused = cli(server, "sell", "EUR.USD", "5000", "--tif", "gtc")
    assert refused.returncode == 1 and "insufficient EUR balance" in refused.stderr
    assert json.loads(cli(server, "account", "--json").stdout)["balances"][0]["amount"] == "1000"
