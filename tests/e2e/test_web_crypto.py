"""Crypto in the web app, in English and in Chinese, on a Saturday (a replay of 21 November 2026): the coin's page
trades around the clock with its order book, steps and fees; the trade sheet buys by an amount of dollars and shows
the fee taken in bitcoin and what the purchase receives; the holding shows at most eight decimals; "All" sells
every coin held (a fee left it off the pair's steps); the history names each fee; Explore ranks the pairs.

Screenshots (crypto-*-phone.png, crypto-*-desktop.png) go to tests/e2e/screenshots/."""
import re
import shutil
from decimal import Decimal

import pytest
from selenium.webdriver.common.by import By

from browser import App, chromium
from conftest import Server
from test_web_app_zh import english_left


@pytest.fixture(scope="module")
def saturday():
    s = Server(clock="replay", env={"PAPERTRADE_REPLAY_FROM": "2026-11-21"}).start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


def sheet_open(app):
    """Waits for the trade sheet to be open and still: under load its slide-in may still run, and a click computed on
    a moving button lands beside it."""
    app.visible("dialog[open] #qty")
    app.still()


def coins_shown(text):
    """The BTC amounts in a text ("0.00054321 BTC")."""
    return [Decimal(m) for m in re.findall(r"([0-9]+\.[0-9]+)\s*BTC", text)]


def test_a_coin_bought_by_amount_and_sold_whole_in_the_web_app(driver, saturday):
    app = App(driver, saturday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    app.switch_account("us")

    # The coin's page: open on a Saturday, its book five levels a side, its steps and fees.
    app.go("stock/BTC%2FUSD")
    app.css(".stock-title h1")
    app.settled()
    assert app.text(".stock-title h1") == ("比特币" if chinese else "Bitcoin"), "the coin's name in the user's language"
    status = app.text(".market-status")
    assert ("全天候" if chinese else "24/7") in status and "UTC" in status
    assert len(app.all(".depth-table tbody.asks tr")) == 5 and len(app.all(".depth-table tbody.bids tr")) == 5
    about = app.text(".stock-side")
    assert "0.0001 BTC" in about and "0.15%" in about and "0.25%" in about
    assert not app.d.find_elements(By.CSS_SELECTOR, ".option-chain"), "a coin has no option chain"
    if chinese:
        assert english_left(app) == []
    app.shot(f"crypto-coin-{'zh' if chinese else 'en'}")

    # Buy $50 of bitcoin: the estimate takes the taker's 0.25% in bitcoin and says what is received.
    app.click(".trade-bar .buy")
    sheet_open(app)
    app.click("dialog[open] .segmented [data-value='amount']")
    app.set_qty("50")
    app.wait.until(lambda d: coins_shown(app.text("dialog[open] [data-testid=receive]")))
    fee = app.text("dialog[open] [data-testid=crypto-fee]")
    receive = coins_shown(app.text("dialog[open] [data-testid=receive]"))[0]
    assert "0.25%" in app.text("dialog[open] .estimate") and coins_shown(fee)
    assert receive < Decimal(50) / Decimal(50000), "fifty dollars buys well under a thousandth of a coin"
    assert app.value("dialog[open] #order-type") == "market"
    assert app.d.find_element(By.CSS_SELECTOR, "dialog[open] #order-type").get_attribute("disabled")
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.shot(f"crypto-sheet-{'zh' if chinese else 'en'}")
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.click("dialog[open] .confirm-step button.primary")
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))

    # The holding: a fraction of a coin less its fee, at most eight decimals.
    app.wait.until(lambda d: coins_shown(app.text(".position")))
    held = coins_shown(app.text(".position"))[0]
    assert 0 < held and len(str(held).split(".")[1]) <= 8
    account = next(a for a in app.accounts() if a["market"] == "us")
    detail = app.api("GET", f"/accounts/{account['id']}")["body"]
    [position] = [p for p in detail["positions"] if p["symbol"] == "BTC/USD"]
    assert abs(Decimal(position["qty"]) - held) < Decimal("0.00000001")

    # Sell it all: "All" fills in every coin held, off the pair's 0.0001 step, and the sale goes through.
    app.click(".trade-bar .sell")
    sheet_open(app)
    app.click("dialog[open] button.all")
    app.wait.until(lambda d: app.value("dialog[open] #qty") != "")
    assert Decimal(app.value("dialog[open] #qty")) == Decimal(position["qty"])
    app.wait.until(lambda d: "0.25%" in app.text("dialog[open] .estimate"))
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.click("dialog[open] .confirm-step button.primary")
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    app.wait.until(lambda d: not [p for p in app.api("GET", f"/accounts/{account['id']}")["body"]["positions"]
                                  if p["symbol"] == "BTC/USD"])

    # The history: both fees, the purchase's in bitcoin, the sale's in dollars.
    app.go("account")
    app.css("ul.transactions")
    app.settled()
    fees = [li.text for li in app.all("ul.transactions li[data-kind=crypto_fee]")]
    assert len(fees) == 2 and any("BTC" in f for f in fees), fees
    if chinese:
        assert english_left(app) == []

    # Explore: the pairs ranked by today's change.
    app.go("explore")
    app.css("main h1")
    app.click("main .segmented [data-value='crypto']")
    app.wait.until(lambda d: any("/USD" in (r.get_attribute("data-symbol") or "")
                                 for r in d.find_elements(By.CSS_SELECTOR, "main ol.rows a.row-link")))
    symbols = [r.get_attribute("data-symbol") for r in app.all("main ol.rows a.row-link")]
    assert len(symbols) >= 20 and all(s.split("/")[1] in ("USD", "USDC", "USDT", "BTC") for s in symbols)
    if chinese:
        assert english_left(app) == []
    app.shot(f"crypto-explore-{'zh' if chinese else 'en'}")


def test_a_coin_pair_is_paid_for_in_tether_in_the_web_app(driver, saturday):
    """BTC/USDT's page prices bitcoin in tether; its trade sheet orders a quantity only and says everything in coins —
    the tether paid, the fee in bitcoin, the tether free to pay with — and refuses more than the tether held."""
    app = App(driver, saturday).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    account = app.switch_account("us")
    bought = app.api("POST", f"/accounts/{account['id']}/orders", {
        "symbol": "USDT/USD", "qty": "3000", "side": "buy", "type": "market", "time_in_force": "gtc"})
    assert bought["status"] == 201 and bought["body"]["status"] == "filled", bought
    cash = Decimal(app.api("GET", f"/accounts/{account['id']}")["body"]["cash"])

    app.go("stock/BTC%2FUSDT")
    app.css(".stock-title h1")
    app.settled()
    assert app.text("[data-testid=price]").endswith("USDT") and "$" not in app.text("[data-testid=price]")
    assert "USDT" in app.text(".stock-side")

    app.click(".trade-bar .buy")
    sheet_open(app)
    assert not app.d.find_elements(By.CSS_SELECTOR, "dialog[open] .segmented [data-value='amount']"), "no dollar amounts"
    assert "USDT" in app.text("dialog[open] [data-testid=coin-pair-help]")
    app.set_qty("1")
    app.wait.until(lambda d: "USDT" in app.text("dialog[open] [data-testid=refusal]"))
    app.set_qty("0.01")
    app.wait.until(lambda d: "USDT" in app.text("dialog[open] [data-testid=estimate-total]")
                   and not app.text("dialog[open] [data-testid=refusal]"))
    assert coins_shown(app.text("dialog[open] [data-testid=crypto-fee]"))
    assert coins_shown(app.text("dialog[open] [data-testid=receive]"))[0] == Decimal("0.009975")
    assert "USDT" in app.text("dialog[open] p.available")
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.shot(f"crypto-pair-sheet-{'zh' if chinese else 'en'}")
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.visible("dialog[open] .confirm-step")
    assert "USDT" in app.text("dialog[open] .confirm-step")
    app.click("dialog[open] .confirm-step button.primary")
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))

    # The bitcoin is held as BTC/USD, shown on the pair's page; no dollars moved.
    app.wait.until(lambda d: coins_shown(app.text(".position")))
    assert coins_shown(app.text(".position"))[0] == Decimal("0.009975")
    detail = app.api("GET", f"/accounts/{account['id']}")["body"]
    assert Decimal(detail["cash"]) == cash
    assert {p["symbol"] for p in detail["positions"]} >= {"BTC/USD", "USDT/USD"}
    if chinese:
        assert english_left(app) == []

    # An alert on the pair says its prices in tether, on the alerts screen as on the sheet.
    made = app.api("POST", "/alerts", {"symbol": "BTC/USDT", "condition": "greater_than", "value": "1000000"})
    assert made["status"] == 201 and made["body"]["currency"] == "USDT", made
    app.go("alerts")
    app.wait.until(lambda d: "BTC/USDT" in app.text("[data-alert-id]"))
    row = app.text("[data-alert-id]")
    assert "1,000,000.00 USDT" in row and "$" not in row, row
    if chinese:
        assert english_left(app) == []


def test_a_coin_is_backtested_on_its_24_7_days(driver, saturday):
    """The backtest service on a pair's simulated history: a close every UTC day (weekends included, no weekend
    warning), the crypto fees charged, no stock index to compare with."""
    import time

    app = App(driver, saturday).signup()
    started = app.api("POST", "/backtests", {"symbols": ["BTC/USD"], "from": "2026-06-01", "to": "2026-08-31",
                                             "strategy": "sma-cross", "params": {"fast": "5", "slow": "20"},
                                             "qty": "0.05"})
    assert started["status"] == 202, started
    deadline = time.time() + 120
    while True:
        job = app.api("GET", f"/backtests/{started['body']['id']}")["body"]
        if job["status"] != "running" or time.time() > deadline:
            break
        time.sleep(0.5)
    assert job["status"] == "done", job
    result = job["result"]
    from datetime import date
    days = [date.fromisoformat(p["date"]) for p in result["equity"]]
    assert result["bars"] == 92, "every day from June 1 to August 31"
    assert sum(d.weekday() >= 5 for d in days) >= 26, "the weekends' closes are in the curve"
    assert result["warnings"] == [] and result["index"] is None
    assert Decimal(result["fees"]) > 0 and result["trades"] + result["open_trades"] >= 1
