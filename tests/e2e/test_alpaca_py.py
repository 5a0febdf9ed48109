"""alpaca-py, unchanged, against papertrade (url_override): the Alpaca-compatible surface end to end."""
import datetime
import uuid

import pytest
from alpaca.common.exceptions import APIError
from alpaca.data.historical import StockHistoricalDataClient
from alpaca.data.requests import StockBarsRequest, StockLatestQuoteRequest, StockSnapshotRequest
from alpaca.data.timeframe import TimeFrame
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderClass, OrderSide, OrderStatus, QueryOrderStatus, TimeInForce
from alpaca.trading.requests import (ClosePositionRequest, CreateWatchlistRequest, GetCalendarRequest,
                                     GetOrdersRequest, GetPortfolioHistoryRequest, LimitOrderRequest,
                                     MarketOrderRequest, ReplaceOrderRequest, StopLimitOrderRequest,
                                     StopLossRequest, StopOrderRequest, TakeProfitRequest,
                                     TrailingStopOrderRequest, UpdateWatchlistRequest)


@pytest.fixture(scope="module")
def client(server):
    return TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)


@pytest.fixture(scope="module")
def data(server):
    return StockHistoricalDataClient(server.key_id, server.secret, url_override=server.url)


def test_account_starts_with_100k(client):
    account = client.get_account()
    assert account.status == "ACTIVE"
    assert float(account.cash) == 100_000


def test_market_order_fills_and_moves_cash(client):
    before = float(client.get_account().cash)
    order = client.submit_order(MarketOrderRequest(symbol="AAPL", qty=3, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert order.status == OrderStatus.FILLED
    assert float(order.filled_qty) == 3
    after = float(client.get_account().cash)
    assert after == pytest.approx(before - 3 * float(order.filled_avg_price), abs=0.01)
    assert float(client.get_open_position("AAPL").qty) >= 3


def test_every_order_type(client):
    price = float(client.get_open_position("AAPL").current_price)
    limit = client.submit_order(LimitOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.GTC,
                                                  limit_price=round(price / 10, 2)))
    assert limit.status == OrderStatus.NEW
    stop = client.submit_order(StopOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.GTC,
                                                stop_price=round(price * 0.5, 2)))
    assert stop.status == OrderStatus.NEW
    stop_limit = client.submit_order(StopLimitOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.GTC,
                                                           stop_price=round(price * 0.5, 2), limit_price=round(price * 0.49, 2)))
    assert stop_limit.type == "stop_limit"
    trailing = client.submit_order(TrailingStopOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL,
                                                            time_in_force=TimeInForce.DAY, trail_percent=1.5))
    assert trailing.hwm is not None and float(trailing.stop_price) < float(trailing.hwm)
    notional = client.submit_order(MarketOrderRequest(symbol="AAPL", notional=1000.5, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert 0 < float(notional.filled_qty) < 10
    bracket = client.submit_order(LimitOrderRequest(symbol="KO", qty=5, side=OrderSide.BUY, time_in_force=TimeInForce.GTC,
                                                    limit_price=1.25, order_class=OrderClass.BRACKET,
                                                    take_profit=TakeProfitRequest(limit_price=160.0),
                                                    stop_loss=StopLossRequest(stop_price=1.0, limit_price=0.99)))
    assert len(bracket.legs) == 2 and all(leg.status == OrderStatus.HELD for leg in bracket.legs)
    for o in (limit, stop, stop_limit, trailing, bracket):
        client.cancel_order_by_id(o.id)


def test_rejections_use_alpacas_messages(client):
    with pytest.raises(APIError) as e:
        client.submit_order(LimitOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY,
                                              limit_price=290.123))
    assert "sub-penny increment" in str(e.value)
    with pytest.raises(APIError) as e:
        client.submit_order(MarketOrderRequest(symbol="AAPL", qty=100000, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert "insufficient buying power" in str(e.value)
    cid = "dup-" + uuid.uuid4().hex
    client.submit_order(LimitOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.GTC,
                                          limit_price=1.0, client_order_id=cid))
    with pytest.raises(APIError) as e:
        client.submit_order(LimitOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.GTC,
                                              limit_price=1.0, client_order_id=cid))
    assert "client_order_id must be unique" in str(e.value)
    client.cancel_order_by_id(client.get_order_by_client_id(cid).id)


def test_replace_cancel_and_queries(client):
    order = client.submit_order(LimitOrderRequest(symbol="AAPL", qty=2, side=OrderSide.BUY, time_in_force=TimeInForce.GTC,
                                                  limit_price=1.5, client_order_id="rep-" + uuid.uuid4().hex))
    new = client.replace_order_by_id(order.id, ReplaceOrderRequest(qty=3, limit_price=1.6))
    assert str(new.replaces) == str(order.id)
    assert client.get_order_by_id(order.id).status == OrderStatus.REPLACED
    listed = client.get_orders(GetOrdersRequest(status=QueryOrderStatus.ALL, limit=100, nested=True, symbols=["AAPL", "MSFT"],
                                                after=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)))
    assert any(str(o.id) == str(new.id) for o in listed)
    client.cancel_order_by_id(new.id)
    assert client.get_order_by_id(new.id).status == OrderStatus.CANCELED
    client.submit_order(LimitOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.GTC, limit_price=1.5))
    results = client.cancel_orders()
    assert all(r.status == 200 for r in results)
    assert client.get_orders() == []


def test_positions_close(client):
    client.submit_order(MarketOrderRequest(symbol="NVDA", qty=4, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    half = client.close_position("NVDA", ClosePositionRequest(percentage="50"))
    assert float(half.qty) == 2
    assert float(client.get_open_position("NVDA").qty) == 2
    client.close_all_positions(cancel_orders=True)
    assert client.get_all_positions() == []


def test_assets_clock_calendar_configurations(client):
    assert client.get_asset("AAPL").exchange == "NASDAQ"
    moutai = client.get_asset("600519")
    assert moutai.exchange == "" and "exchange:SSE" in moutai.attributes
    assert client.get_clock().is_open  # the e2e server runs the always-open clock
    days = client.get_calendar(GetCalendarRequest(start=datetime.date(2026, 11, 23), end=datetime.date(2026, 11, 27)))
    assert [d.date.isoformat() for d in days] == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-27"]
    assert days[-1].close.strftime("%H:%M") == "13:00"
    config = client.get_account_configurations()
    config.trade_confirm_email = "none"
    assert client.set_account_configurations(config).trade_confirm_email == "none"


def test_watchlists(client):
    name = "wl-" + uuid.uuid4().hex[:8]
    w = client.create_watchlist(CreateWatchlistRequest(name=name, symbols=["AAPL", "MSFT"]))
    assert [a.symbol for a in w.assets] == ["AAPL", "MSFT"]
    assert [a.symbol for a in client.add_asset_to_watchlist_by_id(w.id, "NVDA").assets] == ["AAPL", "MSFT", "NVDA"]
    assert [a.symbol for a in client.remove_asset_from_watchlist_by_id(w.id, "MSFT").assets] == ["AAPL", "NVDA"]
    assert client.update_watchlist_by_id(w.id, UpdateWatchlistRequest(name=name + "x", symbols=["KO"])).name == name + "x"
    client.delete_watchlist_by_id(w.id)
    assert all(str(x.id) != str(w.id) for x in client.get_watchlists())


def test_activities_and_portfolio_history(client):
    activities = client.get("/account/activities")
    assert any(a["activity_type"] == "FILL" for a in activities)
    history = client.get_portfolio_history(GetPortfolioHistoryRequest(period="1W", timeframe="1D"))
    assert len(history.timestamp) == len(history.equity) > 0


def test_market_data(data):
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=20)
    bars = data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL", "MSFT"], timeframe=TimeFrame.Day, start=start))
    assert len(bars.data["AAPL"]) >= 10 and len(bars.data["MSFT"]) >= 10
    minute = data.get_stock_bars(StockBarsRequest(symbol_or_symbols="AAPL", timeframe=TimeFrame.Minute,
                                                  start=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=30)))
    assert len(minute.data["AAPL"]) > 1000  # paginated: more than one page of 1,000
    quote = data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols="AAPL"))["AAPL"]
    assert quote.ask_price > quote.bid_price > 0
    snapshot = data.get_stock_snapshot(StockSnapshotRequest(symbol_or_symbols="AAPL"))["AAPL"]
    assert snapshot.daily_bar.high >= snapshot.daily_bar.low
