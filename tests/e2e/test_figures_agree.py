"""Home's and Performance's figures agree with each other and with the ledger (issue 40's "figures that contradict
each other"): a learner who buys, sells and deposits on their first day sees one day's P&L everywhere — Home's
"Today's P&L", the holdings' parts of it, the performance card, the 1D and 1M total returns — and it is what the
ledger says: equity less the opening cash less what was deposited. Realized P&L and fees are the ledger's, and
total return = realized + unrealized − fees. Both markets (a US account in dollars, an A-share account in yuan).
"""
import re
import time
from decimal import Decimal

import pytest

from browser import App

CENT = Decimal("0.01")


def number(text):
    """The amount in a shown money figure: "▲ +$1,234.56", "▼ −¥52.00", "-$0.07"."""
    match = re.search(r"([^\d]*)([\d,]+(?:\.\d+)?)", text)
    assert match, f"no amount in {text!r}"
    value = Decimal(match.group(2).replace(",", ""))
    return -value if re.search("[-−]", match.group(1)) else value


def place(app, account, symbol, side, qty):
    placed = app.api("POST", f"/accounts/{account['id']}/orders",
                     {"symbol": symbol, "side": side, "qty": qty, "type": "market", "time_in_force": "day"})
    assert placed["status"] == 201, placed
    order_id = placed["body"]["id"]
    deadline = time.time() + 60
    while time.time() < deadline:
        orders = app.api("GET", f"/accounts/{account['id']}/orders?status=all")["body"]
        order = next(o for o in orders if o["id"] == order_id)
        if order["status"] == "filled":
            return order
        time.sleep(0.3)
    raise AssertionError(f"{side} {qty} {symbol} never filled: {order}")


def from_ledger(entries):
    """Deposits, fees and the realized P&L of sales (average cost, before fees), from the account's ledger."""
    deposits = fees = realized = Decimal(0)
    held, cost = {}, {}
    for e in sorted(entries, key=lambda e: e["sequence"]):
        amount = Decimal(e["amount"])
        if e["kind"] in ("deposit", "withdrawal"):
            deposits += amount
        elif e.get("fee"):
            fees -= amount
        elif e["kind"] in ("buy", "sell"):
            symbol, qty, price = e["symbol"], Decimal(e["qty"]), Decimal(e["price"])
            if e["kind"] == "buy":
                held[symbol] = held.get(symbol, 0) + qty
                cost[symbol] = cost.get(symbol, 0) + qty * price
            else:
                average = cost[symbol] / held[symbol]
                realized += qty * (price - average)
                cost[symbol] -= qty * average
                held[symbol] -= qty
    return deposits, fees, realized


def steady(app, account_id, read):
    """`read()` taken while the account's value stood still (prices move while the test reads): the account, the
    result, the account again, until both accounts agree."""
    for _ in range(20):
        before = app.api("GET", f"/accounts/{account_id}")["body"]
        result = read()
        after = app.api("GET", f"/accounts/{account_id}")["body"]
        if before["equity"] == after["equity"]:
            return after, result
        time.sleep(0.5)
    raise AssertionError("the account's value never stood still for a second")


@pytest.mark.parametrize("market", ["us", "cn"])
def test_home_performance_and_the_ledger_tell_one_story(driver, server, market):
    app = App(driver, server).signup()
    account = app.switch_account(market) if market == "cn" else next(a for a in app.accounts() if a["market"] == "us")
    if market == "us":
        place(app, account, "AAPL", "buy", "20")
        place(app, account, "MSFT", "buy", "10")
        place(app, account, "AAPL", "sell", "5")  # a sale today: realized P&L and a fee
        symbols = {"AAPL", "MSFT"}
    else:
        # T+1: an A-share bought today cannot be sold today; two purchases, each with its minimum commission.
        place(app, account, "600519", "buy", "100")
        place(app, account, "000001", "buy", "300")
        symbols = {"600519", "000001"}
    deposit = app.api("POST", f"/accounts/{account['id']}/deposit", {"amount": "1000"})
    assert deposit["status"] in (200, 201), deposit

    entries = app.api("GET", f"/accounts/{account['id']}/transactions?limit=1000")["body"]
    deposits, fees, realized = from_ledger(entries)
    assert deposits == 1000 and fees > 0

    def reports():
        return {p: app.api("GET", f"/accounts/{account['id']}/performance?period={p}")["body"] for p in ("1D", "1M")}

    detail, perf = steady(app, account["id"], reports)
    equity, day = Decimal(detail["equity"]), Decimal(detail["day_change"])
    starting = Decimal(detail["starting_cash"])
    # The day's P&L is the ledger's: what the account is worth less the opening cash and the deposit.
    assert day == equity - starting - deposits, detail
    # ...the holdings' parts add up to it (fees belong to the holding they were paid on)...
    parts = sum(Decimal(p["day_pl"]) for p in detail["positions"])
    assert {p["symbol"] for p in detail["positions"]} == symbols
    assert parts == day, (parts, day, detail["positions"])
    # ...and the performance report says the same over 1D and, for an account opened today, over 1M.
    for period, report in perf.items():
        assert Decimal(report["total_return"]).quantize(CENT) == day.quantize(CENT), (period, report["total_return"], day)
        assert Decimal(report["fees"]) == fees, (period, report["fees"], fees)
        assert abs(Decimal(report["realized_pnl"]) - realized) < CENT, (period, report["realized_pnl"], realized)
        unrealized = Decimal(report["unrealized_pnl"])
        assert abs(Decimal(report["total_return"]) - (Decimal(report["realized_pnl"]) + unrealized - fees)) < CENT
        if day != 0:
            assert report["twr"] is not None and Decimal(report["twr"]) != 0 and (Decimal(report["twr"]) > 0) == (day > 0)

    # Home shows that figure as Today's P&L, and the performance card's gain over its month is the same.
    def home():
        app.d.refresh()
        shown = app.text('[data-testid="day-change"]')
        app.wait.until(lambda d: re.search(r"\d", d.execute_script(
            "return document.querySelector('[data-testid=\"performance-readout\"] .chg')?.innerText ?? ''")))
        gain = app.d.execute_script(
            "return document.querySelector('[data-testid=\"performance-readout\"] .chg').innerText")
        return number(shown), number(gain), app.text('[data-testid="twr"]')

    app.go("")
    detail, (shown, gain, twr) = steady(app, account["id"], home)
    day = Decimal(detail["day_change"]).quantize(CENT)
    assert shown == day and gain == day, (shown, gain, day)
    if day != 0:
        assert not re.search(r"(?<![\d.])0\.00%", twr), f"a return of {day} reads as nothing: {twr!r}"

    # The Performance screen: the total return figure is the same again, and the holdings table says in one line
    # why its realized column (to date, after fees) differs from the figure above it (the period's, before fees).
    def total_return():
        app.go("performance")
        app.d.refresh()
        return number(app.text('[data-testid="figure-total_return"] dd'))

    detail, shown = steady(app, account["id"], total_return)
    assert shown == Decimal(detail["day_change"]).quantize(CENT), (shown, detail["day_change"])
    note = app.text('section[aria-labelledby="holding-performance-title"] > p.definition')
    assert "after its fees" in note and "before fees" in note, note
