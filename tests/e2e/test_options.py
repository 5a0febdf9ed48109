"""Options through alpaca-py, unchanged: contracts with their filters and pages, lookups by symbol and id, the chain
snapshot with greeks and implied volatility, latest quotes and trades, bars and trades, and the MessagePack stream."""
import asyncio
import datetime
import json
import threading
import time
import uuid

import pytest
import websockets
from alpaca.common.exceptions import APIError
from alpaca.data.enums import OptionsFeed
from alpaca.data.historical.option import OptionHistoricalDataClient
from alpaca.data.live.option import OptionDataStream
from alpaca.data.requests import (OptionBarsRequest, OptionChainRequest, OptionLatestQuoteRequest,
                                  OptionLatestTradeRequest, OptionSnapshotRequest, OptionTradesRequest)
from alpaca.data.historical import StockHistoricalDataClient
from alpaca.data.requests import StockLatestQuoteRequest
from alpaca.data.timeframe import TimeFrame
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import AssetStatus, ContractType, ExerciseStyle
from alpaca.trading.requests import GetOptionContractsRequest


@pytest.fixture(scope="module")
def client(server):
    return TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)


@pytest.fixture(scope="module")
def data(server):
    return OptionHistoricalDataClient(server.key_id, server.secret, url_override=server.url)



def test_optionable_assets_say_so(client):
    assert "has_options" in (client.get_asset("AAPL").attributes or [])
    assert "has_options" in (client.get_asset("SPY").attributes or [])
    assert "has_options" not in (client.get_asset("600519").attributes or [])


def test_contracts_follow_every_filter_and_page_without_overlap(client):
    start = datetime.date.today()
    request = GetOptionContractsRequest(
        underlying_symbols=["AAPL", "MSFT"], expiration_date_gte=start, expiration_date_lte=start + datetime.timedelta(days=60),
        type=ContractType.CALL, strike_price_gte="200", strike_price_lte="400", limit=40)
    first = client.get_option_contracts(request)
    assert len(first.option_contracts) == 40 and first.next_page_token
    request.page_token = first.next_page_token
    second = client.get_option_contracts(request)
    seen = [c.symbol for c in first.option_contracts + second.option_contracts]
    assert len(seen) == len(set(seen))
    for c in first.option_contracts + second.option_contracts:
        assert c.underlying_symbol in ("AAPL", "MSFT") and c.root_symbol == c.underlying_symbol
        assert c.type == ContractType.CALL and c.style == ExerciseStyle.AMERICAN and c.status == AssetStatus.ACTIVE
        assert 200 <= c.strike_price <= 400
        assert start <= c.expiration_date <= start + datetime.timedelta(days=60)
        assert c.size == "100" and c.tradable
        assert isinstance(c.underlying_asset_id, uuid.UUID)
        # The OCC symbol spells the contract.
        assert c.symbol == f"{c.root_symbol}{c.expiration_date:%y%m%d}C{round(c.strike_price * 1000):08d}"
    # Chain order: underlying, expiration, strike.
    keys = [(c.underlying_symbol, c.expiration_date, c.strike_price) for c in first.option_contracts]
    assert keys == sorted(keys)


def test_without_an_expiration_filter_the_listing_stops_at_the_coming_weekend(client):
    contracts = client.get_option_contracts(GetOptionContractsRequest(underlying_symbols=["SPY"], limit=10000))
    assert contracts.option_contracts, "SPY lists an expiration every weekday"
    latest = max(c.expiration_date for c in contracts.option_contracts)
    assert latest.weekday() <= 4 and (latest - datetime.date.today()).days <= 8


def test_a_contract_is_found_by_symbol_and_by_id_and_an_unknown_one_is_a_404(client):
    listed = client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["NVDA"], expiration_date_gte=datetime.date.today() + datetime.timedelta(days=20),
        limit=1)).option_contracts[0]
    by_symbol = client.get_option_contract(listed.symbol)
    by_id = client.get_option_contract(listed.id)
    assert by_symbol.id == by_id.id == listed.id
    assert by_symbol.symbol == by_id.symbol == listed.symbol
    assert by_symbol.close_price is not None and by_symbol.open_interest is not None
    with pytest.raises(APIError) as refused:
        client.get_option_contract(listed.symbol[:-3] + "001")  # a strike off the grid
    assert refused.value.status_code == 404
    with pytest.raises(APIError) as refused:
        client.get_option_contract(str(uuid.uuid4()))
    assert refused.value.status_code == 404


def test_the_chain_snapshot_has_quotes_greeks_and_implied_volatility(client, data):
    expiration = min(c.expiration_date for c in client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["SPY"], expiration_date_gte=datetime.date.today() + datetime.timedelta(days=7),
        limit=1)).option_contracts)
    chain = data.get_option_chain(OptionChainRequest(underlying_symbol="SPY", expiration_date=expiration,
                                                     feed=OptionsFeed.INDICATIVE))
    assert len(chain) > 100
    calls = sorted((s for s in chain.values() if s.symbol[-9] == "C"), key=lambda s: s.symbol)
    puts = sorted((s for s in chain.values() if s.symbol[-9] == "P"), key=lambda s: s.symbol)
    assert len(calls) == len(puts)
    for s in chain.values():
        q = s.latest_quote
        assert q.ask_price > 0 and 0 <= q.bid_price < q.ask_price
        assert 0.03 < s.implied_volatility < 3
        assert s.greeks is not None and s.greeks.gamma >= 0 and s.greeks.vega >= 0
    # Calls' deltas fall from 1 to 0 as the strike rises; puts' from 0 to -1.
    call_deltas = [s.greeks.delta for s in calls]
    assert call_deltas == sorted(call_deltas, reverse=True) and call_deltas[0] > 0.9 and call_deltas[-1] < 0.1
    put_deltas = [s.greeks.delta for s in puts]
    assert put_deltas == sorted(put_deltas, reverse=True) and put_deltas[0] > -0.1 and put_deltas[-1] < -0.9
    # Page through the whole chain as alpaca-py does (1,000 at a time): every expiration of SPY.
    whole = data.get_option_chain(OptionChainRequest(underlying_symbol="SPY"))
    assert len(whole) > 2000
    assert len({s[3:9] for s in whole}) >= 15


def test_snapshots_latest_quotes_and_trades_by_symbol(client, data):
    symbols = [c.symbol for c in client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["AAPL"], expiration_date_gte=datetime.date.today() + datetime.timedelta(days=25),
        limit=6)).option_contracts]
    snapshots = data.get_option_snapshot(OptionSnapshotRequest(symbol_or_symbols=symbols))
    assert sorted(snapshots) == sorted(symbols)
    quotes = data.get_option_latest_quote(OptionLatestQuoteRequest(symbol_or_symbols=symbols))
    trades = data.get_option_latest_trade(OptionLatestTradeRequest(symbol_or_symbols=symbols))
    for symbol in symbols:
        assert quotes[symbol].ask_price >= snapshots[symbol].latest_quote.bid_price
        assert trades[symbol].price > 0
    # Unknown symbols are left out, as Alpaca does; a malformed one too.
    assert data.get_option_latest_quote(OptionLatestQuoteRequest(symbol_or_symbols=["AAPL991231C00001000"])) == {}


def test_bars_and_trades_of_a_contract(client, data, server):
    stocks = StockHistoricalDataClient(server.key_id, server.secret, url_override=server.url)
    spot = float(stocks.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols="SPY"))["SPY"].ask_price)
    calls = client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["SPY"], expiration_date_gte=datetime.date.today() + datetime.timedelta(days=60),
        expiration_date_lte=datetime.date.today() + datetime.timedelta(days=120), type=ContractType.CALL,
        limit=10000)).option_contracts
    # A contract listed for weeks, at the money.
    atm = min(calls, key=lambda c: (c.expiration_date, abs(c.strike_price - spot)))
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=30)
    daily = data.get_option_bars(OptionBarsRequest(symbol_or_symbols=atm.symbol, timeframe=TimeFrame.Day, start=start))
    bars = daily.data[atm.symbol]
    assert len(bars) >= 15
    for b in bars:
        assert 0 < b.low <= min(b.open, b.close) <= max(b.open, b.close) <= b.high and b.volume > 0
    times = [b.timestamp for b in bars]
    assert times == sorted(times)
    minutes = data.get_option_bars(OptionBarsRequest(
        symbol_or_symbols=atm.symbol, timeframe=TimeFrame.Minute, start=start))
    assert len(minutes.data[atm.symbol]) > 1000  # alpaca-py followed the pages
    trades = data.get_option_trades(OptionTradesRequest(symbol_or_symbols=atm.symbol, start=start))
    assert trades.data[atm.symbol] and all(t.price > 0 and t.size > 0 for t in trades.data[atm.symbol])



def test_the_option_stream_sends_quotes_and_refuses_json(client, server):
    symbols = [c.symbol for c in client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["SPY"], expiration_date_gte=datetime.date.today() + datetime.timedelta(days=10),
        limit=4)).option_contracts]
    quotes = []
    stream = OptionDataStream(server.key_id, server.secret, url_override=f"ws://127.0.0.1:{server.port}/v1beta1/indicative")

    async def on_quote(q):
        quotes.append(q)

    stream.subscribe_quotes(on_quote, *symbols)
    threading.Thread(target=stream.run, daemon=True).start()
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len({q.symbol for q in quotes}) < len(symbols):
            time.sleep(0.05)
        assert {q.symbol for q in quotes} == set(symbols)
        assert all(0 <= q.bid_price < q.ask_price for q in quotes)
    finally:
        stream.stop()
    # A client that does not ask for MessagePack is told so, in Alpaca's words.
    async def json_client():
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/v1beta1/opra") as ws:
            return json.loads(await ws.recv())
    assert asyncio.run(json_client())[0]["code"] == 412
