"""Account performance end to end, on a server whose market clock the test steps through the first days of
November 2026, so an account gathers a few daily closes: the home chart and its period tabs in Chromium (phone and
desktop, with screenshots), the Performance screen, and Alpaca's portfolio history through alpaca-py reading the
same history. (A market replayed at 10,000× put the order wherever the machine's speed left the clock: on a busy
machine it once met no price yet.)"""
import http.cookiejar
import json
import os
import re
import time
import urllib.request

import pytest
from alpaca.trading.client import TradingClient
from alpaca.trading.requests import GetPortfolioHistoryRequest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import Server
from browser import App, DESKTOP, PHONE, SCREENSHOTS


@pytest.fixture(scope="module")
def replay_server():
    s = Server(clock="manual", env={"PAPERTRADE_REPLAY_FROM": "2026-11-02"}).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def app(driver, replay_server):
    app = App(driver, replay_server).signup()
    account = next(a for a in app.accounts() if a["market"] == "us")
    app.account_id = account["id"]
    replay_server.advance_clock(30 * 60)  # Monday 2 November, 10:00 New York
    placed = app.api("POST", f"/accounts/{account['id']}/orders",
                     {"symbol": "AAPL", "side": "buy", "qty": "20", "type": "market", "time_in_force": "day"})
    assert placed["status"] == 201, placed
    # Through Thursday's close to Friday 14:00: four closes and most of a session.
    for _ in range(4):
        replay_server.advance_clock(86_400)
    replay_server.advance_clock(4 * 3600)
    deadline = time.time() + 90
    while time.time() < deadline:
        report = app.api("GET", f"/accounts/{account['id']}/performance?period=1M")["body"]
        if len(report["equity"]) >= 4:
            break
        time.sleep(1)
    else:
        raise AssertionError(f"the account never gathered three closes: {report}")
    return app


def readout(app):
    return app.d.execute_script("return document.querySelector('[data-testid=\"performance-readout\"]')?.innerText ?? ''")


def test_home_opens_with_the_performance_chart_and_its_period_tabs(app):
    app.d.refresh()
    app.css(".performance-card .chart-area canvas")
    app.wait.until(lambda d: "$" in readout(app))
    twr = app.text('[data-testid="twr"]')
    mwr = app.text('[data-testid="mwr"]')
    assert "%" in twr and "Time-weighted" in twr and "flows do not move it" in twr
    assert "%" in mwr and "Money-weighted" in mwr
    # The API's figure is the one shown (to the two decimals shown: the clock stands still between the requests).
    report = app.api("GET", f"/accounts/{app.account_id}/performance?period=1M")["body"]
    shown = re.search(r"([+-]?[\d.]+)%", twr).group(1)
    assert float(shown) == pytest.approx(float(report["twr"]) * 100, abs=0.006)

    for period in ["1W", "ALL", "1D"]:
        app.click(f'.period-tabs button[data-value="{period}"]')
        app.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'.period-tabs button[data-value="{period}"]')
                       .get_attribute("aria-pressed") == "true")
        app.css(".performance-card .chart-area canvas")
        app.wait.until(lambda d: "$" in readout(app))
    # A 1D chart reads out times of day.
    assert ":" in readout(app)

    app.click('[data-testid="benchmark-toggle"]')
    assert app.css('[data-testid="benchmark-toggle"]').get_attribute("aria-pressed") == "true"
    assert "S&P 500" in app.text(".performance-card .returns")

    # The crosshair shows the value and date under the pointer.
    app.size(*DESKTOP)
    app.click('.period-tabs button[data-value="1M"]')
    app.wait.until(lambda d: "$" in readout(app) and ":" not in readout(app))
    app.settled()
    before = readout(app)
    area = app.css(".performance-card .chart-area")
    ActionChains(app.d).move_to_element_with_offset(area, -area.size["width"] // 3, 0).perform()
    app.wait.until(lambda d: readout(app) != before)
    app.size(*PHONE)

    # Top positions and today's gainers sit under the chart.
    assert "AAPL" in app.text('[data-testid="top-positions"]')

    for label, (w, h) in (("phone", PHONE), ("desktop", DESKTOP)):
        app.size(w, h)
        app.settled()
        app.d.save_screenshot(os.path.join(SCREENSHOTS, f"home-performance-{label}.png"))
    app.size(*PHONE)

    # The eye hides the amounts on the chart too.
    app.click(".portfolio .eye-toggle, .portfolio button[aria-label*='amounts']")
    app.wait.until(lambda d: "••••" in readout(app))
    assert "••••" in app.text('[data-testid="twr"]')
    app.click(".portfolio .eye-toggle, .portfolio button[aria-label*='amounts']")
    app.wait.until(lambda d: "$" in readout(app))


def test_performance_screen_lists_every_figure_with_its_definition(app):
    app.go("performance")
    app.css('[data-testid="figure-twr"]')
    for key in ["twr", "mwr", "total_return", "price_return", "realized_pnl", "unrealized_pnl", "dividends", "fees",
                "volatility", "sharpe", "sortino", "max_drawdown", "benchmark"]:
        row = app.text(f'[data-testid="figure-{key}"]')
        assert len(row.split("\n")) >= 2, f"{key} has no definition: {row!r}"
    assert "Nov" in app.text('[data-testid="monthly-returns"]')
    assert "AAPL" in app.text('[data-testid="holding-performance"]')
    # The title once (the chart's card says what it shows, with no link back to this screen), and dates as people
    # write them, not 2026-11-02.
    headings = app.d.execute_script("return [...document.querySelectorAll('main h1, main h2')].map((e) => e.textContent)")
    assert headings.count("Performance") == 1 and "Value over time" in headings, headings
    assert not app.d.find_elements(By.CSS_SELECTOR, 'main a[href="#/performance"]')
    figures = app.text("main section.card .card-head .sub")
    assert not re.search(r"\d{4}-\d{2}-\d{2}", app.text("main")), "an ISO date on the Performance screen"
    assert "Nov" in figures, figures
    app.css(".drawdown-area canvas")
    for label, (w, h) in (("phone", PHONE), ("desktop", DESKTOP)):
        app.size(w, h)
        app.settled()
        app.d.save_screenshot(os.path.join(SCREENSHOTS, f"performance-{label}.png"))
    app.size(*PHONE)
    assert app.overflow(320) <= 0


def native_session(server):
    """The demo user's session on the native API (its account is the one the Alpaca key trades)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server.url + "/api/v1" + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with opener.open(request) as response:
            return json.loads(response.read())
    call("POST", "/auth/login", {"username": "demo", "password": server.password})
    return call


def test_alpaca_portfolio_history_reads_the_same_history(app, replay_server):
    client = TradingClient(replay_server.key_id, replay_server.secret, paper=True, url_override=replay_server.url)
    account_number = client.get_account().account_number
    call = native_session(replay_server)
    account = next(a for a in call("GET", "/accounts") if a["account_number"] == account_number)
    native = call("GET", f"/accounts/{account['id']}/performance?period=1M")
    history = client.get_portfolio_history(GetPortfolioHistoryRequest(period="1M", timeframe="1D"))
    closes = [float(p["value"]) for p in native["equity"]]
    # Every close the native report has (the live point may move between the two calls).
    assert history.equity[: len(closes) - 1] == pytest.approx(closes[:-1])
    assert history.base_value == pytest.approx(closes[0])
    assert len(history.timestamp) == len(history.equity) == len(history.profit_loss)
    assert history.profit_loss[0] == 0

    intraday = client.get_portfolio_history(GetPortfolioHistoryRequest(period="1D", timeframe="5Min"))
    assert len(intraday.timestamp) >= 2
    # 5-minute steps through the session (the last point is the live value, at any time).
    steps = {b - a for a, b in zip(intraday.timestamp[1:-1], intraday.timestamp[2:-1])}
    assert steps <= {300}, steps
