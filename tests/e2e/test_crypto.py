"""Crypto through alpaca-py's TradingClient, unchanged: on a Saturday (a manual clock started on 21 November 2026)
bitcoin fills while a stock's market order waits for Monday; pairs are listed as Alpaca lists them; positions show
`BTCUSD` less the taker fee taken in the coin, each fee a CFEE activity; Alpaca's refusals for crypto come back with
Alpaca's words."""
import shutil
from decimal import ROUND_HALF_UP, Decimal

import pytest
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import AssetClass, OrderSide, OrderStatus, QueryOrderStatus, TimeInForce
from alpaca.trading.requests import (ClosePositionRequest, GetAssetsRequest, GetOrdersRequest, LimitOrderRequest,
                                     MarketOrderRequest)

from conftest import Server


@pytest.fixture(scope="module")
def saturday():
    s = Server(clock="manual", env={"PAPERTRADE_REPLAY_FROM": "2026-11-21"}).start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def client(saturday):
    return TradingClient(saturday.key_id, saturday.secret, paper=True, url_override=saturday.url)


def test_pairs_are_listed_as_alpaca_lists_them(client):
    btc = client.get_asset("BTC/USD")
    assert btc.asset_class == AssetClass.CRYPTO and btc.symbol == "BTC/USD" and btc.exchange == "CRYPTO"
    assert (btc.min_order_size, btc.min_trade_increment, btc.price_increment) == (0.0001, 0.0001, 1)
    assert btc.tradable and btc.fractionable and not btc.marginable and not btc.shortable
    assert client.get_asset("BTCUSD").symbol == "BTC/USD", "the legacy symbol finds the pair"
    pairs = client.get_all_assets(GetAssetsRequest(asset_class=AssetClass.CRYPTO))
    assert len(pairs) >= 20 and all(a.asset_class == AssetClass.CRYPTO for a in pairs)
    assert {"BTC/USD", "ETH/USD", "SOL/USD", "DOGE/USD", "USDC/USD"} <= {a.symbol for a in pairs}
    # Without asset_class, Alpaca lists us_equity only.
    assert not any(a.asset_class == AssetClass.CRYPTO for a in client.get_all_assets())


def test_on_a_saturday_bitcoin_fills_and_a_stock_waits(client):
    coin = client.submit_order(MarketOrderRequest(symbol="BTC/USD", qty=0.0125, side=OrderSide.BUY,
                                                  time_in_force=TimeInForce.GTC))
    assert coin.status == OrderStatus.FILLED and float(coin.filled_qty) == 0.0125
    assert coin.asset_class == AssetClass.CRYPTO
    stock = client.submit_order(MarketOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY,
                                                   time_in_force=TimeInForce.DAY))
    assert stock.status != OrderStatus.FILLED and float(stock.filled_qty) == 0
    dollars = client.submit_order(MarketOrderRequest(symbol="ETHUSD", notional=50, side=OrderSide.BUY,
                                                     time_in_force=TimeInForce.IOC))
    assert dollars.status == OrderStatus.FILLED and dollars.symbol == "ETH/USD"
    assert abs(float(dollars.filled_qty) * float(dollars.filled_avg_price) - 50) < 0.01

    # Alpaca's first tier takes 25 bps of a market order, in the asset received: coins out of each purchase.
    positions = {p.symbol: p for p in client.get_all_positions()}
    assert set(positions) == {"BTCUSD", "ETHUSD"}, "Alpaca lists crypto positions without the slash"
    assert Decimal(positions["BTCUSD"].qty) == Decimal("0.01246875"), "0.0125 BTC less 0.25%"
    assert positions["BTCUSD"].asset_class == AssetClass.CRYPTO
    assert Decimal(client.get_open_position("BTC/USD").qty) == Decimal("0.01246875")
    assert Decimal(positions["ETHUSD"].qty) == (Decimal(dollars.filled_qty) * Decimal("0.9975")).quantize(
        Decimal("0.000000001"), rounding=ROUND_HALF_UP)
    fees = client.get("/account/activities/CFEE")
    bought = [a for a in fees if a["order_id"] == str(coin.id)]
    assert len(bought) == 1 and Decimal(bought[0]["qty"]) == Decimal("-0.00003125")
    assert Decimal(bought[0]["net_amount"]) == 0 and bought[0]["price"] == coin.filled_avg_price

    # Half the position, in the pair's steps; then the rest, off the steps (the fee left it so) but whole.
    half = client.close_position("BTC/USD", ClosePositionRequest(percentage="50"))
    assert Decimal(half.qty) == Decimal("0.0062")
    rest = client.close_position("BTCUSD")
    assert Decimal(rest.qty) == Decimal("0.00626875")
    assert {p.symbol for p in client.get_all_positions()} == {"ETHUSD"}
    mine = client.get_orders(GetOrdersRequest(status=QueryOrderStatus.ALL, symbols=["BTC/USD"]))
    assert sorted(Decimal(o.qty) for o in mine) == [Decimal("0.0062"), Decimal("0.00626875"), Decimal("0.0125")]
    # A sale's fee is dollars out of its proceeds: 25 bps of the fill's value, to the cent.
    for sale in (half, rest):
        order = client.get_order_by_id(sale.id)
        value = (Decimal(order.filled_qty) * Decimal(order.filled_avg_price)).quantize(Decimal("0.01"), ROUND_HALF_UP)
        [fee] = [a for a in client.get("/account/activities", {"activity_types": "CFEE"})
                 if a["order_id"] == str(order.id)]
        assert Decimal(fee["net_amount"]) == -(value * Decimal("0.0025")).quantize(Decimal("0.01"), ROUND_HALF_UP)
        assert Decimal(fee["qty"]) == 0 and fee["description"] == "Coin Pair Transaction Fee (USD)"


def test_alpacas_refusals_for_crypto(client):
    def refused(request):
        with pytest.raises(APIError) as e:
            client.submit_order(request)
        return e.value

    day = refused(MarketOrderRequest(symbol="BTC/USD", qty=0.001, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert day.status_code == 422 and "invalid crypto time_in_force" in str(day)
    small = refused(MarketOrderRequest(symbol="BTC/USD", qty=0.00001, side=OrderSide.BUY,
                                       time_in_force=TimeInForce.GTC))
    assert small.status_code == 422 and "minimum order of 0.0001" in str(small)
    short = refused(MarketOrderRequest(symbol="SOL/USD", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.GTC))
    assert short.status_code == 403 and "insufficient balance for SOL" in str(short)
    notional_limit = refused(LimitOrderRequest(symbol="BTC/USD", notional=50, limit_price=80000, side=OrderSide.BUY,
                                               time_in_force=TimeInForce.GTC))
    assert notional_limit.status_code == 422
    unknown = refused(MarketOrderRequest(symbol="NOPE/USD", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.GTC))
    assert unknown.status_code in (404, 422)


def test_crypto_market_data_through_alpaca_pys_data_client(saturday):
    """Every call of alpaca-py's CryptoHistoricalDataClient, on the Saturday: a weekend minute has bars, quotes and
    trades, and the latest of each agrees with the book."""
    from datetime import datetime, timedelta, timezone

    from alpaca.data.historical.crypto import CryptoHistoricalDataClient
    from alpaca.data.requests import (CryptoBarsRequest, CryptoLatestBarRequest, CryptoLatestOrderbookRequest,
                                      CryptoLatestQuoteRequest, CryptoLatestTradeRequest, CryptoQuoteRequest,
                                      CryptoSnapshotRequest, CryptoTradesRequest)
    from alpaca.data.timeframe import TimeFrame

    data = CryptoHistoricalDataClient(saturday.key_id, saturday.secret, url_override=saturday.url)
    pairs = ["BTC/USD", "ETH/USD"]
    # The manual clock stands at 09:30 New York on Saturday 21 November (14:30 UTC).
    now = datetime(2026, 11, 21, 14, 30, tzinfo=timezone.utc)
    bars = data.get_crypto_bars(CryptoBarsRequest(symbol_or_symbols=pairs, timeframe=TimeFrame.Minute,
                                                  start=now - timedelta(hours=3), end=now))
    for pair in pairs:
        minutes = bars[pair]
        assert len(minutes) == 180, "every minute of a Saturday morning traded"
        assert all(b.low <= min(b.open, b.close) and b.high >= max(b.open, b.close) for b in minutes)
    days = data.get_crypto_bars(CryptoBarsRequest(symbol_or_symbols="BTC/USD", timeframe=TimeFrame.Day,
                                                  start=now - timedelta(days=14), end=now))["BTC/USD"]
    assert len(days) == 15, "a daily bar for every day, weekends included (today's so far)"
    # Paging: 2,000 minutes in pages of at most 10,000 items, asked 500 at a time by limit.
    paged = data.get_crypto_bars(CryptoBarsRequest(symbol_or_symbols="BTC/USD", timeframe=TimeFrame.Minute,
                                                   start=now - timedelta(days=2), end=now, limit=500))["BTC/USD"]
    assert len(paged) == 500
    trades = data.get_crypto_trades(CryptoTradesRequest(symbol_or_symbols="BTC/USD", start=now - timedelta(minutes=5),
                                                        end=now))["BTC/USD"]
    quotes = data.get_crypto_quotes(CryptoQuoteRequest(symbol_or_symbols="BTC/USD", start=now - timedelta(minutes=5),
                                                       end=now))["BTC/USD"]
    assert trades and quotes and all(q.bid_price < q.ask_price for q in quotes)

    quote = data.get_crypto_latest_quote(CryptoLatestQuoteRequest(symbol_or_symbols=pairs))
    trade = data.get_crypto_latest_trade(CryptoLatestTradeRequest(symbol_or_symbols=pairs))
    latest_bar = data.get_crypto_latest_bar(CryptoLatestBarRequest(symbol_or_symbols=pairs))
    books = data.get_crypto_latest_orderbook(CryptoLatestOrderbookRequest(symbol_or_symbols=pairs))
    snapshots = data.get_crypto_snapshot(CryptoSnapshotRequest(symbol_or_symbols=pairs))
    for pair in pairs:
        book = books[pair]
        assert len(book.bids) == 5 and len(book.asks) == 5
        assert book.bids[0].price == quote[pair].bid_price and book.asks[0].price == quote[pair].ask_price
        assert all(a.price < b.price for a, b in zip(book.asks, book.asks[1:])), "asks rise away from the best"
        assert quote[pair].bid_price <= trade[pair].price <= quote[pair].ask_price + 1
        assert latest_bar[pair].timestamp <= now
        snap = snapshots[pair]
        assert snap.latest_quote.bid_price == quote[pair].bid_price and snap.daily_bar is not None
        assert snap.previous_daily_bar.timestamp < snap.daily_bar.timestamp

    with pytest.raises(APIError) as stock:
        data.get_crypto_latest_quote(CryptoLatestQuoteRequest(symbol_or_symbols="AAPL"))
    assert stock.value.status_code == 422


@pytest.fixture(scope="module")
def weekend_replay():
    """The Saturday again, replayed at a minute a second: crypto streams while the stock market is shut."""
    s = Server(clock="replay", env={"PAPERTRADE_REPLAY_FROM": "2026-11-21", "PAPERTRADE_REPLAY_SPEED": "60"}).start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


def test_crypto_data_stream_through_alpaca_pys_client(weekend_replay):
    """alpaca-py's CryptoDataStream, unchanged, on /v1beta3/crypto/us: trades within seconds, quotes at the book's
    top, the order book whole and then its changes, minute bars and the day's bar as minutes end, each under the
    symbol subscribed (the legacy BTCUSD too)."""
    import threading
    import time

    from alpaca.data.live.crypto import CryptoDataStream

    s = weekend_replay
    got = {"trades": [], "quotes": [], "books": [], "bars": [], "daily": [], "legacy": []}

    def collect(name):
        async def handler(item):
            got[name].append(item)
        return handler

    stream = CryptoDataStream(s.key_id, s.secret, url_override=f"ws://127.0.0.1:{s.port}/v1beta3/crypto/us")
    stream.subscribe_trades(collect("trades"), "BTC/USD", "ETH/USD")
    stream.subscribe_quotes(collect("quotes"), "BTC/USD")
    stream.subscribe_orderbooks(collect("books"), "BTC/USD")
    stream.subscribe_bars(collect("bars"), "ETH/USD")
    stream.subscribe_daily_bars(collect("daily"), "ETH/USD")
    stream.subscribe_quotes(collect("legacy"), "SOLUSD")
    threading.Thread(target=stream.run, daemon=True).start()
    started = time.time()
    try:
        deadline = started + 60

        def traded():
            # A round sends a pair's trade only when it printed since the last round: the two pairs' first trades
            # may come rounds apart (on a busy machine a round covers less market time), so wait for both.
            return {t.symbol for t in list(got["trades"])}

        while time.time() < deadline and not (all(got.values()) and len(traded()) == 2):
            time.sleep(0.1)
        assert all(got.values()), {k: len(v) for k, v in got.items()}
        first_trade = time.time() - started
        assert traded() == {"BTC/USD", "ETH/USD"}
        assert all(t.price > 0 and 0 < t.size for t in got["trades"])
        assert any(t.size != int(t.size) for t in got["trades"]), "coins trade in fractions"
        q = got["quotes"][-1]
        assert q.symbol == "BTC/USD" and 0 < q.bid_price < q.ask_price
        assert q.timestamp.weekday() == 5, "a Saturday's quote"
        books = got["books"]
        assert books[0].reset and len(books[0].bids) == 5 and len(books[0].asks) == 5
        assert books[0].bids[0].price < books[0].asks[0].price
        bar = got["bars"][-1]
        assert bar.symbol == "ETH/USD" and bar.low <= min(bar.open, bar.close) <= max(bar.open, bar.close) <= bar.high
        assert bar.timestamp.second == 0
        day = got["daily"][-1]
        assert day.timestamp.hour == 0 and day.volume > bar.volume, "the UTC day's bar so far"
        assert got["legacy"][-1].symbol == "SOLUSD", "answered under the symbol subscribed"
        print(f"first of every channel after {first_trade:.1f} s")
        # Changes follow the whole book: levels that moved, gone ones at size 0.
        deadline = time.time() + 20
        while time.time() < deadline and len(got["books"]) < 3:
            time.sleep(0.1)
        assert len(got["books"]) >= 3 and not any(b.reset for b in got["books"][1:])
    finally:
        stream.stop()


def test_crypto_stream_refuses_what_is_not_a_pair(weekend_replay):
    import asyncio

    import msgpack
    import websockets

    s = weekend_replay

    async def talk():
        async with websockets.connect(f"ws://127.0.0.1:{s.port}/v1beta3/crypto/us") as ws:
            assert msgpack.unpackb(await ws.recv())[0]["msg"] == "connected"
            await ws.send(msgpack.packb({"action": "auth", "key": s.key_id, "secret": s.secret}))
            assert msgpack.unpackb(await ws.recv())[0]["msg"] == "authenticated"
            await ws.send(msgpack.packb({"action": "subscribe", "trades": ["AAPL"]}))
            refusal = msgpack.unpackb(await ws.recv())[0]
            await ws.send(msgpack.packb({"action": "subscribe", "orderbooks": ["*"], "trades": ["ETH/USD"]}))
            while True:
                answer = msgpack.unpackb(await ws.recv())[0]
                if answer["T"] == "subscription":
                    return refusal, answer

    refusal, subscription = asyncio.run(asyncio.wait_for(talk(), 30))
    assert refusal["T"] == "error" and refusal["code"] == 400 and "AAPL" in refusal["msg"]
    assert subscription["orderbooks"] == ["*"] and subscription["trades"] == ["ETH/USD"]
    assert set(subscription) == {"T", "trades", "quotes", "orderbooks", "bars", "updatedBars", "dailyBars"}
    import requests
    streams = {w["path"]: w for w in requests.get(f"{s.url}/openapi.json", timeout=30).json()["x-websockets"]}
    assert "orderbooks" in streams["/v1beta3/crypto/{feed}"]["channels"], "the stream is in the API's document"


def test_coin_pairs_pay_in_tether_through_alpaca_py(client):
    """BTC/USDT as Alpaca's coin pairs trade: tether bought first with dollars (USDT/USD), then bitcoin paid for in
    tether; the positions are BTCUSD and USDTUSD, the account's cash moves only for the dollar pair, and the fee of
    each purchase is taken in the coin received."""
    pair = client.get_asset("BTC/USDT")
    assert pair.asset_class == AssetClass.CRYPTO and pair.tradable and not pair.marginable and not pair.shortable
    assert (pair.min_order_size, pair.min_trade_increment) == (0.0001, 0.0001)
    listed = {a.symbol for a in client.get_all_assets(GetAssetsRequest(asset_class=AssetClass.CRYPTO))}
    assert {"BTC/USDT", "ETH/USDT", "BTC/USDC", "ETH/BTC", "USDT/USD"} <= listed

    def refused(request):
        with pytest.raises(APIError) as e:
            client.submit_order(request)
        return e.value

    none = refused(MarketOrderRequest(symbol="BTC/USDT", qty=0.01, side=OrderSide.BUY, time_in_force=TimeInForce.GTC))
    assert none.status_code == 403 and "insufficient balance for USDT" in str(none)

    cash = Decimal(client.get_account().cash)
    tether = client.submit_order(MarketOrderRequest(symbol="USDT/USD", qty=20000, side=OrderSide.BUY,
                                                    time_in_force=TimeInForce.GTC))
    assert tether.status == OrderStatus.FILLED
    paid = (Decimal(tether.filled_qty) * Decimal(tether.filled_avg_price)).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert Decimal(client.get_account().cash) == cash - paid
    held = Decimal(client.get_open_position("USDTUSD").qty)
    assert held == Decimal("19950"), "20,000 less the 25 bps taker fee, in tether"

    cash = Decimal(client.get_account().cash)
    coin = client.submit_order(MarketOrderRequest(symbol="BTC/USDT", qty=0.1, side=OrderSide.BUY,
                                                  time_in_force=TimeInForce.GTC))
    assert coin.status == OrderStatus.FILLED and coin.symbol == "BTC/USDT" and coin.asset_class == AssetClass.CRYPTO
    price = Decimal(coin.filled_avg_price)
    assert Decimal(client.get_account().cash) == cash, "bitcoin bought with tether moves no dollars"
    positions = {p.symbol: p for p in client.get_all_positions()}
    assert Decimal(positions["USDTUSD"].qty) == held - price * Decimal("0.1")
    assert Decimal(positions["BTCUSD"].qty) == Decimal("0.09975"), "0.1 BTC less the taker fee, in bitcoin"
    fees = [a for a in client.get("/account/activities/CFEE") if a["order_id"] == str(coin.id)]
    assert fees and sum(Decimal(f["qty"]) for f in fees) == Decimal("-0.00025"), "one fee a fill, in bitcoin"

    # Selling bitcoin for tether: the proceeds less the fee land in the tether position; dollars still unmoved.
    sold = client.submit_order(LimitOrderRequest(symbol="BTC/USDT", qty=0.05, limit_price=1, side=OrderSide.SELL,
                                                 time_in_force=TimeInForce.IOC))
    assert sold.status == OrderStatus.FILLED
    fills = [a for a in client.get("/account/activities/FILL") if a["order_id"] == str(sold.id)]
    received = sum(Decimal(f["qty"]) for f in fills if f["symbol"] in ("USDTUSD", "USDT/USD"))
    assert received == Decimal(sold.filled_avg_price) * Decimal("0.05"), "one tether fill per execution, at the pair's price"
    fee_in_tether = -sum(Decimal(f["qty"]) for f in client.get("/account/activities/CFEE")
                         if f["order_id"] == str(sold.id))
    assert Decimal("0.0024") * received < fee_in_tether <= Decimal("0.0025") * received + Decimal("0.00000001")
    after = {p.symbol: Decimal(p.qty) for p in client.get_all_positions()}
    assert after["USDTUSD"] == Decimal(positions["USDTUSD"].qty) + received - fee_in_tether
    assert after["BTCUSD"] == Decimal("0.04975") and Decimal(client.get_account().cash) == cash

    notional = refused(MarketOrderRequest(symbol="BTC/USDT", notional=50, side=OrderSide.BUY,
                                          time_in_force=TimeInForce.GTC))
    assert notional.status_code == 422 and "instead of notional" in str(notional)
    too_much = refused(MarketOrderRequest(symbol="ETH/USDT", qty=100, side=OrderSide.BUY,
                                          time_in_force=TimeInForce.GTC))
    assert too_much.status_code == 403 and "insufficient balance for USDT" in str(too_much)
