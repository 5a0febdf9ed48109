"""A tour of every screen of the web app, as a new user takes it, at phone and desktop sizes, in English and in
Chinese: each screen must load without one SEVERE entry in the browser's console (a failed request, an uncaught
error — e.g. a chart updated after its screen was left), and in Chinese without English catalogue text left on it.

The console is read after each screen and again after leaving it, so errors thrown by a screen that is gone
(timers and live updates not stopped) are blamed on that screen.
"""
import shutil
from decimal import Decimal
import time

import pytest
from selenium.webdriver.common.by import By

from browser import App, DESKTOP, PHONE, chromium
from conftest import Server
from test_web_app_zh import english_left

# Route → what is on the screen once it has loaded.
SCREENS = [
    ("", ".net-worth"),
    ("stock/AAPL", ".stock-title h1"),
    ("stock/600519", ".stock-title h1"),
    ("stock/BTC%2FUSD", ".stock-title h1"),  # a coin: around the clock, its book, steps and fees
    ("stock/BTC%2FUSDT", ".stock-title h1"),  # a coin pair: priced and paid in tether
    ("stock/USD.CNH", ".stock-title h1"),  # a currency pair: the forex week, its book, converting by transfer
    ("explore", "main h1"),
    ("orders", "main h1"),
    ("queue", "main h1"),
    ("alerts", "main h1"),
    ("games", "main h1"),
    ("games/new", "main h1"),
    ("performance", "main h1"),
    ("backtest", "main h1"),
    ("account", "main h1"),
    ("notifications", "main h1"),
    ("settings", "main h1"),
]


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def tour_driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


@pytest.fixture(scope="module", params=["realtime", "always-open", "replay"])
def tour_server(request):
    """The wall clock as a user has it (whatever hour CI runs at: often both markets closed), a market always in
    session, and a replayed one moving 60 times faster."""
    s = Server(clock=request.param).start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


def severe(driver):
    """The SEVERE console entries since the last call (reading the log empties it)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def settled(app, selector):
    """Waits for the screen's content and for its loading spinners (charts, lists) to finish."""
    app.css(selector)
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "main .loading"))
    app.settled()


def test_every_screen_loads_without_a_console_error(tour_driver, tour_server):
    app = App(tour_driver, tour_server)
    # The last test's page belongs to a server that has stopped: its live connection would retry (a refused WebSocket
    # in the console) until the sign-up navigates away. Leave it first, then forget what it logged.
    tour_driver.get("about:blank")
    severe(tour_driver)  # anything from before this test
    app.signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    # Something to show: a holding, an open order, a queued rule and an alert.
    account = next(a for a in app.accounts() if a["market"] == "us")
    assert app.api("POST", f"/accounts/{account['id']}/orders",
                   {"symbol": "AAPL", "side": "buy", "type": "market", "qty": "2", "time_in_force": "day"})["status"] in (200, 201)
    assert app.api("POST", f"/accounts/{account['id']}/orders",
                   {"symbol": "MSFT", "side": "buy", "type": "limit", "qty": "1", "limit_price": "1.00",
                    "time_in_force": "gtc"})["status"] in (200, 201)
    # Some bitcoin bought with dollars: a fraction of a coin less its fee, held on the coin page and the home screen.
    assert app.api("POST", f"/accounts/{account['id']}/orders",
                   {"symbol": "BTC/USD", "side": "buy", "type": "market", "notional": "50",
                    "time_in_force": "gtc"})["status"] in (200, 201)
    # A game the user runs and plays in: its page has the leaderboard, the invite and the owner's tools.
    game = app.api("POST", "/games", {"name": "Tour", "starting_cash": "50000"})["body"]
    assert app.api("POST", f"/games/{game['id']}/join", {"code": game["join_code"]})["status"] in (200, 201)
    assert severe(tour_driver) == [], "signing up"

    problems = []
    for width, height in ((320, 700), PHONE, DESKTOP):
        app.size(width, height)
        for route, selector in SCREENS + [(f"games/{game['id']}", "main h1")]:
            app.go(route)
            settled(app, selector)
            where = f"#/{route} at {width}px"
            problems += [f"{where}: {m}" for m in severe(tour_driver)]
            # Nothing sticks out sideways: a page wider than the screen pushes the tab bar off a phone.
            wider = app.d.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            if wider > 0:
                culprit = app.d.execute_script("""
                    const w = document.documentElement.clientWidth;
                    const e = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1)
                      .sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right)[0];
                    return e ? `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}#${e.id}` : '?';""")
                problems.append(f"{where}: {wider}px wider than the screen ({culprit})")
            if chinese:
                problems += [f"{where}: English left: {e}" for e in english_left(app, "body")]
        # Leaving the last screen (and the charts of the stock and performance screens long before): nothing of a
        # screen that is gone may still run and fail.
        app.go("")
        settled(app, ".net-worth")
        problems += [f"after the tour at {width}px: {m}" for m in severe(tour_driver)]
    app.size(*PHONE)
    assert problems == [], "\n".join(problems)


def test_the_data_source_and_the_stock_facts_are_in_the_users_language(tour_driver, server):
    app = App(tour_driver, server).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    app.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "footer.data-source").text.strip())
    footer = app.text("footer.data-source")
    assert ("数据：模拟市场" if chinese else "Data: Simulated market") in footer, footer

    app.go("stock/AAPL")
    about = app.text_in("dl.about", "信息技术" if chinese else "Information Technology")
    # The sector is ours (GICS's eleven, translated); the industry is the data's own words, labelled as such.
    assert ("行业（数据源原文）" in about) if chinese else ("Industry" in about), about
    industry = app.d.execute_script(
        "return [...document.querySelectorAll('dl.about dd span[lang=en]')].map(s => s.textContent)")
    assert industry and all(industry), industry


@pytest.mark.parametrize("market", ["us", "cn"])
def test_the_backtest_screens_defaults_make_trades(tour_driver, server, market):
    """A learner who opens Backtest and presses Run gets a report with trades, in the account's market (the A-share
    default once could not afford one lot), and any refusals in the report are in the user's language."""
    app = App(tour_driver, server).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    app.switch_account(market)  # (a Chinese user starts on the A-share account, an English one on the US one)
    app.go("backtest")
    # Shares per order start at about three fifths of the starting cash at today's price, in whole lots: a strategy
    # compared with buy and hold (all the cash) is not 10 shares of 100,000.
    symbol, lot = ("600519", 100) if market == "cn" else ("AAPL", 1)
    app.wait.until(lambda d: app.value("#bt-qty") not in ("", "10", "100"))
    qty = int(app.value("#bt-qty"))
    cash = Decimal(app.value("#bt-cash"))
    price = Decimal(app.api("GET", f"/quotes/{symbol}")["body"]["last"])
    assert qty % lot == 0 and cash * Decimal("0.4") <= qty * price <= cash * Decimal("0.65"), (qty, price, cash)
    app.click("form.backtest-form button[type=submit]")
    app.css(".backtest-report h2")
    jobs = app.api("GET", "/backtests")["body"]
    deadline = time.time() + 60
    while True:
        job = app.api("GET", f"/backtests/{jobs[0]['id']}")["body"]
        if job["status"] not in ("queued", "running") or time.time() > deadline:
            break
        time.sleep(0.5)
    assert job["status"] == "done", job
    assert job["request"]["symbols"] == (["600519"] if market == "cn" else ["AAPL"])
    result = job["result"]
    assert result["trades"] >= 1, result["warnings"]
    for warning in result["warnings"]:
        assert ("笔委托被拒绝" in warning or "前视" in warning or "周末" in warning) if chinese \
            else "refused" in warning or "look-ahead" in warning or "weekends" in warning
