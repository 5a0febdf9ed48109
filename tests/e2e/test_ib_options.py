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

    middle = strikes["call"][len(strikes["call"]) // 2]
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
