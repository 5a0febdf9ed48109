"""Trading options through alpaca-py, unchanged: a call bought at the quoted ask and sold to close at the bid, with the
premium times the contract's 100 shares moving cash; positions and orders as `us_option` with the contract's id; a
resting limit order holding options buying power until it is canceled; Alpaca's option order rules; the options
trading level an account configuration lowers; an option position surviving a restart."""
import datetime
import decimal

import pytest
import requests
from alpaca.common.exceptions import APIError
from alpaca.data.historical.option import OptionHistoricalDataClient
from alpaca.data.requests import OptionChainRequest
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import (AssetClass, ContractType, OrderClass, OrderSide, OrderStatus, PositionIntent,
                                  TimeInForce)
from alpaca.trading.requests import (GetOptionContractsRequest, LimitOrderRequest, MarketOrderRequest,
                                     TrailingStopOrderRequest)

from conftest import Server

D = decimal.Decimal
HUNDRED = D(100)


@pytest.fixture(scope="module")
def client(server):
    return TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)


@pytest.fixture(scope="module")
def data(server):
    return OptionHistoricalDataClient(server.key_id, server.secret, url_override=server.url)


def near_the_money_call(client, data, underlying="AAPL", type=ContractType.CALL):
    """A call (or put) of the nearest expiration at least a week out whose strike is closest to the underlying's
    price, with a bid (a contract someone would buy)."""
    start = datetime.date.today() + datetime.timedelta(days=7)
    contracts = client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=[underlying], type=type, expiration_date_gte=start,
        expiration_date_lte=start + datetime.timedelta(days=14), limit=500)).option_contracts
    expiration = min(c.expiration_date for c in contracts)
    chain = data.get_option_chain(OptionChainRequest(underlying_symbol=underlying, expiration_date=expiration,
                                                     type=type))
    quoted = [s for s in chain.values() if s.latest_quote.bid_price > 0]
    return min(quoted, key=lambda s: abs(abs(s.greeks.delta) - 0.5)).symbol


def money(value):
    return D(str(value))


def headers(server):
    return {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}


def test_a_call_is_bought_at_the_ask_and_sold_at_the_bid_with_the_premium_times_100_moving_cash(client, data, server):
    symbol = near_the_money_call(client, data)
    contract = client.get_option_contract(symbol)
    cash_before = money(client.get_account().cash)

    bought = client.submit_order(MarketOrderRequest(symbol=symbol, qty=2, side=OrderSide.BUY,
                                                    time_in_force=TimeInForce.DAY,
                                                    position_intent=PositionIntent.BUY_TO_OPEN))
    bought = client.get_order_by_id(bought.id)
    assert bought.status == OrderStatus.FILLED
    assert bought.asset_class == AssetClass.US_OPTION and str(bought.asset_id) == contract.id
    assert bought.position_intent == PositionIntent.BUY_TO_OPEN
    premium = money(bought.filled_avg_price)
    # Every fill on the Penny Program's grid: cents below $3, nickels from $3 (AAPL is not a penny-everywhere class).
    # Two contracts fill at once even when the ask shows one: the order walks the book behind it.
    fills = [a for a in requests.get(f"{server.url}/v2/account/activities/FILL", headers=headers(server)).json()
             if a["order_id"] == str(bought.id)]
    assert sum(money(f["qty"]) for f in fills) == 2
    for fill in fills:
        price = money(fill["price"])
        assert price % (D("0.05") if price >= 3 else D("0.01")) == 0, fill

    [position] = [p for p in client.get_all_positions() if p.symbol == symbol]
    assert position.asset_class == AssetClass.US_OPTION and str(position.asset_id) == contract.id
    assert position.exchange.value == "" and money(position.qty) == 2 and position.side.value == "long"
    assert money(position.avg_entry_price) == premium
    assert money(position.cost_basis) == premium * 2 * HUNDRED
    assert money(position.market_value) == money(position.current_price) * 2 * HUNDRED
    account = client.get_account()
    # Buying pays no fee: cash fell by exactly the premium of 200 shares.
    assert money(account.cash) == cash_before - premium * 2 * HUNDRED
    assert money(account.equity) == money(account.cash) + money(position.market_value)

    sold = client.submit_order(MarketOrderRequest(symbol=symbol, qty=2, side=OrderSide.SELL,
                                                  time_in_force=TimeInForce.DAY,
                                                  position_intent=PositionIntent.SELL_TO_CLOSE))
    sold = client.get_order_by_id(sold.id)
    assert sold.status == OrderStatus.FILLED and sold.position_intent == PositionIntent.SELL_TO_CLOSE
    proceeds = money(sold.filled_avg_price) * 2 * HUNDRED
    fees = [a for a in requests.get(f"{server.url}/v2/account/activities/FEE", headers=headers(server)).json()
            if a.get("symbol") == symbol]
    fee = sum((-money(a["net_amount"]) for a in fees), D(0))
    assert money(client.get_account().cash) == cash_before - premium * 2 * HUNDRED + proceeds - fee
    assert not [p for p in client.get_all_positions() if p.symbol == symbol]


def test_a_resting_limit_order_holds_options_buying_power_until_it_is_canceled(client, data):
    symbol = near_the_money_call(client, data, "MSFT")
    before = money(client.get_account().options_buying_power)
    order = client.submit_order(LimitOrderRequest(symbol=symbol, qty=3, side=OrderSide.BUY, limit_price=0.05,
                                                  time_in_force=TimeInForce.GTC))
    assert client.get_order_by_id(order.id).status in (OrderStatus.NEW, OrderStatus.ACCEPTED)
    assert money(client.get_account().options_buying_power) == before - D("0.05") * 3 * HUNDRED
    client.cancel_order_by_id(order.id)
    assert money(client.get_account().options_buying_power) == before


@pytest.mark.parametrize("request_, status, words", [
    (dict(notional=500), 422, "notional orders are not available for options"),
    (dict(qty=1.5), 422, "whole number of contracts"),
    (dict(qty=1, time_in_force=TimeInForce.IOC), 422, "day or gtc"),
    (dict(qty=1, extended_hours=True, type="limit", limit_price=1), 422, "regular hours only"),
    (dict(qty=1, side=OrderSide.SELL, position_intent=PositionIntent.SELL_TO_CLOSE), 422,
     "position_intent sell_to_close does not match"),
    (dict(qty=1, side=OrderSide.SELL), 403, "shares of AAPL to cover it; 0 are free"),
    (dict(qty=1, order_class=OrderClass.BRACKET, take_profit={"limit_price": "50"},
          stop_loss={"stop_price": "0.5"}), 422, "not available for options"),
])
def test_alpacas_option_order_rules_refuse_with_a_reason(client, data, server, request_, status, words):
    symbol = near_the_money_call(client, data)
    body = {"symbol": symbol, "side": "buy", "type": "market", "time_in_force": "day"}
    for key, value in request_.items():
        body[key] = value.value if hasattr(value, "value") else value
    response = requests.post(f"{server.url}/v2/orders", json=body, headers=headers(server))
    assert response.status_code == status, response.text
    assert words in response.json()["message"]


def test_a_trailing_stop_is_refused_and_an_unknown_or_off_grid_contract_is_not_found(client, data):
    symbol = near_the_money_call(client, data)
    with pytest.raises(APIError) as refused:
        client.submit_order(TrailingStopOrderRequest(symbol=symbol, qty=1, side=OrderSide.BUY, trail_percent=5,
                                                     time_in_force=TimeInForce.DAY))
    assert "trailing_stop orders are not available for options" in str(refused.value)
    # A strike off AAPL's grid was never listed.
    off_grid = symbol[:-8] + "00000001"
    with pytest.raises(APIError) as missing:
        client.submit_order(MarketOrderRequest(symbol=off_grid, qty=1, side=OrderSide.BUY,
                                               time_in_force=TimeInForce.DAY))
    assert missing.value.status_code == 404


def test_a_lowered_options_level_stops_buying_and_the_account_says_so(client, data):
    symbol = near_the_money_call(client, data)
    assert client.get_account().options_approved_level == 3
    config = client.get_account_configurations()
    assert config.max_options_trading_level == 3
    config.max_options_trading_level = 1
    client.set_account_configurations(config)
    try:
        account = client.get_account()
        assert account.options_trading_level == 1 and account.options_approved_level == 3
        with pytest.raises(APIError) as refused:
            client.submit_order(MarketOrderRequest(symbol=symbol, qty=1, side=OrderSide.BUY,
                                                   time_in_force=TimeInForce.DAY))
        assert refused.value.status_code == 403
        assert "options trading level 2" in str(refused.value)
    finally:
        config.max_options_trading_level = 3
        client.set_account_configurations(config)
    assert client.get_account().options_trading_level == 3


def test_an_option_position_and_its_resting_order_survive_a_restart():
    server = Server().start()
    try:
        client = TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)
        data = OptionHistoricalDataClient(server.key_id, server.secret, url_override=server.url)
        symbol = near_the_money_call(client, data, "NVDA")
        client.submit_order(MarketOrderRequest(symbol=symbol, qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
        resting = client.submit_order(LimitOrderRequest(symbol=symbol, qty=1, side=OrderSide.BUY, limit_price=0.01,
                                                        time_in_force=TimeInForce.GTC))
        # A straddle (the put and the call bought together) bid a cent a unit: it rests whatever the prices — a put
        # bought against the call sold at one strike can be a credit, which a one-cent debit limit would fill — and
        # holds its debit, with its two legs.
        from alpaca.trading.requests import GetOrderByIdRequest, OptionLegRequest
        put = near_the_money_call(client, data, "NVDA", type=ContractType.PUT)
        package = client.submit_order(LimitOrderRequest(
            qty=1, order_class=OrderClass.MLEG, time_in_force=TimeInForce.GTC, limit_price=0.01, legs=[
                OptionLegRequest(symbol=put, ratio_qty=1, side=OrderSide.BUY),
                OptionLegRequest(symbol=symbol, ratio_qty=1, side=OrderSide.BUY)]))
        held = money(client.get_account().cash) - money(client.get_account().options_buying_power)
        [before] = client.get_all_positions()
        server.restart()
        client = TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)
        [after] = client.get_all_positions()
        assert after.symbol == symbol and after.asset_class == AssetClass.US_OPTION
        assert money(after.qty) == 1 and money(after.cost_basis) == money(before.cost_basis)
        assert money(after.market_value) == money(after.current_price) * HUNDRED
        assert client.get_order_by_id(resting.id).status in (OrderStatus.NEW, OrderStatus.ACCEPTED)
        restored = client.get_order_by_id(package.id, GetOrderByIdRequest(nested=True))
        assert restored.status == OrderStatus.NEW and restored.order_class == OrderClass.MLEG
        assert {leg.symbol for leg in restored.legs} == {put, symbol}
        assert money(client.get_account().cash) - money(client.get_account().options_buying_power) == held
        client.cancel_order_by_id(package.id)
        canceled = client.get_order_by_id(package.id, GetOrderByIdRequest(nested=True))
        assert canceled.status == OrderStatus.CANCELED
        assert all(leg.status == OrderStatus.CANCELED for leg in canceled.legs)
        client.cancel_order_by_id(resting.id)
        client.close_position(symbol)
        assert not client.get_all_positions()
    finally:
        server.stop()


def test_an_exercised_call_becomes_shares_at_the_strike_with_the_activities_written_at_once(client, data, server):
    start = datetime.date.today() + datetime.timedelta(days=7)
    contracts = client.get_option_contracts(GetOptionContractsRequest(
        underlying_symbols=["KO"], type=ContractType.CALL, expiration_date_gte=start,
        expiration_date_lte=start + datetime.timedelta(days=14), limit=500)).option_contracts
    expiration = min(c.expiration_date for c in contracts)
    chain = data.get_option_chain(OptionChainRequest(underlying_symbol="KO", expiration_date=expiration,
                                                     type=ContractType.CALL))
    # Deep in the money: worth exercising early only to own the shares, which is what this learner wants.
    symbol = min((s for s in chain.values() if s.greeks.delta > 0.8 and s.latest_quote.bid_price > 0),
                 key=lambda s: s.greeks.delta).symbol
    contract = client.get_option_contract(symbol)
    client.submit_order(MarketOrderRequest(symbol=symbol, qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    [position] = [p for p in client.get_all_positions() if p.symbol == symbol]
    cash_before = money(client.get_account().cash)
    shares_before = sum((money(p.qty) for p in client.get_all_positions() if p.symbol == "KO"), D(0))

    # A do-not-exercise instruction (alpaca-py has no method: its generic post) is taken for a long position, and
    # an early exercise still may be made after it.
    assert not client.post(f"/positions/{contract.id}/do-not-exercise")
    assert client.exercise_options_position(contract.id) is None
    strike = money(contract.strike_price)
    assert money(client.get_account().cash) == cash_before - strike * HUNDRED
    positions = {p.symbol: p for p in client.get_all_positions()}
    assert symbol not in positions
    assert money(positions["KO"].qty) == shares_before + HUNDRED
    activities = requests.get(f"{server.url}/v2/account/activities", params={"activity_types": "OPEXC,OPTRD"},
                              headers=headers(server)).json()
    exercise = next(a for a in activities if a["activity_type"] == "OPEXC")
    trade = next(a for a in activities if a["activity_type"] == "OPTRD")
    assert exercise["symbol"] == symbol and money(exercise["qty"]) == -1 and money(exercise["net_amount"]) == 0
    assert trade["symbol"] == "KO" and money(trade["qty"]) == HUNDRED and money(trade["price"]) == strike
    assert money(trade["net_amount"]) == -strike * HUNDRED
    assert exercise["date"] == trade["date"]
    # Nothing left to exercise: Alpaca's 403.
    with pytest.raises(APIError) as refused:
        client.exercise_options_position(symbol)
    assert refused.value.status_code == 403
    assert "no available position" in str(refused.value)
    _ = position


def test_a_covered_call_is_written_against_shares_held_and_bought_back(client, data):
    symbol = near_the_money_call(client, data, "JPM")
    client.submit_order(MarketOrderRequest(symbol="JPM", qty=100, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    cash_before = money(client.get_account().cash)
    written = client.get_order_by_id(client.submit_order(MarketOrderRequest(
        symbol=symbol, qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.DAY,
        position_intent=PositionIntent.SELL_TO_OPEN)).id)
    assert written.status == OrderStatus.FILLED and written.position_intent == PositionIntent.SELL_TO_OPEN
    premium = money(written.filled_avg_price)
    [position] = [p for p in client.get_all_positions() if p.symbol == symbol]
    assert position.side.value == "short" and money(position.qty) == -1
    assert money(position.avg_entry_price) == premium and money(position.market_value) < 0
    # The premium came in, less the sale's regulatory fees (cents).
    received = money(client.get_account().cash) - cash_before
    assert premium * HUNDRED - 1 < received <= premium * HUNDRED

    with pytest.raises(APIError) as dne:
        client.post(f"/positions/{symbol}/do-not-exercise")
    assert dne.value.status_code == 403 and "cannot submit DNE for short position" in str(dne.value)

    # The 100 shares cover the call: they cannot be sold, and they cover no second call.
    with pytest.raises(APIError) as refused:
        client.submit_order(MarketOrderRequest(symbol="JPM", qty=1, side=OrderSide.SELL,
                                               time_in_force=TimeInForce.DAY))
    assert refused.value.status_code == 403 and "cover calls you wrote" in str(refused.value)
    with pytest.raises(APIError) as uncovered:
        client.submit_order(MarketOrderRequest(symbol=symbol, qty=1, side=OrderSide.SELL,
                                               time_in_force=TimeInForce.DAY))
    assert uncovered.value.status_code == 403 and "to cover it; 0 are free" in str(uncovered.value)

    back = client.get_order_by_id(client.submit_order(MarketOrderRequest(
        symbol=symbol, qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY)).id)
    assert back.status == OrderStatus.FILLED and back.position_intent == PositionIntent.BUY_TO_CLOSE
    assert symbol not in {p.symbol for p in client.get_all_positions()}
    client.close_position("JPM")
    assert "JPM" not in {p.symbol for p in client.get_all_positions()}


def test_a_cash_secured_put_sets_its_strike_times_100_aside_until_it_is_bought_back(client, data):
    symbol = near_the_money_call(client, data, "KO", type=ContractType.PUT)
    strike = money(client.get_option_contract(symbol).strike_price)
    # Trading as cash (multiplier 1), options buying power is cash less what is held: exact, whatever other
    # holdings' prices do meanwhile.
    config = client.get_account_configurations()
    multiplier = config.max_margin_multiplier
    config.max_margin_multiplier = "1"
    client.set_account_configurations(config)
    try:
        before = client.get_account()
        assert money(before.options_buying_power) == money(before.cash)
        written = client.get_order_by_id(client.submit_order(MarketOrderRequest(
            symbol=symbol, qty=2, side=OrderSide.SELL, time_in_force=TimeInForce.DAY)).id)
        assert written.status == OrderStatus.FILLED and written.position_intent == PositionIntent.SELL_TO_OPEN
        after = client.get_account()
        # The premium came in; the collateral, the strike × 200 shares, is set aside.
        assert money(after.cash) > money(before.cash)
        assert money(after.options_buying_power) == money(after.cash) - strike * 2 * HUNDRED
        [position] = [p for p in client.get_all_positions() if p.symbol == symbol]
        assert position.side.value == "short" and money(position.qty) == -2
        # A third contract is secured by cash that is not there.
        with pytest.raises(APIError) as unsecured:
            client.submit_order(MarketOrderRequest(symbol=symbol, qty=int(money(after.cash) / strike / HUNDRED),
                                                   side=OrderSide.SELL, time_in_force=TimeInForce.DAY))
        assert unsecured.value.status_code == 403 and "to secure it; options buying power is" in str(unsecured.value)

        back = client.get_order_by_id(client.submit_order(MarketOrderRequest(
            symbol=symbol, qty=2, side=OrderSide.BUY, time_in_force=TimeInForce.DAY,
            position_intent=PositionIntent.BUY_TO_CLOSE)).id)
        assert back.status == OrderStatus.FILLED
        final = client.get_account()
        assert money(final.options_buying_power) == money(final.cash)
    finally:
        config.max_margin_multiplier = multiplier
        client.set_account_configurations(config)


def put_spread_strikes(client, data, underlying):
    """Two puts of one expiration a week or more out: the one nearest the money (to write) and the next strike below
    it with a bid (to buy)."""
    near = near_the_money_call(client, data, underlying, type=ContractType.PUT)
    contract = client.get_option_contract(near)
    chain = data.get_option_chain(OptionChainRequest(underlying_symbol=underlying,
                                                     expiration_date=contract.expiration_date,
                                                     type=ContractType.PUT))
    strike = money(contract.strike_price)
    below = [symbol for symbol, snapshot in chain.items()
             if snapshot.latest_quote.bid_price > 0 and money(client.get_option_contract(symbol).strike_price) < strike]
    lower = max(below, key=lambda s: money(client.get_option_contract(s).strike_price))
    return near, lower, strike - money(client.get_option_contract(lower).strike_price)


def test_a_put_credit_spread_is_one_mleg_order_that_sets_aside_its_width_and_closes_as_one(client, data):
    from alpaca.trading.requests import GetOrderByIdRequest, OptionLegRequest
    written, bought, width = put_spread_strikes(client, data, "MSFT")
    config = client.get_account_configurations()
    multiplier = config.max_margin_multiplier
    config.max_margin_multiplier = "1"
    client.set_account_configurations(config)
    try:
        before = client.get_account()
        placed = client.submit_order(MarketOrderRequest(
            qty=2, order_class=OrderClass.MLEG, time_in_force=TimeInForce.DAY, legs=[
                OptionLegRequest(symbol=written, ratio_qty=1, side=OrderSide.SELL,
                                 position_intent=PositionIntent.SELL_TO_OPEN),
                OptionLegRequest(symbol=bought, ratio_qty=1, position_intent=PositionIntent.BUY_TO_OPEN)]))
        order = client.get_order_by_id(placed.id, GetOrderByIdRequest(nested=True))
        assert order.order_class == OrderClass.MLEG and order.status == OrderStatus.FILLED
        # The parent names no asset or side; its legs do, each with its ratio.
        assert order.symbol is None and order.side is None and money(order.filled_qty) == 2
        legs = {leg.symbol: leg for leg in order.legs}
        assert set(legs) == {written, bought}
        assert all(leg.status == OrderStatus.FILLED and leg.asset_class == AssetClass.US_OPTION
                   and leg.ratio_qty == "1" and money(leg.qty) == 2 for leg in legs.values())
        assert legs[written].position_intent == PositionIntent.SELL_TO_OPEN
        assert legs[bought].side == OrderSide.BUY
        # A credit: the written put's bid exceeds the bought put's ask; the parent's price is the net, negative.
        credit = money(legs[written].filled_avg_price) - money(legs[bought].filled_avg_price)
        assert credit > 0 and money(order.filled_avg_price) == -credit

        positions = {p.symbol: money(p.qty) for p in client.get_all_positions()}
        assert positions[written] == -2 and positions[bought] == 2
        after = client.get_account()
        # The long puts cover the written ones: only the spread's width is set aside, not the strike.
        assert money(after.options_buying_power) == money(after.cash) - width * 2 * HUNDRED
        assert money(after.cash) - money(before.cash) > credit * 2 * HUNDRED - 1

        closed = client.get_order_by_id(client.submit_order(MarketOrderRequest(
            qty=2, order_class=OrderClass.MLEG, time_in_force=TimeInForce.DAY, legs=[
                OptionLegRequest(symbol=written, ratio_qty=1, side=OrderSide.BUY),
                OptionLegRequest(symbol=bought, ratio_qty=1, side=OrderSide.SELL)])).id,
            GetOrderByIdRequest(nested=True))
        assert closed.status == OrderStatus.FILLED
        assert {leg.position_intent for leg in closed.legs} == {PositionIntent.BUY_TO_CLOSE,
                                                                 PositionIntent.SELL_TO_CLOSE}
        assert not {written, bought} & {p.symbol for p in client.get_all_positions()}
        final = client.get_account()
        assert money(final.options_buying_power) == money(final.cash)
    finally:
        config.max_margin_multiplier = multiplier
        client.set_account_configurations(config)


@pytest.mark.parametrize("legs, status, words", [
    ([("call", "sell", 1), ("call", "sell", 1)], 403, "every short leg must be covered"),
    ([("call", "buy", 2), ("put", "buy", 4)], 422, "ratio_qty must be in lowest terms"),
])
def test_an_mleg_order_that_breaks_alpacas_rules_is_refused_with_a_reason(client, data, legs, status, words):
    from alpaca.trading.requests import OptionLegRequest
    call = near_the_money_call(client, data, "NVDA")
    put = near_the_money_call(client, data, "NVDA", type=ContractType.PUT)
    calls = [s.symbol for s in data.get_option_chain(OptionChainRequest(
        underlying_symbol="NVDA", expiration_date=client.get_option_contract(call).expiration_date,
        type=ContractType.CALL)).values() if s.symbol != call]
    symbols = {"call": [call, calls[0]], "put": [put]}
    request = MarketOrderRequest(qty=1, order_class=OrderClass.MLEG, time_in_force=TimeInForce.DAY, legs=[
        OptionLegRequest(symbol=symbols[kind].pop(0), ratio_qty=ratio, side=OrderSide(side))
        for kind, side, ratio in legs])
    with pytest.raises(APIError) as refused:
        client.submit_order(request)
    assert refused.value.status_code == status and words in str(refused.value), str(refused.value)


def test_a_resting_spread_is_chased_with_replace_order_by_id_and_fills_with_the_same_legs(client, data):
    from alpaca.trading.requests import GetOrderByIdRequest, OptionLegRequest, ReplaceOrderRequest
    call = near_the_money_call(client, data, "KO")
    put = near_the_money_call(client, data, "KO", type=ContractType.PUT)
    # A straddle bid a cent: it rests.
    package = client.submit_order(LimitOrderRequest(
        qty=1, order_class=OrderClass.MLEG, time_in_force=TimeInForce.DAY, limit_price=0.01, legs=[
            OptionLegRequest(symbol=call, ratio_qty=1, side=OrderSide.BUY),
            OptionLegRequest(symbol=put, ratio_qty=1, side=OrderSide.BUY)]))
    assert package.status in (OrderStatus.NEW, OrderStatus.ACCEPTED)
    # The learner chases it: up to $50 a unit, which the asks are well within, for two units.
    replacement = client.replace_order_by_id(package.id, ReplaceOrderRequest(qty=2, limit_price=50))
    assert str(replacement.replaces) == str(package.id) and replacement.order_class == OrderClass.MLEG
    old = client.get_order_by_id(package.id, GetOrderByIdRequest(nested=True))
    assert old.status == OrderStatus.REPLACED and str(old.replaced_by) == str(replacement.id)
    assert all(leg.status == OrderStatus.REPLACED for leg in old.legs)
    new = client.get_order_by_id(replacement.id, GetOrderByIdRequest(nested=True))
    assert new.status == OrderStatus.FILLED and money(new.filled_qty) == 2
    assert {leg.symbol for leg in new.legs} == {call, put}
    assert all(leg.status == OrderStatus.FILLED and money(leg.qty) == 2 for leg in new.legs)
    # Filled at the legs' asks, not at the limit: the net is their sum.
    assert money(new.filled_avg_price) == sum(money(leg.filled_avg_price) for leg in new.legs) < 50
    positions = {p.symbol: money(p.qty) for p in client.get_all_positions()}
    assert positions[call] == 2 and positions[put] == 2
    # A leg is not replaced on its own.
    with pytest.raises(APIError) as refused:
        client.replace_order_by_id(new.legs[0].id, ReplaceOrderRequest(limit_price=1))
    assert refused.value.status_code == 422
    client.close_position(call)
    client.close_position(put)
