"""Options through ibind (PyPI, unchanged), as its own options-chain example walks them: the underlying's search
result with an OPT section and months, a month's strikes, the contracts of a strike and right, and an option conid's
contract info and snapshot with greeks, implied volatility and open interest."""
import os
import shutil

os.environ.setdefault("IBIND_LOG_TO_FILE", "False")
os.environ.setdefault("IBIND_AUTO_REGISTER_SHUTDOWN", "False")

import pytest
from ibind import IbkrClient
from ibind.support.errors import ExternalBrokerError

from test_ib_client_portal import start_gateway


@pytest.fixture(scope="module")
def client():
    server = start_gateway()
    c = IbkrClient(host="127.0.0.1", port=str(server.ib_port), cacert=server.cacert, timeout=30)
    c.account_id = c.portfolio_accounts().data[0]["id"]
    yield c
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


def option_section(contract):
    return next((s for s in contract["sections"] if s["secType"] == "OPT"), None)


def test_the_chain_as_ibinds_example_walks_it(client):
    aapl = client.search_contract_by_symbol("AAPL").data[0]
    section = option_section(aapl)
    assert section is not None, aapl
    months = section["months"].split(";")
    assert len(months) >= 6 and "SMART" in section["exchange"].split(";")
    assert aapl["opt"] and all(len(d) == 8 for d in aapl["opt"].split(";"))

    strikes = client.search_strikes_by_conid(conid=aapl["conid"], sec_type="OPT", month=months[1]).data
    assert strikes["call"] and strikes["call"] == sorted(strikes["call"]) and strikes["put"] == strikes["call"]

    # The strike nearest the stock's last price (field 31; a leading C or H marks a close or a halt), as the example
    # picks one: the listing reaches far from the price (its strikes cover the last years' range).
    last = client.live_marketdata_snapshot([str(aapl["conid"])], ["31"]).data[0]["31"]
    spot = float(last.lstrip("CH"))
    middle = min(strikes["call"], key=lambda k: abs(k - spot))
    info = client.search_secdef_info_by_conid(
        conid=aapl["conid"], sec_type="OPT", month=months[1], strike=str(middle), right="C").data
    assert info and all(c["secType"] == "OPT" and c["right"] == "C" and float(c["strike"]) == middle for c in info)
    assert all(c["maturityDate"][:6] == info[0]["maturityDate"][:6] and c["multiplier"] == "100" for c in info)
    option = info[0]

    details = client.contract_information_by_conid(option["conid"]).data
    assert details["instrument_type"] == "OPT" and details["underlying_con_id"] == int(aapl["conid"])
    assert details["local_symbol"].startswith("AAPL") and details["local_symbol"][-9] == "C"

    fields = ["31", "84", "86", "7308", "7309", "7310", "7311", "7633", "7638", "201", "6457"]
    snapshot = client.live_marketdata_snapshot([str(option["conid"])], fields).data[0]
    assert snapshot["201"] == "C" and snapshot["6457"] == str(aapl["conid"])
    assert 0 < float(snapshot["7308"]) < 1 and float(snapshot["7309"]) >= 0 and float(snapshot["7310"]) <= 0
    assert snapshot["7633"].endswith("%") and 3 < float(snapshot["7633"][:-1]) < 300
    assert float(snapshot["84"]) < float(snapshot["86"])


def test_options_only_search_and_refusals(client):
    # secType OPT finds underlyings with listed options only.
    assert client.search_contract_by_symbol("SPY", sec_type="OPT").data[0]["symbol"] == "SPY"
    maotai = client.search_contract_by_symbol("600519").data[0]
    assert option_section(maotai) is None
    with pytest.raises(ExternalBrokerError):
        client.search_strikes_by_conid(conid=maotai["conid"], sec_type="OPT", month="DEC26")
    aapl = client.search_contract_by_symbol("AAPL").data[0]
    with pytest.raises(ExternalBrokerError):
        client.search_strikes_by_conid(conid=aapl["conid"], sec_type="OPT", month="JAN99")


def test_an_option_bought_through_ibinds_reply_flow_is_a_position_of_contracts(client):
    from decimal import Decimal
    from ibind.client.ibkr_utils import OrderRequest, QuestionType
    from test_ib_client_portal import us_account, wait_until

    account = us_account(client)
    aapl = client.search_contract_by_symbol("AAPL").data[0]
    months = option_section(aapl)["months"].split(";")
    strikes = client.search_strikes_by_conid(conid=aapl["conid"], sec_type="OPT", month=months[1]).data["call"]
    info = client.search_secdef_info_by_conid(
        conid=aapl["conid"], sec_type="OPT", month=months[1], strike=str(strikes[len(strikes) // 2]), right="C").data
    conid = info[0]["conid"]
    order = OrderRequest(conid=conid, side="BUY", quantity=2, order_type="MKT", acct_id=account, tif="DAY",
                         coid="ibind-option-1")
    placed = client.place_order(order, answers={QuestionType.MARKET_ORDER_CONFIRMATION: True}, account_id=account).data
    status = wait_until(lambda: client.order_status(placed["order_id"]).data,
                        lambda s: s["order_status"] == "Filled")
    assert status["conid"] == conid and Decimal(status["cum_fill"]) == 2
    premium = Decimal(status["average_price"])

    [position] = [p for p in client.positions(account_id=account).data if p["conid"] == conid]
    assert position["assetClass"] == "OPT" and position["putOrCall"] == "C" and position["multiplier"] == "100"
    assert Decimal(str(position["position"])) == 2 and position["undConid"] == int(aapl["conid"])
    # IB's option row: the average price per share, the average cost per contract, the value of 200 shares.
    assert Decimal(str(position["avgPrice"])) == premium and Decimal(str(position["avgCost"])) == premium * 100
    assert Decimal(str(position["mktValue"])) == (Decimal(str(position["mktPrice"])) * 200).quantize(Decimal("0.01"))

    # A sale of contracts it does not hold is writing, which the account cannot do yet: refused with the reason.
    sell = OrderRequest(conid=conid, side="SELL", quantity=5, order_type="MKT", acct_id=account, tif="DAY")
    with pytest.raises(ExternalBrokerError) as refused:
        client.place_order(sell, answers={QuestionType.MARKET_ORDER_CONFIRMATION: True}, account_id=account)
    assert "insufficient qty" in str(refused.value) or "writing options" in str(refused.value)


def test_a_call_spread_as_one_combo_order(client):
    """A combo (IB's BAG) through ibind: conidex "28812380;;;{conid}/1,{conid}/-1" bought at its net fills both
    legs at once; IB lists it as one order; selling the combo back at a price it cannot get rests, is modified and
    canceled whole."""
    from decimal import Decimal
    from ibind.client.ibkr_utils import OrderRequest
    from test_ib_client_portal import us_account, wait_until

    account = us_account(client)
    aapl = client.search_contract_by_symbol("AAPL").data[0]
    month = option_section(aapl)["months"].split(";")[1]
    spot = float(client.live_marketdata_snapshot([str(aapl["conid"])], ["31"]).data[0]["31"].lstrip("CH"))
    calls = sorted(k for k in client.search_strikes_by_conid(
        conid=aapl["conid"], sec_type="OPT", month=month).data["call"] if k > spot)
    low = client.search_secdef_info_by_conid(
        conid=aapl["conid"], sec_type="OPT", month=month, strike=str(calls[1]), right="C").data[0]
    high = next(c for c in client.search_secdef_info_by_conid(
        conid=aapl["conid"], sec_type="OPT", month=month, strike=str(calls[2]), right="C").data
        if c["maturityDate"] == low["maturityDate"])
    quotes = {q["conid"]: q for q in client.live_marketdata_snapshot(
        [str(low["conid"]), str(high["conid"])], ["84", "86"]).data}
    # The net to pay: the lower call at its ask less the higher at its bid, with a few cents to spare.
    net = Decimal(quotes[low["conid"]]["86"]) - Decimal(quotes[high["conid"]]["84"]) + Decimal("0.05")
    combo = f"28812380;;;{low['conid']}/1,{high['conid']}/-1"
    buy = OrderRequest(conid=None, conidex=combo, side="BUY", quantity=2, order_type="LMT", price=float(net),
                       acct_id=account, tif="DAY", coid="ibind-combo-1")
    placed = client.place_order(buy, answers={}, account_id=account).data
    status = wait_until(lambda: client.order_status(placed["order_id"]).data,
                        lambda s: s["order_status"] == "Filled")
    assert status["order_status"] == "Filled", status
    assert status["conidex"] == combo and status["sec_type"] == "BAG" and Decimal(status["cum_fill"]) == 2
    # Two long calls at the lower strike, two written at the higher: one call spread, paid for at most the net.
    held = {p["conid"]: Decimal(str(p["position"])) for p in client.positions(account_id=account).data}
    assert held[low["conid"]] == 2 and held[high["conid"]] == -2, held
    assert Decimal(status["average_price"]) <= net
    # IB lists the combo as one order, not its legs.
    rows = [o for o in client.live_orders(account_id=account).data["orders"] if o["order_ref"] == "ibind-combo-1"]
    assert [o["secType"] for o in rows] == ["BAG"] and rows[0]["conidex"] == combo, rows
    assert not [o for o in client.live_orders(account_id=account).data["orders"]
                if o.get("conid") in (low["conid"], high["conid"])]

    # Selling the spread back for more than the strikes' distance cannot fill: it rests, is modified, is canceled.
    too_much = Decimal(str(calls[2])) - Decimal(str(calls[1])) + 5
    sell = OrderRequest(conid=None, conidex=combo, side="SELL", quantity=2, order_type="LMT", price=float(too_much),
                        acct_id=account, tif="GTC")
    resting = client.place_order(sell, answers={}, account_id=account).data
    status = client.order_status(resting["order_id"]).data
    assert status["order_status"] in ("Submitted", "PreSubmitted"), status
    # Listed as bought at a negative net: selling the spread is buying it for a credit.
    assert status["conidex"] == f"28812380;;;{low['conid']}/-1,{high['conid']}/1"
    assert Decimal(status["limit_price"]) == -too_much
    sell.price = float(too_much + 1)
    modified = client.modify_order(resting["order_id"], sell, answers={}, account_id=account).data
    number = modified[0]["order_id"] if isinstance(modified, list) else modified["order_id"]
    assert Decimal(client.order_status(number).data["limit_price"]) == -(too_much + 1)
    client.cancel_order(number, account_id=account)
    assert wait_until(lambda: client.order_status(number).data,
                      lambda s: s["order_status"] == "Cancelled")["order_status"] == "Cancelled"
    held = {p["conid"]: Decimal(str(p["position"])) for p in client.positions(account_id=account).data}
    assert held[low["conid"]] == 2 and held[high["conid"]] == -2

    # What IB would refuse: another spread conid, a stock as a leg.
    for conidex in (f"12345;;;{low['conid']}/1,{high['conid']}/-1", f"28812380;;;{aapl['conid']}/1,{high['conid']}/-1"):
        with pytest.raises(ExternalBrokerError) as refused:
            client.place_order(OrderRequest(conid=None, conidex=conidex, side="BUY", quantity=1, order_type="LMT",
                                            price=1.0, acct_id=account, tif="DAY"), answers={}, account_id=account)
        assert "combo" in str(refused.value)
