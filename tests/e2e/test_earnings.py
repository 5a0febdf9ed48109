"""The earnings calendar end to end: GET /api/v1/earnings on the running server (defaults, symbols, markets, clear
errors, stable dates known ahead), the stock page's "Earnings in 3 days, after the close" line and the Explore
screen's week of reports in Chromium, in English and in Chinese, with no console error and no English left in the
Chinese app."""
import datetime
import json
import re
import urllib.error
import urllib.request

import pytest

from browser import App, chromium
from test_web_app_zh import english_left


def get(server, path):
    try:
        with urllib.request.urlopen(server.url + "/api/v1" + path, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_the_calendar_over_http(server):
    status, week = get(server, "/earnings")
    assert status == 200, week
    start, end = datetime.date.fromisoformat(week["from"]), datetime.date.fromisoformat(week["to"])
    assert (end - start).days == 7
    rows = week["earnings"]
    assert rows == sorted(rows, key=lambda r: (r["date"], r["symbol"]))
    for r in rows:
        assert week["from"] <= r["date"] <= week["to"]
        assert r["time"] in ("before_open", "after_close")
        assert r["market"] in ("us", "cn") and r["name"]

    # A year of two companies: four reports each, Apple's fiscal quarters in order (its fiscal year ends in
    # September), the A-share's in its seasons, in the evening.
    status, year = get(server, "/earnings?from=2026-01-01&to=2026-12-31&symbols=AAPL,600519")
    assert status == 200, year
    aapl = [r for r in year["earnings"] if r["symbol"] == "AAPL"]
    moutai = [r for r in year["earnings"] if r["symbol"] == "600519"]
    assert [r["fiscal_quarter"] for r in aapl] == [1, 2, 3, 4]
    assert [r["fiscal_year"] for r in aapl] == [2026, 2026, 2026, 2026]
    assert len(moutai) == 4 and all(r["time"] == "after_close" for r in moutai)
    assert all(r["date"][5:7] in ("03", "04", "05", "08", "10") for r in moutai)
    assert all(int(r["market_cap_millions"]) > 1_000_000 for r in aapl)
    # Known ahead and stable: next year's dates are there now, the same every time they are asked for.
    assert get(server, "/earnings?from=2027-01-01&to=2027-12-31&symbols=AAPL") == get(
        server, "/earnings?from=2027-01-01&to=2027-12-31&symbols=AAPL")
    assert len(get(server, "/earnings?from=2027-01-01&to=2027-12-31&symbols=aapl")[1]["earnings"]) == 4
    # One market only.
    status, cn = get(server, "/earnings?from=2026-01-01&to=2026-12-31&symbols=AAPL,600519&market=cn")
    assert status == 200 and {r["symbol"] for r in cn["earnings"]} == {"600519"}

    # Clear errors.
    for path, code, words in [
        ("/earnings?from=2026-13-01", 422, "from must be a date"),
        ("/earnings?from=2026-05-01&to=2026-04-01", 422, "from must not be after to"),
        ("/earnings?from=2026-01-01&to=2027-06-01", 422, "at most a year apart"),
        ("/earnings?symbols=AAPL,NOPE", 404, "unknown symbol NOPE"),
        ("/earnings?symbols=,,", 422, "symbols must list"),
        ("/earnings?market=eu", 422, "market must be us or cn"),
    ]:
        status, body = get(server, path)
        assert status == code and words in body.get("message", ""), (path, status, body)

    # The stock page's next report is the calendar's next one for the company.
    status, profile = get(server, "/stocks/AAPL/profile")
    assert status == 200
    nxt = profile["next_earnings"]
    today = datetime.date.fromisoformat(week["from"])
    upcoming = get(server, f"/earnings?from={today}&to={today + datetime.timedelta(days=120)}&symbols=AAPL")[1]
    assert nxt["date"] == upcoming["earnings"][0]["date"] or nxt["date"] == upcoming["earnings"][1]["date"]
    assert nxt["days"] == (datetime.date.fromisoformat(nxt["date"]) - today).days
    assert get(server, "/stocks/SPY/profile")[1]["next_earnings"] is None


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def language_driver(request):
    d = chromium(request.param)
    yield d, request.param
    d.quit()


def test_the_earnings_line_and_the_week_of_reports(language_driver, server):
    driver, language = language_driver
    chinese = language.startswith("zh")
    app = App(driver, server).signup()
    driver.get_log("browser")
    nxt = get(server, "/stocks/AAPL/profile")[1]["next_earnings"]
    app.go("stock/AAPL")
    app.wait.until(lambda d: app.d.execute_script(
        "const e = document.querySelector('[data-testid=earnings]'); return e && !e.hidden && e.textContent"))
    line = app.text("[data-testid=earnings]")
    days = nxt["days"]
    if chinese:
        when = "今天" if days == 0 else "明天" if days == 1 else f"{days} 天后"
        assert line.startswith(f"{when}发布财报"), line
        assert ("（收盘后）" if nxt["time"] == "after_close" else "（开盘前）") in line, line
    else:
        when = "today" if days == 0 else "tomorrow" if days == 1 else f"in {days} days"
        assert line.startswith(f"Earnings {when}, "), line
        assert ("after the close" if nxt["time"] == "after_close" else "before the open") in line, line
        assert re.search(r"Q[1-4] \d{4} results", line), line
    app.shot(f"earnings-stock-{'zh' if chinese else 'en'}")

    app.go("explore")
    app.wait.until(lambda d: app.d.execute_script(
        "const s = document.querySelector('section.earnings');"
        " return s && !s.querySelector('.loading') && (s.querySelector('.earnings-day') || s.querySelector('.empty'))"))
    assert app.text("#earnings-title") == ("本周财报" if chinese else "Earnings this week")
    # Each day with reports, in order, shows its five largest companies (of the account's market) and counts the rest.
    shown = app.d.execute_script("""
        return [...document.querySelectorAll('section.earnings .earnings-day')].map((day) =>
          [...day.querySelectorAll('.row-link')].map((a) => a.dataset.symbol))""")
    market = app.d.execute_script("return document.querySelector('.page-head .sub').textContent")
    market = "cn" if market in ("China A-shares", "A 股") else "us"
    by_day = {}
    for r in get(server, f"/earnings?market={market}")[1]["earnings"]:
        by_day.setdefault(r["date"], []).append(r)
    assert len(shown) == len(by_day)
    for symbols, date in zip(shown, sorted(by_day)):
        reports = by_day[date]
        assert len(symbols) == min(5, len(reports)), date
        size = {r["symbol"]: float(r["market_cap_millions"] or 0) for r in reports}
        left_out = [size[s] for s in size if s not in symbols]
        assert all(size[s] >= max(left_out, default=0) for s in symbols), date
    app.d.execute_script("document.querySelector('section.earnings').scrollIntoView()")
    app.shot(f"earnings-explore-{'zh' if chinese else 'en'}")
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    if chinese:
        assert english_left(app) == []
