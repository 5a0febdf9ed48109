"""Crypto through alpaca-py's TradingClient, unchanged: on a Saturday (a manual clock started on 21 November 2026)
bitcoin fills while a stock's market order waits for Monday; pairs are listed as Alpaca lists them; positions show
`BTCUSD`; Alpaca's refusals for crypto come back with Alpaca's words."""
import shutil

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

    positions = {p.symbol: p for p in client.get_all_positions()}
    assert set(positions) == {"BTCUSD", "ETHUSD"}, "Alpaca lists crypto positions without the slash"
    assert float(positions["BTCUSD"].qty) == 0.0125 and positions["BTCUSD"].asset_class == AssetClass.CRYPTO
    assert float(client.get_open_position("BTC/USD").qty) == 0.0125
    # Half the position, in the pair's steps; then the rest.
    half = client.close_position("BTC/USD", ClosePositionRequest(percentage="50"))
    assert float(half.qty) == 0.0062
    client.close_position("BTCUSD")
    assert {p.symbol for p in client.get_all_positions()} == {"ETHUSD"}
    mine = client.get_orders(GetOrdersRequest(status=QueryOrderStatus.ALL, symbols=["BTC/USD"]))
    assert sorted(float(o.qty) for o in mine) == [0.0062, 0.0063, 0.0125]


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
