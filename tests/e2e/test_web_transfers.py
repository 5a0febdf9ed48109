"""Moving money between accounts and a currency pair's page in the web app, in English and in Chinese, on a weekday
of the forex week (a replay of Wednesday 18 November 2026): the account screen's "Move money" sheet reviews what
leaves, what arrives, the rate, the mid rate, the spread's cost and the fee before anything moves, then moves it and
both balances show it; the history names the transfer; USD.CNH's page shows the rate, its chart and book and the
forex week's status, and sends the user to the transfer to convert; EUR.USD's currency sheet buys euros after showing
what is paid, received and the rate; euros and yen bought in the dollar account show on the account screen (amount,
worth at the rate, profit) and on EUR.USD's page. No English is left on the Chinese screens.

Screenshots (transfer-*-phone.png, transfer-*-desktop.png, forex-*) go to tests/e2e/screenshots/."""
import shutil
from decimal import Decimal

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import App, chromium
from conftest import Server
from test_web_app_zh import english_left


@pytest.fixture(scope="module")
def wednesday():
    s = Server(clock="replay", env={"PAPERTRADE_REPLAY_FROM": "2026-11-18"}).start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


def test_move_dollars_to_the_yuan_account_after_reviewing_the_rate(driver, wednesday):
    app = App(driver, wednesday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    usd = app.switch_account("us")
    cny = next(a for a in app.accounts() if a["market"] == "cn")
    cny_before = Decimal(cny["cash"])

    app.go("account")
    app.settled()
    app.click(".balance .actions button:last-child")  # Move money
    app.visible("dialog[open] #move-amount").send_keys("500")
    Select(app.css("dialog[open] #move-to")).select_by_value(cny["id"])
    Select(app.css("dialog[open] #move-currency")).select_by_value("USD")
    app.click("dialog[open] button[type=submit]")  # Review
    review = app.text_in("dialog[open] [data-testid=move-review]", "USD")
    assert "CNY" in review and ("中间价" if chinese else "Mid rate") in review
    assert ("点差成本" if chinese else "Spread cost") in review and ("零股" if chinese else "odd-lot") in review
    assert Decimal(app.api("GET", f"/accounts/{cny['id']}")["body"]["cash"]) == cny_before, "a review moves nothing"
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.shot(f"transfer-review-{'zh' if chinese else 'en'}")
    app.click("dialog[open] button[type=submit]")  # Confirm
    app.toast("已转出" if chinese else "Moved")
    listed = app.api("GET", "/transfers")["body"]["transfers"]
    assert len(listed) == 1 and listed[0]["status"] == "completed" and listed[0]["from_amount"] == "500"
    arrived = Decimal(listed[0]["to_amount"])
    assert Decimal(app.api("GET", f"/accounts/{cny['id']}")["body"]["cash"]) == cny_before + arrived
    assert Decimal(app.api("GET", f"/accounts/{usd['id']}")["body"]["cash"]) == Decimal(usd["cash"]) - 500
    # The history names it, with what arrived and the rate.
    row = app.text("li.row[data-kind=transfer]")
    assert ("账户间转账" if chinese else "Transfer") in row and ("汇率" if chinese else " at ") in row
    assert "-$500.00" in row.replace("−", "-") or "500.00" in row
    if chinese:
        assert english_left(app) == []


def test_a_currency_pairs_page_shows_the_rate_and_sends_conversions_to_a_transfer(driver, wednesday):
    app = App(driver, wednesday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    app.go("stock/USD.CNH")
    app.css(".stock-title h1")
    app.settled()
    assert app.text(".stock-title h1") == ("美元/离岸人民币" if chinese else "US Dollar / Offshore Chinese Yuan")
    status = app.text(".market-status")
    assert ("外汇市场交易中" if chinese else "Forex market open") in status
    assert len(app.all(".depth-table tbody.asks tr")) == 5 and len(app.all(".depth-table tbody.bids tr")) == 5
    assert app.d.find_elements(By.CSS_SELECTOR, ".forex-actions .trade-bar button.buy")
    assert not app.d.find_elements(By.CSS_SELECTOR, ".option-chain")
    note = app.text("[data-testid=forex-note]")
    assert ("兑换" if chinese else "convert") in note
    about = app.text(".stock-side")
    assert ("周日 17:00" if chinese else "Sunday 17:00") in about
    if chinese:
        assert english_left(app) == []
    app.shot(f"forex-pair-{'zh' if chinese else 'en'}")
    assert app.overflow(320) == 0
    app.click("[data-testid=forex-note] a")
    app.css(".balance")


def test_euros_and_yen_bought_in_the_dollar_account_show_per_currency(driver, wednesday):
    app = App(driver, wednesday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    usd = app.switch_account("us")
    for symbol, side, qty in (("EUR.USD", "buy", "27700"), ("USD.JPY", "sell", "1000")):
        placed = app.api("POST", f"/accounts/{usd['id']}/orders",
                         {"symbol": symbol, "side": side, "type": "market", "qty": qty, "time_in_force": "gtc"})
        assert placed["status"] in (200, 201) and placed["body"]["status"] == "filled", placed
    detail = app.api("GET", f"/accounts/{usd['id']}")["body"]
    balances = {b["currency"]: b for b in detail["balances"]}
    assert balances["EUR"]["amount"] == "27700" and Decimal(balances["JPY"]["amount"]) > 100_000
    # Equity is the dollars and what the euros and yen are worth at the rates.
    assert Decimal(detail["equity"]) == Decimal(detail["cash"]) + Decimal(detail["foreign_cash"]) + Decimal(
        detail["market_value"])
    assert Decimal(detail["foreign_cash"]) == sum(Decimal(b["value"]) for b in detail["balances"])

    app.go("account")
    app.settled()
    listed = app.text("[data-testid=currency-balances]")
    assert ("其他币种" if chinese else "Other currencies") in listed
    assert "27,700.00 EUR" in listed and " JPY" in listed and ("汇率" if chinese else " at ") in listed
    if chinese:
        assert english_left(app) == []
    app.shot(f"currencies-{'zh' if chinese else 'en'}")
    assert app.overflow(320) == 0
    app.click("[data-testid=currency-balances] li[data-currency=EUR] a")
    held = app.text_in("[data-testid=currency-held]", "EUR")
    assert "27,700.00 EUR" in held and ("现值" if chinese else "Worth now") in held
    if chinese:
        assert english_left(app) == []


def test_the_currency_sheet_buys_euros_after_showing_what_is_paid_and_received(driver, wednesday):
    app = App(driver, wednesday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    usd = app.switch_account("us")
    app.go("stock/EUR.USD")
    app.settled()
    app.click(".forex-actions .trade-bar button.buy")
    app.visible("dialog[open] #qty").send_keys("2500")
    pay = app.text_in("dialog[open] [data-testid=forex-pay]", "USD")
    receive = app.text("dialog[open] [data-testid=forex-receive]")
    assert receive == "2,500.00 EUR", receive
    assert ("无：点差即价格" if chinese else "None: the spread is the price") in app.text("dialog[open] .estimate")
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.shot(f"forex-sheet-{'zh' if chinese else 'en'}")
    app.click("dialog[open] form.trade-form button[type=submit]")  # Review
    summary = app.text_in("dialog[open] .confirm-step h3", "EUR")
    assert " USD" in summary and "2,500.00 EUR" in summary
    app.click("dialog[open] .confirm-step button.primary")  # Confirm
    app.toast("已买入 2,500.00 EUR" if chinese else "Bought 2,500.00 EUR")
    detail = app.api("GET", f"/accounts/{usd['id']}")["body"]
    eur = next(b for b in detail["balances"] if b["currency"] == "EUR")
    assert eur["amount"] == "2500"
    # A market order pays the ask when it fills: what the sheet said, give or take the market's move meanwhile.
    paid = Decimal(usd["cash"]) - Decimal(detail["cash"])
    said = Decimal(pay.split()[0].replace(",", ""))
    assert abs(paid - said) < said * Decimal("0.005"), (paid, said)
    assert Decimal(eur["cost"]) == paid
    held = app.text_in("[data-testid=currency-held]", "2,500.00 EUR")
    assert ("持有" if chinese else "Held") in held

    # Selling more euros than held: the sheet says why before anything is placed.
    app.click(".forex-actions .trade-bar button.sell")
    app.visible("dialog[open] #qty").send_keys("9000")
    refusal = app.text_in("dialog[open] [data-testid=refusal]", "EUR")
    assert ("余额不足" if chinese else "insufficient EUR balance") in refusal
    if chinese:
        assert english_left(app) == []
