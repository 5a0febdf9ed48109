"""Currency pairs through ibind (PyPI, unchanged) on papertrade's IB Client Portal listener: EUR.USD found as IB's
CASH contract 12087792 on IDEALPRO, its snapshot with a spread of tenths of a pip, its history, the pairs a currency
trades in and the exchange rate; a conversion of 30,000 dollars to euros (isCcyConv with fxQty) that the ledger shows
per currency, EUR.USD among the positions, a limit order on USD.JPY filled, and conversions that make no sense
refused with a 400 moving nothing."""
import os
import shutil
import time
from decimal import Decimal

os.environ.setdefault("IBIND_LOG_TO_FILE", "False")
os.environ.setdefault("IBIND_AUTO_REGISTER_SHUTDOWN", "False")

import pytest
from ibind import IbkrClient
from ibind.client.ibkr_utils import OrderRequest, QuestionType
from ibind.support.errors import ExternalBrokerError

from test_ib_client_portal import start_gateway


@pytest.fixture(scope="module")
def client():
    server = start_gateway()
    c = IbkrClient(host="127.0.0.1", port=str(server.ib_port), cacert=server.cacert, timeout=30)
    c.account_id = next(a for a in c.portfolio_accounts().data if a["currency"] == "USD")["id"]
    yield c
    c.close()
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


def test_eur_usd_is_ibs_cash_contract_with_a_two_sided_quote_and_history(client):
    found = client.search_contract_by_symbol("EUR", sec_type="CASH").data
    eur_usd = next(f for f in found if f["symbol"] == "EUR.USD")
    assert int(eur_usd["conid"]) == 12087792
    assert eur_usd["sections"][0]["secType"] == "CASH" and "IDEALPRO" in eur_usd["sections"][0]["exchange"]
    assert all(f["sections"][0]["secType"] == "CASH" for f in found)
    # A stock search does not offer currency pairs, and a CASH search no stocks.
    assert all(f["sections"][0]["secType"] != "CASH" for f in client.search_contract_by_symbol("AAPL").data)
    info = client.contract_information_by_conid("12087792").data
    assert info["instrument_type"] == "CASH" and info["local_symbol"] == "EUR.USD" and info["symbol"] == "EUR"
    assert info["currency"] == "USD" and info["exchange"] == "IDEALPRO"

    snap = client.live_marketdata_snapshot("12087792", ["31", "84", "86", "55"]).data[0]
    bid, ask = Decimal(snap["84"]), Decimal(snap["86"])
    assert Decimal("0.6") < bid < ask < Decimal("1.8")
    # IDEALPRO's spread on EUR.USD: a few tenths of a pip.
    assert ask - bid <= Decimal("0.00005")
    jpy = client.live_marketdata_snapshot("15016059", ["84", "86"]).data[0]
    assert Decimal("90") < Decimal(jpy["84"]) < Decimal(jpy["86"]) < Decimal("250")

    daily = client.marketdata_history_by_conid("12087792", bar="1d", period="1m").data
    bars = daily["data"]
    assert len(bars) >= 15 and all(b["l"] <= min(b["o"], b["c"]) <= max(b["o"], b["c"]) <= b["h"] for b in bars)


def test_currency_pairs_and_exchange_rates(client):
    pairs = client.currency_pairs("USD").data["USD"]
    symbols = {p["symbol"]: p for p in pairs}
    assert {"EUR.USD", "USD.JPY", "USD.CNH", "GBP.USD"} <= set(symbols)
    assert symbols["USD.CNH"]["conid"] == 113342317 and symbols["USD.CNH"]["ccyPair"] == "CNH"
    assert symbols["EUR.USD"]["ccyPair"] == "EUR"
    usd_cnh = Decimal(str(client.currency_exchange_rate("USD", "CNH").data["rate"]))
    cnh_usd = Decimal(str(client.currency_exchange_rate("CNH", "USD").data["rate"]))
    assert Decimal(5) < usd_cnh < Decimal(9)
    assert abs(usd_cnh * cnh_usd - 1) < Decimal("0.0001")
    with pytest.raises(ExternalBrokerError) as error:
        client.currency_exchange_rate("USD", "XYZ")
    assert error.value.status_code == 400


ANSWERS = {q: True for q in QuestionType}


def wait_for_status(client, order_id, wanted=("Filled",), timeout=15):
    deadline = time.time() + timeout
    while True:
        status = client.order_status(order_id).data
        if status.get("order_status") in wanted or time.time() > deadline:
            return status
        time.sleep(0.2)


def ledger(client):
    return client.get_ledger(client.account_id).data


def test_a_conversion_of_30000_dollars_to_euros_shows_in_the_ledger_per_currency(client):
    before = ledger(client)
    usd_before = Decimal(str(before["USD"]["cashbalance"]))
    assert "EUR" not in before
    ask = Decimal(client.live_marketdata_snapshot("12087792", ["86"]).data[0]["86"])
    order = OrderRequest(conid="12087792", side="BUY", quantity=None, order_type="MKT", acct_id=client.account_id,
                         tif="DAY", is_ccy_conv=True, fx_qty=30000)
    placed = client.place_order(order, answers=ANSWERS, account_id=client.account_id).data
    order_id = placed["order_id"]
    status = wait_for_status(client, order_id)
    assert status["order_status"] == "Filled", status
    after = ledger(client)
    eur = Decimal(str(after["EUR"]["cashbalance"]))
    usd = Decimal(str(after["USD"]["cashbalance"]))
    paid = usd_before - usd
    # 30,000 dollars bought as many euros as they pay for at the ask (to the cent), the dollars reduced by exactly
    # the euros' price: the rate and the spread, nothing else.
    assert Decimal(29990) < paid <= Decimal(30000)
    price = paid / eur
    assert abs(price - ask) < Decimal("0.0005"), (price, ask)
    assert eur == (Decimal(30000) / price).quantize(Decimal("0.01")) or abs(eur * price - paid) < Decimal("0.01")
    rate = Decimal(str(after["EUR"]["exchangerate"]))
    assert Decimal("0.6") < rate < Decimal("1.8")
    base = after["BASE"]
    # The whole account in dollars: its dollars, and its euros at the rate.
    assert abs(Decimal(str(base["cashbalance"])) - (usd + eur * rate)) < Decimal("0.02")
    positions = client.positions(client.account_id).data
    row = next(p for p in positions if p["conid"] == 12087792)
    assert row["assetClass"] == "CASH" and Decimal(str(row["position"])) == eur
    assert Decimal(str(row["avgCost"])) == price.quantize(Decimal("0.000001"))


def test_a_limit_order_on_usd_jpy_fills_and_moves_dollars_and_yen(client):
    snap = client.live_marketdata_snapshot("15016059", ["84", "86"]).data[0]
    bid = Decimal(snap["84"])
    usd_before = Decimal(str(ledger(client)["USD"]["cashbalance"]))
    # Selling 1,000 dollars for yen at the bid or better: a limit at the bid fills.
    order = OrderRequest(conid="15016059", side="SELL", quantity=1000, order_type="LMT", price=float(bid),
                         acct_id=client.account_id, tif="GTC")
    placed = client.place_order(order, answers=ANSWERS, account_id=client.account_id).data
    status = wait_for_status(client, placed["order_id"])
    assert status["order_status"] == "Filled", status
    after = ledger(client)
    assert Decimal(str(after["USD"]["cashbalance"])) == usd_before - 1000
    yen = Decimal(str(after["JPY"]["cashbalance"]))
    assert yen >= (bid * 1000).quantize(Decimal(1)) and yen < bid * 1000 + 500
    rows = {p["contractDesc"]: p for p in client.positions(client.account_id).data}
    assert rows["USD.JPY"]["assetClass"] == "CASH" and Decimal(str(rows["USD.JPY"]["position"])) < 0
    # The order lists as IB's: the pair's conid, secType CASH, its quote currency.
    listed = [o for o in client.live_orders(force=True).data.get("orders", []) if o["orderId"] == int(placed["order_id"])]
    assert listed and listed[0]["conid"] == 15016059 and listed[0]["secType"] == "CASH"
    assert listed[0]["cashCcy"] == "JPY" and listed[0]["status"] == "Filled"


def test_conversions_that_make_no_sense_are_refused_and_move_nothing(client):
    before = ledger(client)
    both = OrderRequest(conid="12087792", side="BUY", quantity=100, order_type="MKT", acct_id=client.account_id,
                        tif="DAY", is_ccy_conv=True, fx_qty=100)
    with pytest.raises(ExternalBrokerError) as error:
        client.place_order(both, answers=ANSWERS, account_id=client.account_id)
    assert error.value.status_code == 400 and "never both" in str(error.value)
    aapl = next(f for f in client.search_contract_by_symbol("AAPL").data if f["symbol"] == "AAPL")["conid"]
    stock = OrderRequest(conid=str(aapl), side="BUY", quantity=1, order_type="MKT", acct_id=client.account_id,
                         tif="DAY", is_ccy_conv=True)
    with pytest.raises(ExternalBrokerError) as error:
        client.place_order(stock, answers=ANSWERS, account_id=client.account_id)
    assert error.value.status_code == 400 and "CASH" in str(error.value)
    # Selling euros beyond those held: the engine refuses, naming the currency.
    too_many = OrderRequest(conid="12087792", side="SELL", quantity=10_000_000, order_type="MKT",
                            acct_id=client.account_id, tif="DAY")
    with pytest.raises(ExternalBrokerError) as error:
        client.place_order(too_many, answers=ANSWERS, account_id=client.account_id)
    assert "insufficient EUR balance" in str(error.value)
    after = ledger(client)
    for currency in ("USD", "EUR", "JPY"):
        assert after[currency]["cashbalance"] == before[currency]["cashbalance"]
