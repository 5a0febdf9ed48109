"""Currency pairs through ibind (PyPI, unchanged) on papertrade's IB Client Portal listener: EUR.USD found as IB's
CASH contract 12087792 on IDEALPRO, its snapshot with a spread of tenths of a pip, its history, the pairs a currency
trades in and the exchange rate — and an order on a pair refused with a clear message (accounts do not keep several
currencies yet; a transfer converts between a user's accounts)."""
import os
import shutil
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


def test_an_order_on_a_pair_is_refused_with_a_clear_message(client):
    order = OrderRequest(conid="12087792", side="BUY", quantity=30000, order_type="MKT", acct_id=client.account_id,
                         tif="DAY")
    with pytest.raises(ExternalBrokerError) as error:
        client.place_order(order, answers={q: True for q in QuestionType}, account_id=client.account_id)
    assert "currency pair" in str(error.value) and "transfer" in str(error.value)
