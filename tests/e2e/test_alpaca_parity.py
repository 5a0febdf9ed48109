"""Alpaca endpoints beyond alpaca-py's common paths (issue 14): the asset list, activities by type with paging, the
whole calendar and the v3 clock and calendar, historical trades, quotes and auctions, the single-symbol latest data the
older SDK calls, the screener and the code tables — driven by
alpaca-py's own clients (its typed methods where it has them, its REST client's get() where it has none)."""
import datetime
from decimal import Decimal

import pytest
from alpaca.common.exceptions import APIError
from alpaca.data.enums import Adjustment, MostActivesBy
from alpaca.data.historical.corporate_actions import CorporateActionsClient
from alpaca.data.historical.news import NewsClient
from alpaca.data.historical import StockHistoricalDataClient
from alpaca.data.historical.screener import ScreenerClient
from alpaca.data.requests import (CorporateActionsRequest, MarketMoversRequest, MostActivesRequest, NewsRequest,
                                 StockBarsRequest, StockQuotesRequest, StockTradesRequest)
from alpaca.data.timeframe import TimeFrame
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import (AssetExchange, AssetStatus, CorporateActionDateType, CorporateActionSubType,
                                  CorporateActionType, OrderSide, OrderStatus, PositionIntent, PositionSide, TimeInForce)
from alpaca.trading.requests import (GetAssetsRequest, GetCalendarRequest, GetCorporateAnnouncementsRequest,
                                     MarketOrderRequest)


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


def last_session(client):
    """The date and opening time (UTC) of the last whole US session before today, from the server's calendar."""
    today = datetime.date.today()
    week = client.get("/calendar/NYSE", {"start": (today - datetime.timedelta(days=10)).isoformat(),
                                         "end": today.isoformat(), "timezone": "UTC"}, api_version="v3")
    day = [d for d in week["calendar"] if d["date"] < today.isoformat()][-1]
    return datetime.date.fromisoformat(day["date"]), datetime.datetime.fromisoformat(day["core_start"])


def test_historical_trades_and_quotes_page_through_a_session(client, data):
    _, start = last_session(client)
    end = start + datetime.timedelta(minutes=30)
    trades = data.get_stock_trades(StockTradesRequest(symbol_or_symbols=["AAPL", "600519"], start=start, end=end))
    aapl = trades.data["AAPL"]
    assert 30 <= len(aapl) <= 30 * 6  # one to six prints a minute
    times = [t.timestamp for t in aapl]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert start <= times[0] and times[-1] < end
    # Every print lies inside its minute's bar.
    bars = data.get_stock_bars(StockBarsRequest(symbol_or_symbols="AAPL", timeframe=TimeFrame.Minute, start=start,
                                                end=end)).data["AAPL"]
    by_minute = {b.timestamp: b for b in bars}
    for t in aapl:
        bar = by_minute[t.timestamp.replace(second=0, microsecond=0)]
        assert bar.low <= t.price <= bar.high and t.size > 0
    # The same session pages by `limit` and `page_token` without losing or repeating a print, across symbols too.
    params = {"symbols": "AAPL,600519", "start": start.isoformat(), "end": end.isoformat(), "limit": 7}
    paged, token = {}, None
    while True:
        page = data.get("/stocks/trades", dict(params, **({"page_token": token} if token else {})))
        assert sum(len(v) for v in page["trades"].values()) <= 7
        for symbol, items in page["trades"].items():
            paged.setdefault(symbol, []).extend(items)
        token = page["next_page_token"]
        if not token:
            break
    assert [t["i"] for t in paged["AAPL"]] == [t.id for t in aapl]
    assert len(paged["600519"]) == len(trades.data["600519"])
    newest = data.get("/stocks/AAPL/trades", dict(params, symbols=None, sort="desc", limit=3))
    assert newest["symbol"] == "AAPL" and [t["i"] for t in newest["trades"]] == [t.id for t in aapl[-3:]][::-1]
    # Quotes: a best bid below the best offer after each print, as deterministic as the prints.
    quotes = data.get_stock_quotes(StockQuotesRequest(symbol_or_symbols="AAPL", start=start, end=end)).data["AAPL"]
    assert len(quotes) == len(aapl)
    assert all(0 < q.bid_price < q.ask_price and q.bid_size > 0 and q.ask_size > 0 for q in quotes)
    again = data.get_stock_quotes(StockQuotesRequest(symbol_or_symbols="AAPL", start=start, end=end)).data["AAPL"]
    assert again == quotes
    for bad in [{"sort": "sideways"}, {"limit": 0}, {"feed": "nasdaq"}, {"page_token": "nonsense"},
                {"start": "yesterday"}, {"start": end.isoformat(), "end": start.isoformat()}]:
        with pytest.raises(APIError) as refused:
            data.get("/stocks/quotes", dict(params, **bad))
        assert refused.value.status_code == 422, bad
    with pytest.raises(APIError) as missing:
        data.get("/stocks/NOSUCH/trades")
    assert missing.value.status_code == 404


def test_auctions_are_the_sessions_official_open_and_close(client, data):
    day, _ = last_session(client)
    start = (day - datetime.timedelta(days=14)).isoformat()
    end = (day + datetime.timedelta(days=1)).isoformat()
    answer = data.get("/stocks/auctions", {"symbols": "AAPL,IBM", "start": start, "end": end})
    aapl, ibm = answer["auctions"]["AAPL"], answer["auctions"]["IBM"]
    assert aapl[-1]["d"] == day.isoformat() and 8 <= len(aapl) <= 11
    assert aapl[-1]["o"][0]["x"] == "Q" and ibm[-1]["o"][0]["x"] == "N"  # the listing exchanges' crosses
    daily = data.get_stock_bars(StockBarsRequest(symbol_or_symbols="AAPL", timeframe=TimeFrame.Day,
                                                 start=datetime.datetime.fromisoformat(start))).data["AAPL"]
    closes = {b.timestamp.date().isoformat(): (b.open, b.close) for b in daily}
    for a in aapl:
        assert a["o"][0]["p"] == closes[a["d"]][0]
        # A day still trading has no closing cross yet: this server's always-open clock trades the New York day to
        # midnight, so from 00:00 to 05:00 UTC "the last session before today" is still under way.
        if a["c"]:
            assert a["c"][0]["p"] == closes[a["d"]][1]
    assert all(a["c"] for a in aapl[:-1]), "every earlier session has its closing cross"
    single = data.get("/stocks/AAPL/auctions", {"start": start, "end": end, "limit": 2, "sort": "desc"})
    assert [a["d"] for a in single["auctions"]] == [a["d"] for a in aapl[-2:]][::-1] and single["next_page_token"]


def test_v3_clock_and_calendar_cover_both_markets(client):
    answer = client.get("/clock", {"markets": "NYSE,XSHG"}, api_version="v3")
    nyse, shanghai = answer["clocks"]
    assert nyse["market"]["mic"] == "XNYS" and nyse["market"]["timezone"] == "America/New_York"
    assert shanghai["market"]["timezone"] == "Asia/Shanghai"
    for c in (nyse, shanghai):
        assert c["phase"] in {"closed", "pre", "open", "lunch", "post"}
        at = datetime.datetime.fromisoformat(c["timestamp"])
        assert at < datetime.datetime.fromisoformat(c["phase_until"])
        assert at < datetime.datetime.fromisoformat(c["next_market_open"])
    v2 = client.get_clock()
    assert nyse["next_market_open"][:16] == v2.next_open.isoformat()[:16]
    # A moment in a known session: 10:00 in Shanghai on a Monday is morning trading until the 11:30 break.
    monday = client.get("/clock", {"markets": "SSE", "time": "2025-03-03T02:00:00Z"}, api_version="v3")["clocks"][0]
    assert monday["phase"] == "open" and monday["phase_until"] == "2025-03-03T11:30:00+08:00"
    assert monday["is_market_day"] and monday["next_market_close"] == "2025-03-03T15:00:00+08:00"
    lunch = client.get("/clock", {"markets": "SSE", "time": "2025-03-03T04:00:00Z"}, api_version="v3")["clocks"][0]
    assert lunch["phase"] == "lunch" and lunch["phase_until"] == "2025-03-03T13:00:00+08:00"
    saturday = client.get("/clock", {"time": "2025-03-08T15:00:00Z"}, api_version="v3")["clocks"][0]
    assert saturday["phase"] == "closed" and not saturday["is_market_day"]
    assert saturday["next_market_open"] == "2025-03-10T09:30:00-04:00"  # daylight saving began that Sunday
    week = client.get("/calendar/NYSE", {"start": "2025-07-01", "end": "2025-07-07"}, api_version="v3")
    assert [d["date"] for d in week["calendar"]] == ["2025-07-01", "2025-07-02", "2025-07-03", "2025-07-07"]
    assert week["calendar"][2]["core_end"] == "2025-07-03T13:00:00-04:00"
    assert week["calendar"][0]["pre_start"] == "2025-07-01T04:00:00-04:00"
    assert week["calendar"][0]["post_end"] == "2025-07-01T20:00:00-04:00"
    utc = client.get("/calendar/XNYS", {"start": "2025-07-01", "end": "2025-07-01", "timezone": "UTC"},
                     api_version="v3")
    assert utc["calendar"][0]["core_start"] == "2025-07-01T13:30:00Z"
    china = client.get("/calendar/XSHG", {"start": "2025-10-01", "end": "2025-10-10"}, api_version="v3")
    assert [d["date"] for d in china["calendar"]] == ["2025-10-09", "2025-10-10"]  # the National Day holiday
    assert china["calendar"][0]["lunch_start"] == "2025-10-09T11:30:00+08:00" and "post_start" not in china["calendar"][0]
    for path, params in [("/clock", {"markets": "LSE"}), ("/clock", {"time": "noon"}),
                         ("/calendar/NOWHERE", {}), ("/calendar/NYSE", {"timezone": "Europe/Paris"})]:
        with pytest.raises(APIError) as bad:
            client.get(path, params, api_version="v3")
        assert bad.value.status_code == 422, (path, params)


def test_new_us_accounts_are_margin_accounts(client):
    """alpaca-py reads the Reg T figures of a new account: 2× equity to spend, and they follow what it holds."""
    account = client.get_account()
    assert account.multiplier in ("2", "4") and Decimal(account.equity) >= 25_000
    # Exact figures: the API's decimal strings, compared as decimals (never binary floats).
    assert Decimal(account.regt_buying_power) == 2 * (Decimal(account.equity) - Decimal(account.initial_margin))
    assert Decimal(account.buying_power) <= Decimal(account.regt_buying_power)
    assert Decimal(account.maintenance_margin) <= Decimal(account.initial_margin)
    config = client.get_account_configurations()
    assert config.max_margin_multiplier == "4"
    # Trading as cash and back, through the configurations alpaca-py PATCHes whole.
    config.max_margin_multiplier = "1"
    assert client.set_account_configurations(config).max_margin_multiplier == "1"
    cash_like = client.get_account()
    assert cash_like.multiplier == "1" and Decimal(cash_like.buying_power) <= max(Decimal(cash_like.cash), 0)
    config.max_margin_multiplier = "4"
    client.set_account_configurations(config)
    assert client.get_account().multiplier in ("2", "4")
    with pytest.raises(APIError) as bad:
        client.patch("/account/configurations", {"max_margin_multiplier": "3"})
    assert bad.value.status_code == 422


def test_short_sale_and_cover(client):
    """alpaca-py sells short on the (margin) account, reads the short position and the account's short figures, is
    refused a name that cannot be borrowed and a buy larger than the short, and closes the short by buying it back."""
    nvda, amzn, pltr = client.get_asset("NVDA"), client.get_asset("AMZN"), client.get_asset("PLTR")
    assert nvda.shortable and nvda.easy_to_borrow and nvda.marginable
    assert amzn.shortable and not amzn.easy_to_borrow  # hard to borrow: a nightly fee while short
    assert not pltr.shortable
    order = client.submit_order(MarketOrderRequest(symbol="NVDA", qty=10, side=OrderSide.SELL,
                                                   time_in_force=TimeInForce.DAY))
    assert order.position_intent == PositionIntent.SELL_TO_OPEN
    assert client.get_order_by_id(order.id).status == OrderStatus.FILLED
    position = client.get_open_position("NVDA")
    assert position.side == PositionSide.SHORT and Decimal(position.qty) == -10
    assert Decimal(position.market_value) < 0 and Decimal(position.cost_basis) < 0
    account = client.get_account()
    assert account.shorting_enabled
    assert Decimal(account.short_market_value) == Decimal(position.market_value)
    assert Decimal(account.equity) == Decimal(account.cash) + Decimal(account.long_market_value) \
        + Decimal(account.short_market_value)
    with pytest.raises(APIError) as refused:
        client.submit_order(MarketOrderRequest(symbol="PLTR", qty=1, side=OrderSide.SELL,
                                               time_in_force=TimeInForce.DAY))
    assert refused.value.status_code == 422 and "not shortable" in str(refused.value)
    with pytest.raises(APIError) as refused:
        client.submit_order(MarketOrderRequest(symbol="NVDA", qty=15, side=OrderSide.BUY,
                                               time_in_force=TimeInForce.DAY))
    assert refused.value.status_code == 403 and "cover the 10 shares short" in str(refused.value)
    cover = client.close_position("NVDA")
    assert cover.side == OrderSide.BUY and Decimal(cover.qty) == 10
    assert cover.position_intent == PositionIntent.BUY_TO_CLOSE
    assert "NVDA" not in {p.symbol for p in client.get_all_positions()}


def test_corporate_actions_announced_served_and_in_adjusted_bars(server, client, data):
    """alpaca-py reads the simulated market's dividends and splits through both APIs (the Trading API's announcements
    and the Market Data API's corporate actions) and restates bars across a split with adjustment=split."""
    today = datetime.date.today()
    window = GetCorporateAnnouncementsRequest(ca_types=[CorporateActionType.DIVIDEND, CorporateActionType.SPLIT],
                                              since=today - datetime.timedelta(days=85), until=today)
    with pytest.warns(DeprecationWarning):
        announcements = client.get_corporate_announcements(window)
    assert {a.ca_type for a in announcements} == {CorporateActionType.DIVIDEND, CorporateActionType.SPLIT}
    assert all(a.declaration_date <= today and window.since <= a.ex_date <= today for a in announcements)
    assert [a.ex_date for a in announcements] == sorted(a.ex_date for a in announcements)
    dividend = next(a for a in announcements if a.ca_sub_type == CorporateActionSubType.CASH)
    assert dividend.cash > 0 and dividend.record_date >= dividend.ex_date > dividend.declaration_date
    assert client.get_corporate_announcement_by_id(dividend.id).corporate_action_id == dividend.corporate_action_id
    split = next(a for a in announcements if a.ca_sub_type == CorporateActionSubType.STOCK_SPLIT)
    assert split.new_rate > split.old_rate

    actions = CorporateActionsClient(server.key_id, server.secret, url_override=server.url).get_corporate_actions(
        CorporateActionsRequest(symbols=[split.initiating_symbol], start=split.ex_date, end=split.ex_date))
    forward = actions.data["forward_splits"]
    assert [(f.symbol, f.ex_date, f.new_rate, f.old_rate) for f in forward] == \
        [(split.initiating_symbol, split.ex_date, split.new_rate, split.old_rate)]

    def closes(adjustment):
        bars = data.get_stock_bars(StockBarsRequest(
            symbol_or_symbols=split.initiating_symbol, timeframe=TimeFrame.Day, adjustment=adjustment,
            start=datetime.datetime.combine(split.ex_date - datetime.timedelta(days=3), datetime.time()),
            end=datetime.datetime.combine(split.ex_date + datetime.timedelta(days=2), datetime.time())))
        return {b.timestamp.date(): Decimal(str(b.close)) for b in bars[split.initiating_symbol]}
    raw, adjusted = closes(Adjustment.RAW), closes(Adjustment.SPLIT)
    before = max(d for d in raw if d < split.ex_date)
    factor = Decimal(str(split.old_rate)) / Decimal(str(split.new_rate))
    assert abs(adjusted[before] - raw[before] * factor) <= Decimal("0.0001")
    assert all(adjusted[d] == raw[d] for d in raw if d >= split.ex_date)

    for params in [{"ca_types": "dividend", "since": str(today - datetime.timedelta(days=91)), "until": str(today)},
                   {"ca_types": "bonus", "since": str(today), "until": str(today)},
                   {"ca_types": "dividend", "since": "yesterday", "until": str(today)}]:
        with pytest.raises(APIError) as bad:
            client.get("/corporate_actions/announcements", params)
        assert bad.value.status_code == 422, params
    with pytest.raises(APIError) as missing:
        client.get("/corporate_actions/announcements/00000000-0000-4000-8000-000000000000")
    assert missing.value.status_code == 404


def test_news_of_the_simulated_market_announce_its_corporate_actions(server, client):
    """alpaca-py's NewsClient reads the simulated market's news: each dividend is announced on its declaration day."""
    today = datetime.date.today()
    with pytest.warns(DeprecationWarning):
        declared = client.get_corporate_announcements(GetCorporateAnnouncementsRequest(
            ca_types=[CorporateActionType.DIVIDEND], since=today - datetime.timedelta(days=60), until=today,
            date_type=CorporateActionDateType.DECLARATION_DATE))
    dividend = next(a for a in declared if a.ca_sub_type == CorporateActionSubType.CASH
                    and a.initiating_symbol.isalpha())
    news = NewsClient(server.key_id, server.secret, url_override=server.url).get_news(NewsRequest(
        symbols=dividend.initiating_symbol, include_content=True,
        start=datetime.datetime.combine(today - datetime.timedelta(days=60), datetime.time())))
    items = [n for n in news.data["news"] if n.created_at.date() == dividend.declaration_date]
    assert len(items) == 1 and items[0].symbols == [dividend.initiating_symbol]
    assert f"dividend of ${dividend.cash:.2f} per share" in items[0].headline
    assert str(dividend.ex_date) in items[0].content
    with pytest.raises(APIError) as bad:
        client.get("/news", {"limit": "500"}, api_version="v1beta1")
    assert bad.value.status_code == 422
