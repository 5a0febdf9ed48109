"""The Backtest screen in a real browser: set up a moving-average crossover on the simulated market, run it on the
server, read the report (figures, charts, monthly returns, trades) — the same numbers the API gives."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import App


def set_up(app, symbols, first, last):
    """The Backtest screen with its symbols and dates filled in."""
    app.go("backtest")
    box = app.css("#bt-symbols")
    box.clear()
    box.send_keys(symbols)
    app.d.execute_script(
        "document.querySelector('#bt-from').value = arguments[0]; document.querySelector('#bt-to').value = arguments[1]",
        first, last)


def report(app, heading):
    """Waits for the finished report. A backtest is a job with a progress bar: the first one on the simulated market
    builds its paths (seconds in a debug build, longer on a busy CI machine), so the wait is longer than a screen's."""
    app.text_in(".backtest-report h2", heading, timeout=120)


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
    report(app, "Report: AAPL, MSFT")
    trades = app.text('[data-figure="trades"]')
    assert int(trades) > 0
    assert app.all("svg.backtest-chart.equity polyline") and app.all("svg.backtest-chart.drawdown polyline")
    assert app.all("table.monthly tbody tr") and app.all("table.trades tbody tr")
    # The report is the API's: the same round trips.
    jobs = app.api("GET", "/backtests")["body"]
    job = app.api("GET", f"/backtests/{jobs[0]['id']}")["body"]
    assert job["result"]["trades"] == int(trades)
    # Sizes carry no sign (a volatility of "+18%" read as a gain); the return does.
    for figure in ("volatility", "win_rate", "exposure"):
        shown = app.text(f'[data-figure="{figure}"]')
        assert not shown.startswith("+"), (figure, shown)
    assert app.text('[data-figure="volatility"]').endswith("%")
    # Each figure says what it means, as on the Performance screen (Sharpe, Sortino, profit factor, CAGR…).
    definitions = app.d.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('.backtest-figures > div')].map((d) =>"
        " [d.querySelector('[data-figure]').dataset.figure, d.querySelector('dd.definition').textContent]))")
    assert len(definitions) == 14 and all(len(text) > 15 for text in definitions.values()), definitions
    assert "√252" in definitions["sharpe"] and "whole starting cash" in definitions["buy_and_hold"], definitions
    # The charts have axes: the highest and lowest equity and the first and last date, read aloud as the chart's name.
    final = app.text('[data-figure="final_equity"]')
    axis = app.text('[data-testid="equity-chart"] .y-axis')
    assert axis.count("$") == 2, axis
    dates = app.text('[data-testid="equity-chart"] .x-axis')
    assert "2024" in dates and "2025" in dates, dates
    name = app.d.execute_script("return document.querySelector('[data-testid=equity-chart]').getAttribute('aria-label')")
    assert final in name and "highest" in name, (final, name)
    app.shot("backtest")
    assert app.overflow() == 0, "the report fits a 320 px phone"


def test_a_backtest_on_the_bundled_real_history(driver, server):
    app = App(driver, server).signup()
    set_up(app, "MSFT", "2005-01-01", "2012-12-31")
    Select(app.css("#bt-source")).select_by_value("real")
    Select(app.css("#bt-strategy")).select_by_value("buy-and-hold")
    app.button("Run backtest")
    report(app, "Report: MSFT")
    assert app.text('[data-figure="bars"]') == "2,013"  # MSFT's trading days 2005–2012 in the bundled file
    # The bundled history is daily: intraday bars are offered only for the market data...
    assert not app.css("#bt-timeframe").is_enabled()
    # ...but for 000338, whose real 5-minute bars are bundled too.
    set_up(app, "000338", "2019-01-01", "2019-12-31")
    Select(app.css("#bt-source")).select_by_value("real")
    assert app.css("#bt-timeframe").is_enabled()
    offered = [o.get_attribute("value") for o in Select(app.css("#bt-timeframe")).options if o.is_enabled()]
    assert offered == ["1Day", "5Min"]
    Select(app.css("#bt-timeframe")).select_by_value("5Min")
    Select(app.css("#bt-strategy")).select_by_value("sma-cross")
    qty = app.css("#bt-qty")
    qty.clear()
    qty.send_keys("100")  # a board lot
    app.button("Run backtest")
    report(app, "Report: 000338")
    assert app.text('[data-figure="bars"]') == "11,712"  # 244 trading days of 2019, 48 five-minute bars each
    assert "5 minutes" in app.text(".backtest-report .card-head .sub")


def test_an_intraday_backtest_and_its_html_report(driver, server):
    app = App(driver, server).signup()
    set_up(app, "MSFT", "2025-03-03", "2025-03-14")
    Select(app.css("#bt-timeframe")).select_by_value("5Min")
    Select(app.css("#bt-strategy")).select_by_value("sma-cross")
    app.button("Run backtest")
    report(app, "Report: MSFT")
    # Five-minute bars of two weeks (78 a US session; the e2e server's market never closes: 288 a day).
    bars = int(app.text('[data-figure="bars"]').replace(",", ""))
    job = app.api("GET", f"/backtests/{app.api('GET', '/backtests')['body'][0]['id']}")["body"]
    assert job["request"]["timeframe"] == "5Min" and job["result"]["bars"] == bars and bars >= 10 * 78
    assert "5 minutes" in app.text(".backtest-report .card-head .sub")
    # The report link serves the same report as one self-contained page (fetched with the session's cookie).
    link = app.css("a.download-report")
    page = app.d.execute_async_script(
        "const done = arguments[1]; fetch(arguments[0]).then(async (r) => done([r.status, r.headers.get('content-type'), await r.text()]))",
        link.get_attribute("href"))
    assert page[0] == 200 and page[1].startswith("text/html")
    assert page[2].startswith("<!doctype html>") and "MSFT" in page[2] and "5Min" in page[2]
