"""The MCP server driven by the official Python MCP SDK (`mcp` from PyPI, pinned) against a real `papertrade serve`:
over stdio (`papertrade mcp`, as a desktop agent starts it) and over Streamable HTTP (`/mcp` on the server). Tools
listed with valid JSON Schemas and honest annotations, the account read, an order placed and listed, a refused order
coming back as a tool error with the broker's reason, read-only mode, a second key never seeing the first key's
account, a game's rules applying to an agent, and the papertrade tools (search, performance, games, alerts, queue
rules, backtests) on a key."""
import asyncio
import json
import uuid

import httpx2
import jsonschema
import pytest
import requests
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import BINARY, Server

# Alpaca's MCP server names these; papertrade's must have them with the same names.
REQUIRED = {
    "get_account_info", "get_all_positions", "get_open_position", "get_orders", "place_stock_order",
    "cancel_order_by_id", "cancel_all_orders", "close_position", "get_stock_latest_quote", "get_stock_bars",
    "get_stock_snapshot", "get_clock", "get_calendar", "get_watchlists", "create_watchlist", "get_portfolio_history",
    "get_account_activities", "search_symbols", "get_performance", "list_games", "join_game", "get_leaderboard",
    "create_price_alert", "add_queue_rule", "run_backtest", "get_option_contracts", "place_option_order",
    "get_earnings_calendar",
    # alpaca-mcp-server's crypto tools.
    "place_crypto_order", "get_crypto_bars", "get_crypto_quotes", "get_crypto_trades", "get_crypto_latest_quote",
    "get_crypto_latest_bar", "get_crypto_latest_trade", "get_crypto_snapshot", "get_crypto_latest_orderbook",
}


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=120))


async def over_http(server, key_id, secret, body, path="/mcp"):
    headers = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with streamable_http_client(server.url + path, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)


async def over_stdio(server, key_id, secret, body, *args):
    params = StdioServerParameters(command=BINARY, args=["mcp", *args], env={
        "PAPERTRADE_URL": server.url, "APCA_API_KEY_ID": key_id, "APCA_API_SECRET_KEY": secret})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def text(result):
    assert result.content and result.content[0].type == "text"
    return result.content[0].text


def ok(result):
    assert not result.is_error, text(result)
    return json.loads(text(result))


def new_key(server):
    """A second user with its own US account and key."""
    s = requests.Session()
    user = "agent" + uuid.uuid4().hex[:8]
    r = s.post(f"{server.url}/api/v1/auth/signup", json={"username": user, "password": "correct horse"})
    assert r.status_code in (200, 201), r.text
    account = next(a for a in r.json()["accounts"] if a["market"] == "us")
    key = s.post(f"{server.url}/api/v1/accounts/{account['id']}/keys").json()
    return s, account["id"], key["key_id"], key["secret"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_agent_reads_the_account_places_and_lists_an_order(server, transport):
    connect = over_stdio if transport == "stdio" else over_http

    async def body(session):
        tools = (await session.list_tools()).tools
        names = {t.name for t in tools}
        assert REQUIRED <= names, REQUIRED - names
        for tool in tools:
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            assert tool.input_schema["type"] == "object" and tool.description
        by_name = {t.name: t for t in tools}
        assert by_name["get_account_info"].annotations.read_only_hint is True
        assert by_name["cancel_all_orders"].annotations.destructive_hint is True
        assert by_name["place_stock_order"].annotations.read_only_hint is False
        assert set(by_name["place_stock_order"].input_schema["required"]) == {"symbol", "side"}

        account = ok(await session.call_tool("get_account_info", {}))
        assert account["currency"] == "USD" and float(account["cash"]) > 0

        placed = ok(await session.call_tool("place_stock_order", {
            "symbol": "AAPL", "side": "buy", "qty": 2, "type": "limit", "limit_price": "1.25",
            "time_in_force": "gtc"}))
        assert placed["status"] == "new" and placed["limit_price"] == "1.25" and placed["qty"] == "2"
        listed = ok(await session.call_tool("get_orders", {"status": "open"}))
        assert placed["id"] in {o["id"] for o in listed}
        # A JSON number with a fraction arrives exactly.
        other = ok(await session.call_tool("place_stock_order", {
            "symbol": "AAPL", "side": "buy", "qty": 1, "type": "limit", "limit_price": 1.37, "time_in_force": "day"}))
        assert other["limit_price"] == "1.37"

        refused = await session.call_tool("place_stock_order", {"symbol": "AAPL", "side": "buy", "qty": "50000000"})
        assert refused.is_error and "insufficient buying power" in text(refused) and "403" in text(refused)
        wrong = await session.call_tool("place_stock_order", {"symbol": "AAPL", "side": "buy"})
        assert wrong.is_error and "qty" in text(wrong)

        canceled = ok(await session.call_tool("cancel_order_by_id", {"order_id": placed["id"]}))
        assert canceled["status"] == "canceled"
        ok(await session.call_tool("cancel_all_orders", {}))
        assert ok(await session.call_tool("get_orders", {"status": "open"})) == []

        quote = ok(await session.call_tool("get_stock_latest_quote", {"symbols": ["AAPL", "MSFT"]}))
        assert set(quote["quotes"]) == {"AAPL", "MSFT"}
        bars = ok(await session.call_tool("get_stock_bars", {"symbols": "AAPL", "timeframe": "1Day", "days": 20}))
        assert len(bars["bars"]["AAPL"]) >= 10
        clock = ok(await session.call_tool("get_clock", {}))
        assert "is_open" in clock
        calendar = ok(await session.call_tool("get_earnings_calendar", {
            "start": "2026-01-01", "end": "2026-12-31", "symbols": "AAPL"}))
        assert [r["fiscal_quarter"] for r in calendar["earnings"]] == [1, 2, 3, 4]
        return account

    account = run(connect(server, server.key_id, server.secret, body))
    assert account["id"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_agent_trades_crypto_and_reads_its_market(server, transport):
    connect = over_stdio if transport == "stdio" else over_http
    _, _, key_id, secret = new_key(server)

    async def body(session):
        bought = ok(await session.call_tool("place_crypto_order", {"symbol": "BTC/USD", "side": "buy", "qty": "0.002"}))
        assert bought["status"] == "filled" and bought["time_in_force"] == "gtc" and bought["asset_class"] == "crypto"
        dollars = ok(await session.call_tool("place_crypto_order", {
            "symbol": "ETH/USD", "side": "buy", "notional": 25, "time_in_force": "ioc"}))
        assert dollars["status"] == "filled"
        short = await session.call_tool("place_crypto_order", {"symbol": "SOL/USD", "side": "sell", "qty": 1})
        assert short.is_error and "insufficient balance for SOL" in text(short)
        positions = ok(await session.call_tool("get_all_positions", {}))
        assert {p["symbol"] for p in positions} == {"BTCUSD", "ETHUSD"}
        # A coin pair: paid in tether, which the agent must buy first.
        broke = await session.call_tool("place_crypto_order", {"symbol": "BTC/USDT", "side": "buy", "qty": "0.001"})
        assert broke.is_error and "insufficient balance for USDT" in text(broke)
        ok(await session.call_tool("place_crypto_order", {"symbol": "USDT/USD", "side": "buy", "qty": "500"}))
        paired = ok(await session.call_tool("place_crypto_order", {"symbol": "BTC/USDT", "side": "buy", "qty": "0.001"}))
        assert paired["status"] == "filled" and paired["symbol"] == "BTC/USDT"
        held = {p["symbol"]: p for p in ok(await session.call_tool("get_all_positions", {}))}
        assert set(held) == {"BTCUSD", "ETHUSD", "USDTUSD"} and float(held["USDTUSD"]["qty"]) < 498.75

        book = ok(await session.call_tool("get_crypto_latest_orderbook", {"symbols": "BTC/USD"}))["orderbooks"]["BTC/USD"]
        quote = ok(await session.call_tool("get_crypto_latest_quote", {"symbols": ["BTC/USD"]}))["quotes"]["BTC/USD"]
        # (The clock runs here: the book and the quote are read a moment apart.)
        assert book["b"][0]["p"] < book["a"][0]["p"] and len(book["a"]) == 5 and quote["bp"] < quote["ap"]
        bars = ok(await session.call_tool("get_crypto_bars", {"symbols": "BTC/USD,ETH/USD", "timeframe": "1Hour",
                                                              "hours": 48}))
        assert len(bars["bars"]["BTC/USD"]) >= 47 and len(bars["bars"]["ETH/USD"]) >= 47
        for name in ["get_crypto_quotes", "get_crypto_trades"]:
            found = ok(await session.call_tool(name, {"symbols": "BTC/USD", "minutes": 10}))
            assert found[name.split("_")[-1]]["BTC/USD"], name
        trade = ok(await session.call_tool("get_crypto_latest_trade", {"symbols": "BTC/USD"}))["trades"]["BTC/USD"]
        bar = ok(await session.call_tool("get_crypto_latest_bar", {"symbols": "BTC/USD"}))["bars"]["BTC/USD"]
        snap = ok(await session.call_tool("get_crypto_snapshot", {"symbols": "BTC/USD"}))["snapshots"]["BTC/USD"]
        assert trade["p"] > 0 and bar["c"] > 0 and 0 < snap["latestQuote"]["bp"] < snap["latestQuote"]["ap"]

    run(connect(server, key_id, secret, body))


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_read_only_mode_offers_and_runs_only_reading_tools(server, transport):
    async def body(session):
        names = {t.name for t in (await session.list_tools()).tools}
        assert "get_account_info" in names and "get_orders" in names
        assert not names & {"place_stock_order", "cancel_all_orders", "close_position", "join_game", "run_backtest"}
        refused = await session.call_tool("place_stock_order", {"symbol": "AAPL", "side": "buy", "qty": 1})
        assert refused.is_error and "read-only" in text(refused)
        assert ok(await session.call_tool("get_all_positions", {})) is not None

    if transport == "stdio":
        run(over_stdio(server, server.key_id, server.secret, body, "--read-only"))
    else:
        run(over_http(server, server.key_id, server.secret, body, path="/mcp/read-only"))


def test_a_second_key_never_sees_the_first_keys_account(server):
    _, account, key_id, secret = new_key(server)

    async def first(session):
        return ok(await session.call_tool("place_stock_order", {
            "symbol": "MSFT", "side": "buy", "qty": 1, "type": "limit", "limit_price": "2", "time_in_force": "gtc"}))

    theirs = run(over_http(server, server.key_id, server.secret, first))

    async def second(session):
        mine = ok(await session.call_tool("get_account_info", {}))
        orders = ok(await session.call_tool("get_orders", {"status": "all"}))
        lookup = await session.call_tool("get_order_by_id", {"order_id": theirs["id"]})
        cancel = await session.call_tool("cancel_order_by_id", {"order_id": theirs["id"]})
        return mine, orders, lookup, cancel

    mine, orders, lookup, cancel = run(over_http(server, key_id, secret, second))
    assert mine["id"] == account
    assert theirs["id"] not in {o["id"] for o in orders}
    assert lookup.is_error and "404" in text(lookup)
    assert cancel.is_error and "404" in text(cancel)

    async def still_open(session):
        return ok(await session.call_tool("get_order_by_id", {"order_id": theirs["id"]}))

    assert run(over_http(server, server.key_id, server.secret, still_open))["status"] == "new"


def test_the_http_endpoint_refuses_strangers_and_foreign_pages(server):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    keys = {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}
    assert requests.post(server.url + "/mcp", json=init, headers=accept).status_code == 401
    wrong = requests.post(server.url + "/mcp", json=init, headers={**accept, **keys, "APCA-API-SECRET-KEY": "x"})
    assert wrong.status_code == 401 and "not authorized" in wrong.json()["error"]["message"]
    foreign = requests.post(server.url + "/mcp", json=init, headers={**accept, **keys, "Origin": "http://evil.example"})
    assert foreign.status_code == 403
    good = requests.post(server.url + "/mcp", json=init, headers={**accept, **keys})
    assert good.status_code == 200 and good.json()["result"]["serverInfo"]["name"] == "papertrade"
    bearer = requests.post(server.url + "/mcp", json=init,
                           headers={**accept, "Authorization": f"Bearer {server.key_id}:{server.secret}"})
    assert bearer.status_code == 200
    same_origin = requests.post(server.url + "/mcp", json=init,
                                headers={**accept, **keys, "Origin": server.url})
    assert same_origin.status_code == 200
    assert requests.get(server.url + "/mcp", headers=keys).status_code == 405


def test_an_agent_plays_a_game_under_its_rules(server):
    owner, _, _, _ = new_key(server)
    game = owner.post(f"{server.url}/api/v1/games", json={
        "name": "Agents league", "starting_cash": "10000", "visibility": "private",
        "rules": {"max_position_percent": "10"}}).json()
    player, _, key_id, secret = new_key(server)
    joined = player.post(f"{server.url}/api/v1/games/{game['id']}/join",
                         json={"code": game["join_code"], "api_key": True}).json()

    async def agent(session):
        account = ok(await session.call_tool("get_account_info", {}))
        too_big = await session.call_tool("place_stock_order", {"symbol": "AAPL", "side": "buy", "notional": "5000"})
        small = ok(await session.call_tool("place_stock_order", {"symbol": "AAPL", "side": "buy", "qty": 1}))
        board = ok(await session.call_tool("get_leaderboard", {"game_id": game["id"]}))
        return account, too_big, small, board

    account, too_big, small, board = run(over_http(server, joined["key_id"], joined["secret"], agent))
    assert account["id"] == joined["account_id"] and account["cash"] == "10000"
    assert too_big.is_error and "10%" in text(too_big)
    assert small["status"] == "filled"
    assert [e["account_id"] for e in board["entries"]] == [joined["account_id"]]


def test_papertrades_own_tools_on_a_key(server):
    _, account, key_id, secret = new_key(server)

    async def body(session):
        found = ok(await session.call_tool("search_symbols", {"query": "茅台"}))
        performance = ok(await session.call_tool("get_performance", {"period": "1m"}))
        games = ok(await session.call_tool("list_games", {}))
        alert = ok(await session.call_tool("create_price_alert", {
            "symbol": "AAPL", "condition": "greater_than", "value": "999"}))
        alerts = ok(await session.call_tool("get_price_alerts", {}))
        rule = ok(await session.call_tool("add_queue_rule", {
            "symbol": "MSFT", "qty": 1, "condition": "price_at_most", "value": "1"}))
        rules = ok(await session.call_tool("get_queue_rules", {}))
        test = ok(await session.call_tool("run_backtest", {
            "symbols": ["AAPL"], "from": "2025-01-01", "to": "2025-06-30", "strategy": "sma-cross", "fast": 5,
            "slow": 20}))
        bad = await session.call_tool("run_backtest", {"symbols": ["AAPL"], "from": "2025-06-30", "to": "2025-01-01"})
        contracts = ok(await session.call_tool("get_option_contracts", {"underlying_symbols": "AAPL", "limit": 5}))
        return found, performance, games, alert, alerts, rule, rules, test, bad, contracts

    found, performance, games, alert, alerts, rule, rules, test, bad, contracts = run(
        over_http(server, key_id, secret, body))
    assert [f["symbol"] for f in found] == ["600519"]
    assert performance["account_id"] == account and performance["period"] == "1M"
    assert isinstance(games, list)
    assert alert["status"] == "active" and alert["value"] == "999" and [a["id"] for a in alerts] == [alert["id"]]
    assert rule["status"] == "queued" and [r["id"] for r in rules] == [rule["id"]]
    assert test["status"] == "done" and test["result"]["symbols"] == ["AAPL"] and "equity" not in test["result"]
    assert bad.is_error and "422" in text(bad)
    assert len(contracts["option_contracts"]) == 5


def test_the_rate_limit_applies_to_an_agent():
    """An agent's tool calls count against its key's Alpaca request limit like any client's; past it, a tool error
    says so (and the agent can wait)."""
    limited = Server(rate_limit=4).start()
    try:
        async def agent(session):
            return [await session.call_tool("get_account_info", {}) for _ in range(10)]

        results = run(over_http(limited, limited.key_id, limited.secret, agent))
        refused = [r for r in results if r.is_error]
        assert 1 <= len([r for r in results if not r.is_error]) <= 8  # at most two one-minute windows
        assert refused and all("429" in text(r) and "too many requests" in text(r) for r in refused)
    finally:
        limited.stop()
