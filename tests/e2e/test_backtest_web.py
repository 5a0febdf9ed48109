"""The Backtest screen in a real browser: set up a moving-average crossover on the simulated market, run it on the
server, read the report (figures, charts, monthly returns, trades) — the same numbers the API gives."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import App


def test_run_a_backtest_and_read_the_report(driver, server):
    app = App(driver, server).signup()
    app.go("queue")
    app.click('a[href="#/backtest"]')  # "Try rules on history"
    app.text_in("main h1", "Backtest")
    symbols = app.css("#bt-symbols")
    symbols.clear()
    symbols.send_keys("AAPL, MSFT")
    app.d.execute_script("document.querySelector('#bt-from').value = '2024-01-01'; document.querySelector('#bt-to').value = '2025-06-30'")
    Select(app.css("#bt-strategy")).select_by_value("sma-cross")
    for field, value in (("#bt-fast", "5"), ("#bt-slow", "20")):
        box = app.css(field)
        box.clear()
        box.send_keys(value)
    app.button("Run backtest")
    app.text_in(".backtest-report h2", "Report: AAPL, MSFT")
    trades = app.text('[data-figure="trades"]')
    assert int(trades) > 0
    assert app.all("svg.backtest-chart.equity polyline") and app.all("svg.backtest-chart.drawdown polyline")
    assert app.all("table.monthly tbody tr") and app.all("table.trades tbody tr")
    # The report is the API's: the same round trips.
    jobs = app.api("GET", "/backtests")["body"]
    job = app.api("GET", f"/backtests/{jobs[0]['id']}")["body"]
    assert job["result"]["trades"] == int(trades)
    app.shot("backtest")
    assert app.overflow() == 0, "the report fits a 320 px phone"


def test_a_backtest_on_the_bundled_real_history(driver, server):
    app = App(driver, server).signup()
    app.go("backtest")
    symbols = app.css("#bt-symbols")
    symbols.clear()
    symbols.send_keys("MSFT")
    Select(app.css("#bt-source")).select_by_value("real")
    app.d.execute_script("document.querySelector('#bt-from').value = '2005-01-01'; document.querySelector('#bt-to').value = '2012-12-31'")
    Select(app.css("#bt-strategy")).select_by_value("buy-and-hold")
    app.button("Run backtest")
    app.text_in(".backtest-report h2", "Report: MSFT")
    assert app.text('[data-figure="bars"]') == "2,013"  # MSFT's trading days 2005–2012 in the bundled file
