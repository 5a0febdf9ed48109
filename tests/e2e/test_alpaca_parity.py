"""Alpaca endpoints beyond alpaca-py's common paths (issue 14): the asset list, activities by type with paging, the
whole calendar, the single-symbol latest data the older SDK calls, the screener and the code tables — driven by
alpaca-py's own clients (its typed methods where it has them, its REST client's get() where it has none)."""
import datetime

import pytest
from alpaca.common.exceptions import APIError
from alpaca.data.enums import MostActivesBy
from alpaca.data.historical import StockHistoricalDataClient
from alpaca.data.historical.screener import ScreenerClient
from alpaca.data.requests import MarketMoversRequest, MostActivesRequest
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import AssetExchange, AssetStatus, OrderSide, TimeInForce
from alpaca.trading.requests import GetAssetsRequest, GetCalendarRequest, MarketOrderRequest


@pytest.fixture(scope="module")
def client(server):
    return TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)


@pytest.fixture(scope="module")
def data(server):
    return StockHistoricalDataClient(server.key_id, server.secret, url_override=server.url)


@pytest.fixture(scope="module")
def screener(server):
    return ScreenerClient(server.key_id, server.secret, url_override=server.url)


def test_every_asset_is_listed_and_filters_narrow_it(client):
    everything = client.get_all_assets()
    assert len(everything) > 20_000
    symbols = {a.symbol for a in everything}
    assert {"AAPL", "MSFT", "SPY", "600519"} <= symbols
    nasdaq = client.get_all_assets(GetAssetsRequest(exchange=AssetExchange.NASDAQ))
    assert 0 < len(nasdaq) < len(everything)
    assert all(a.exchange == AssetExchange.NASDAQ for a in nasdaq)
    assert "AAPL" in {a.symbol for a in nasdaq} and "SPY" not in {a.symbol for a in nasdaq}
    assert client.get_all_assets(GetAssetsRequest(status=AssetStatus.INACTIVE)) == []
    fractional = client.get_all_assets(GetAssetsRequest(attributes="fractional_eh_enabled"))
    assert fractional and all(a.fractionable for a in fractional)
    # An asset is found by its id as well as its symbol.
    aapl = client.get_asset("AAPL")
    assert client.get_asset(aapl.id).symbol == "AAPL"
    with pytest.raises(APIError) as bad:
        client.get("/assets", {"status": "sleeping"})
    assert bad.value.status_code == 422


def test_activities_by_type_with_paging(client):
    for _ in range(3):
        client.submit_order(MarketOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    fills = client.get("/account/activities/FILL")
    assert len(fills) >= 3 and all(a["activity_type"] == "FILL" for a in fills)
    assert client.get("/account/activities", {"activity_types": "FILL"}) == fills
    assert client.get("/account/activities/DIV") == []  # a type Alpaca has that has not happened here
    non_trade = client.get("/account/activities", {"category": "non_trade_activity"})
    assert all(a["activity_type"] != "FILL" for a in non_trade)
    # Pages of two, newest first, continue where the last one ended and never repeat.
    first = client.get("/account/activities/FILL", {"page_size": 2})
    second = client.get("/account/activities/FILL", {"page_size": 2, "page_token": first[-1]["id"]})
    assert [a["id"] for a in first + second] == [a["id"] for a in fills[:4]]
    ascending = client.get("/account/activities/FILL", {"direction": "asc"})
    assert [a["id"] for a in ascending] == [a["id"] for a in reversed(fills)]
    after = client.get("/account/activities/FILL", {"after": "2000-01-01T00:00:00Z", "until": "2100-01-01T00:00:00Z"})
    assert after == fills
    assert client.get("/account/activities/FILL", {"until": "2000-01-01T00:00:00Z"}) == []
    for params, path in [({}, "/account/activities/NOPE"), ({"page_token": "junk"}, "/account/activities"),
                         ({"date": "yesterday"}, "/account/activities"), ({"direction": "up"}, "/account/activities")]:
        with pytest.raises(APIError) as bad:
            client.get(path, params)
        assert bad.value.status_code == 422, (path, params)


def test_the_calendar_without_dates_is_the_whole_table(client):
    days = client.get_calendar()
    assert days[0].date == datetime.date(1970, 1, 2)
    assert days[-1].date.year == datetime.date.today().year + 1
    assert len(days) > 14_000
    assert datetime.date(2024, 12, 25) not in {d.date for d in days}
    july = client.get_calendar(GetCalendarRequest(start=datetime.date(2025, 7, 1), end=datetime.date(2025, 7, 7)))
    assert [d.date.day for d in july] == [1, 2, 3, 7]
    assert july[2].close.hour == 13  # the early close before Independence Day


def test_single_symbol_latest_data(data):
    bar = data.get("/stocks/AAPL/bars/latest")
    assert bar["symbol"] == "AAPL" and bar["bar"]["c"] > 0
    quote = data.get("/stocks/AAPL/quotes/latest")
    assert quote["symbol"] == "AAPL" and 0 < quote["quote"]["bp"] <= quote["quote"]["ap"]
    trade = data.get("/stocks/aapl/trades/latest")
    assert trade["symbol"] == "AAPL" and trade["trade"]["p"] > 0
    with pytest.raises(APIError) as missing:
        data.get("/stocks/NOSUCH/quotes/latest")
    assert missing.value.status_code == 404


def test_screener_most_actives_and_movers(screener):
    actives = screener.get_most_actives(MostActivesRequest(top=5))
    assert len(actives.most_actives) == 5
    volumes = [a.volume for a in actives.most_actives]
    assert volumes == sorted(volumes, reverse=True) and volumes[0] > 0
    by_trades = screener.get_most_actives(MostActivesRequest(top=5, by=MostActivesBy.TRADES))
    counts = [a.trade_count for a in by_trades.most_actives]
    assert counts == sorted(counts, reverse=True)
    movers = screener.get_market_movers(MarketMoversRequest(top=3))
    assert len(movers.gainers) == 3 and len(movers.losers) == 3
    assert movers.gainers[0].percent_change >= movers.gainers[-1].percent_change
    assert movers.losers[0].percent_change <= movers.losers[-1].percent_change
    with pytest.raises(APIError) as bad:
        screener.get("/screener/stocks/movers", {"top": 500})
    assert bad.value.status_code == 422


def test_exchange_and_condition_codes(data):
    exchanges = data.get("/stocks/meta/exchanges")
    assert exchanges["V"] == "IEX" and exchanges["N"] == "New York Stock Exchange"
    trade_conditions = data.get("/stocks/meta/conditions/trade", {"tape": "A"})
    assert trade_conditions["@"] == "Regular Sale"
    assert "R" in data.get("/stocks/meta/conditions/quote", {"tape": "C"})
    with pytest.raises(APIError):
        data.get("/stocks/meta/conditions/bars")
