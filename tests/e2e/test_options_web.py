"""The option chain on the stock page, in a real browser, in English and Chinese: expirations, calls and puts, the
strikes around the price with the price line between them, every strike on request, the legend; nothing wider than a
320 px phone, no console error, no English left in Chinese. Screenshots go to tests/e2e/screenshots/."""
import os
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import SCREENSHOTS, App, chromium
from test_web_app_zh import english_left


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def language_driver(request):
    d = chromium(request.param)
    yield d, request.param
    d.quit()


def rows(app):
    return app.d.execute_script("""
        return [...document.querySelectorAll('table.option-chain tbody tr:not(.price-line)')].map((tr) => ({
          symbol: tr.dataset.symbol, itm: tr.classList.contains('itm'),
          cells: [...tr.children].map((c) => c.textContent)}))""")


def payoff(app):
    """The payoff figure's exact points ([price, profit] decimals) and breakevens."""
    from decimal import Decimal
    app.visible("[data-testid=payoff] svg.payoff-chart polyline")
    data = app.d.execute_script(
        "const f = document.querySelector('[data-testid=payoff]'); return [f.dataset.points, f.dataset.breakevens]")
    import json
    points = [[Decimal(x), Decimal(y)] for x, y in json.loads(data[0])]
    return points, [Decimal(x) for x in json.loads(data[1])]


def test_the_chain_on_a_stock_page(language_driver, server):
    driver, language = language_driver
    app = App(driver, server).signup()
    chinese = language.startswith("zh")
    driver.get_log("browser")
    app.go("stock/AAPL")
    app.css("table.option-chain tbody tr")
    title = app.text("#options-title")
    assert title == ("期权" if chinese else "Options")
    near = rows(app)
    # Strikes around the price: six each side, calls first, each row a listed AAPL call.
    assert 8 <= len(near) <= 13, near
    assert all(r["symbol"].startswith("AAPL") and r["symbol"][-9] == "C" for r in near)
    strikes = [float(r["cells"][0].replace(",", "")) for r in near]
    assert strikes == sorted(strikes)
    # Calls below the price are in the money (shaded), above it not; the price line sits between them.
    line = app.text("tr.price-line")
    assert "AAPL" in line
    itm = [r["itm"] for r in near]
    assert itm == sorted(itm, reverse=True) and any(itm) and not all(itm)
    for label, (w, h) in (("phone", (390, 844)), ("desktop", (1280, 900))):
        app.size(w, h)
        app.settled()
        app.d.execute_script("document.querySelector('section.options').scrollIntoView()")
        app.settled()
        app.d.save_screenshot(os.path.join(SCREENSHOTS, f"options-chain-{'zh' if chinese else 'en'}-{label}.png"))
    app.size(390, 844)

    # Puts: in the money above the price.
    app.click(".options .segmented button[data-value=put]")
    app.wait.until(lambda d: rows(app) and rows(app)[0]["symbol"][-9] == "P")
    puts = [r["itm"] for r in rows(app)]
    assert puts == sorted(puts) and any(puts)

    # Another expiration, then every strike.
    select = Select(app.css("#option-expiration"))
    assert len(select.options) >= 8
    first = rows(app)[0]["symbol"]
    select.select_by_index(len(select.options) - 1)
    app.wait.until(lambda d: rows(app) and rows(app)[0]["symbol"][4:10] != first[4:10])
    before = len(rows(app))
    app.click(".options button.show-all")
    app.wait.until(lambda d: len(rows(app)) > before)

    for width in (320, 390, 1280):
        app.size(width, 800)
        app.settled()
        assert app.d.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0, width
    app.size(390, 844)
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    if chinese:
        assert english_left(app, ".options") == []


def test_no_chain_for_a_stock_without_options(language_driver, server):
    driver, _ = language_driver
    app = App(driver, server).signup()
    app.go("stock/600519")
    app.css(".stock-title h1")
    app.settled()
    assert not driver.find_elements(By.CSS_SELECTOR, "section.options:not([hidden])")


def test_the_option_trade_sheet_explains_a_trade_and_places_it(language_driver, server):
    from decimal import Decimal
    driver, language = language_driver
    chinese = language.startswith("zh")
    app = App(driver, server).signup()
    app.switch_account("us")  # a Chinese user starts on the A-share account
    driver.get_log("browser")
    app.go("stock/AAPL")
    app.css("table.option-chain tbody tr.price-line")
    # The first call above the price: out of the money, the row after the price line.
    symbol = app.d.execute_script(
        "return document.querySelector('tr.price-line').nextElementSibling.dataset.symbol")
    cells = next(r for r in rows(app) if r["symbol"] == symbol)["cells"]
    strike, bid, ask = (Decimal(c.replace(",", "")) for c in cells[:3])
    # A tap anywhere on the row opens its sheet (here the ask), not only on the strike.
    app.click(f"tr[data-symbol='{symbol}'] td:nth-of-type(2)")
    app.visible("dialog.option-sheet[open]")
    limit = Decimal(app.value("#option-limit"))
    assert bid <= limit <= ask
    qty = app.css("#option-qty")
    qty.clear()
    qty.send_keys("2")

    def figure(testid):
        return app.text(f"[data-testid={testid}] .value").replace("$", "").replace(",", "")

    app.wait.until(lambda d: figure("option-amount") == f"{limit * 200:.2f}")
    assert figure("option-breakeven") == f"{strike + limit:.2f}"
    assert figure("option-max-loss") == f"{limit * 200:.2f}"
    assert figure("option-max-profit") == ("无上限" if chinese else "Unlimited")
    chance = figure("option-probability")
    # The model's chance of finishing in the money, in percent to one place. A call just above the price can show
    # a little over 50%: the risk-neutral drift (rate − σ²/2) carries a near strike in, so the figure is checked
    # against the contract's own (the price may have moved since the chain loaded: within 5 points).
    model = app.api("GET", f"/options/contracts/{symbol}")
    assert model["status"] == 200, model
    assert chance.endswith("%") and 0 < float(chance[:-1]) < 100
    assert abs(float(chance[:-1]) - float(model["body"]["probability_itm"]) * 100) <= 5, (chance, model["body"])
    # The greeks, each with what it means a share and a contract: a call's delta between 0 and 1, theta a loss a day.
    sheet_delta, sheet_theta = Decimal(figure("option-delta")), Decimal(figure("option-theta"))
    assert 0 < sheet_delta < 1 and sheet_theta < 0, (sheet_delta, sheet_theta)
    assert Decimal(figure("option-gamma")) > 0 and Decimal(figure("option-vega")) > 0
    theta_help = app.text("[data-testid=option-theta] .field-help")
    per_contract = Decimal(re.findall(r"\$([\d,]+\.\d\d)", theta_help)[-1].replace(",", ""))
    assert abs(per_contract - abs(Decimal(model["body"]["theta"])) * 100) <= Decimal("0.5"), (theta_help, model["body"])
    assert ("每张" if chinese else "a contract") in theta_help, theta_help
    # The profit or loss at expiration: the premium lost below the strike, breakeven at strike + price, and from
    # there a dollar a share for every dollar the stock closes higher.
    points, even = payoff(app)
    assert even == [strike + limit]
    low, high = points[0], points[-1]
    assert low[0] < strike and low[1] == -limit * 200
    assert high[1] == (high[0] - strike - limit) * 200
    app.d.execute_script("document.querySelector('[data-testid=payoff]').scrollIntoView({block: 'center'})")
    app.settled()
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-payoff-{'zh' if chinese else 'en'}-phone.png"))
    # Every figure says in one sentence what it means.
    helps = app.d.execute_script(
        "return [...document.querySelectorAll('dialog.option-sheet [data-testid] .field-help')].map(e => e.textContent)")
    assert len(helps) == 9 and all(len(h) > 10 for h in helps)  # 5 figures and 4 greeks
    for width in (320, 390):
        app.size(width, 800)
        app.settled()
        assert app.d.execute_script(
            "return document.querySelector('dialog.option-sheet').scrollWidth"
            " - document.querySelector('dialog.option-sheet').clientWidth") <= 0, width
    app.size(390, 844)
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-sheet-{'zh' if chinese else 'en'}-phone.png"))
    if chinese:
        assert english_left(app, "dialog.option-sheet") == []

    # A limit at the ask (a cent over it: the quote may have moved) buys at once.
    field = app.css("#option-limit")
    field.clear()
    field.send_keys(str(ask + Decimal("0.05")))
    app.click("dialog.option-sheet button[type=submit]")
    app.wait.until(lambda d: any("AAPL" in t for t in app.toasts()))
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.option-sheet[open]"))

    # Orders name the contract, never its OCC code.
    app.go("orders")
    name = app.text(f".order a[title='{symbol}']")
    assert symbol not in name and name.startswith("AAPL ") and (("看涨" in name) if chinese else name.endswith(" Call")), name

    # The portfolio lists the contracts as contracts, valued at 100 shares each, linked to the stock's page. The ask
    # may have shown a single contract that minute (its size is drawn each minute, as on a real book): then one
    # filled and the other waits for the next quote, so the holding is read against what the account holds.
    us = next(a for a in app.accounts() if a["market"] == "us")
    held = next(p for p in app.api("GET", f"/accounts/{us['id']}")["body"]["positions"] if p["symbol"] == symbol)
    n = int(Decimal(held["qty"]))
    assert n in (1, 2), held
    app.go("")
    row = app.css(f".row-link[data-symbol='{symbol}']")
    assert row.get_attribute("href").endswith("#/stock/AAPL")
    shown = app.text(f".row-link[data-symbol='{symbol}'] .shares")
    assert shown == (f"{n} 张" if chinese else f"{n} contract{'s' if n > 1 else ''}") or \
        (n == 1 and shown == ("2 张" if chinese else "2 contracts")), shown  # the second filled meanwhile
    n = 2 if shown.startswith("2") else n
    held = next(p for p in app.api("GET", f"/accounts/{us['id']}")["body"]["positions"] if p["symbol"] == symbol)
    assert int(Decimal(held["qty"])) == n
    price = Decimal(app.text(f".row-link[data-symbol='{symbol}'] [data-role=price]").replace(",", ""))
    value = app.text(f".row-link[data-symbol='{symbol}'] [data-role=value]").replace("$", "").replace(",", "")
    assert Decimal(value) == price * 100 * n
    # The model's greeks for the position: n calls move like delta × 100n shares, and lose theta × 100n a day.
    delta, theta = Decimal(held["greeks"]["delta"]), Decimal(held["greeks"]["theta"])
    assert 0 < delta < 1 and theta < 0
    assert abs(Decimal(held["position_delta"]) - delta * 100 * n) <= Decimal("0.02")
    assert abs(Decimal(held["position_theta"]) - theta * 100 * n) <= Decimal("0.02")
    line = app.text(f".row-link[data-symbol='{symbol}'] [data-role=greeks]")
    # (The page and the API read the model a moment apart: the price may have moved a cent between them.)
    shown_delta = Decimal(re.search(r"\+(\d+)", line).group(1))
    assert abs(shown_delta - Decimal(held["position_delta"])) <= 1, (line, held["position_delta"])
    assert (("相当于" in line) if chinese else line.startswith("Moves like")), line
    app.d.execute_script(f"document.querySelector(\".row-link[data-symbol='{symbol}']\").scrollIntoView({{block: 'center'}})")
    app.settled()
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-holding-{'zh' if chinese else 'en'}-phone.png"))
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_sheet_writes_a_covered_call_and_explains_a_cash_secured_put(language_driver, server):
    from decimal import Decimal
    driver, language = language_driver
    chinese = language.startswith("zh")
    app = App(driver, server).signup()
    account = app.switch_account("us")["id"]
    driver.get_log("browser")
    assert app.api("POST", f"/accounts/{account}/orders",
                   {"symbol": "AAPL", "side": "buy", "type": "market", "time_in_force": "day", "qty": "100"}
                   )["status"] in (200, 201)
    app.go("stock/AAPL")
    app.css("table.option-chain tbody tr.price-line")
    symbol = app.d.execute_script(
        "return document.querySelector('tr.price-line').nextElementSibling.dataset.symbol")
    cells = next(r for r in rows(app) if r["symbol"] == symbol)["cells"]
    strike, bid, ask = (Decimal(c.replace(",", "")) for c in cells[:3])
    app.click(f"tr[data-symbol='{symbol}'] th button")
    app.visible("dialog.option-sheet[open]")
    app.click("dialog.option-sheet .segmented button[data-value=write]")

    def figure(testid):
        return app.text(f"[data-testid={testid}] .value").replace("$", "").replace(",", "")

    limit = Decimal(app.value("#option-limit"))
    app.wait.until(lambda d: figure("option-cover") == ("AAPL 100 股" if chinese else "100 shares of AAPL"))
    assert figure("option-amount") == f"{limit * 100:.2f}"
    assert figure("option-breakeven") == f"{strike + limit:.2f}"
    assert figure("option-max-profit") == f"{limit * 100:.2f}"
    assert figure("option-max-loss") == ("由您的股票备兑" if chinese else "Covered by your shares")
    # With the shares that cover it, the call caps the gain: flat from the strike up, at the premium plus the
    # shares' rise to the strike.
    points, _ = payoff(app)
    at_strike = next(p for p in points if p[0] == strike)
    assert points[-1][1] == at_strike[1] and points[-1][0] > strike
    assert points[0][1] < 0 < at_strike[1]
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-write-{'zh' if chinese else 'en'}-phone.png"))
    if chinese:
        assert english_left(app, "dialog.option-sheet") == []

    # Written at the bid (a nickel under it: the quote may have moved), the call fills and shows as written.
    field = app.css("#option-limit")
    field.clear()
    field.send_keys(str(max(bid - Decimal("0.05"), Decimal("0.01"))))
    app.click("dialog.option-sheet button[type=submit]")
    app.wait.until(lambda d: any("AAPL" in t for t in app.toasts()))
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.option-sheet[open]"))
    app.go("")
    assert app.text(f".row-link[data-symbol='{symbol}'] .shares") == ("已卖出 1 张" if chinese else "1 contract written")

    # A put's sheet says how much cash writing it would set aside: the strike × 100.
    app.go("stock/AAPL")
    app.click(".options .segmented button[data-value=put]")
    app.wait.until(lambda d: rows(app) and rows(app)[0]["symbol"][-9] == "P")
    put = rows(app)[0]
    app.click(f"tr[data-symbol='{put['symbol']}'] th button")
    app.visible("dialog.option-sheet[open]")
    app.click("dialog.option-sheet .segmented button[data-value=write]")
    put_strike = Decimal(put["cells"][0].replace(",", ""))
    app.wait.until(lambda d: figure("option-cover") == f"{put_strike * 100:,.2f}".replace(",", ""))
    for width in (320, 390):
        app.size(width, 800)
        app.settled()
        assert app.d.execute_script(
            "return document.querySelector('dialog.option-sheet').scrollWidth"
            " - document.querySelector('dialog.option-sheet').clientWidth") <= 0, width
    app.size(390, 844)
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_a_spread_held_is_charted_as_one_on_the_stock_page(language_driver, server):
    """A call debit spread built in the trade sheet ("Spread": the strike bought, the next one up sold, the figures
    and the chart at the net) and placed as one multi-leg order: the stock page then charts the two contracts
    together — the debit lost below the lower strike, the width less the debit made above the higher."""
    from decimal import Decimal
    import json
    driver, language = language_driver
    chinese = language.startswith("zh")
    app = App(driver, server).signup()
    account = app.switch_account("us")["id"]
    driver.get_log("browser")
    app.go("stock/MSFT")
    app.css("table.option-chain tbody tr.price-line")
    lower, higher = app.d.execute_script("""
        const line = document.querySelector('tr.price-line');
        return [line.nextElementSibling.dataset.symbol, line.nextElementSibling.nextElementSibling.dataset.symbol]""")
    table = {r["symbol"]: [Decimal(c.replace(",", "")) for c in r["cells"][:3]] for r in rows(app)}
    (low_strike, _, low_ask), (high_strike, high_bid, _) = table[lower], table[higher]
    width = high_strike - low_strike

    # The sheet builds it: the strike bought, "Spread", the next strike up sold by default, at the mids' difference.
    app.click(f"tr[data-symbol='{lower}'] th button")
    app.visible("dialog.option-sheet[open]")
    app.click("dialog.option-sheet .segmented button[data-value=spread]")
    app.wait.until(lambda d: app.value("#spread-other") == higher)

    def figure(testid):
        return app.text(f"[data-testid={testid}] .value").replace("$", "").replace(",", "")

    net = Decimal(app.value("#option-limit"))
    assert Decimal("0") < net < width
    app.wait.until(lambda d: figure("option-max-loss") == f"{net * 100:.2f}")
    assert figure("option-amount") == f"{net * 100:.2f}"
    assert figure("option-max-profit") == f"{(width - net) * 100:.2f}"
    assert figure("option-breakeven") == f"{low_strike + net:.2f}"
    points, even = payoff(app)
    assert points[0][1] == -net * 100 and points[-1][1] == (width - net) * 100 and even == [low_strike + net]
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-spread-sheet-{'zh' if chinese else 'en'}-phone.png"))
    if chinese:
        assert english_left(app, "dialog.option-sheet") == []
    # To fill now: the lower call's ask less the higher's bid, and a nickel more (the quotes may move).
    field = app.css("#option-limit")
    field.clear()
    field.send_keys(str(low_ask - high_bid + Decimal("0.05")))
    app.click("dialog.option-sheet button[type=submit]")
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.option-sheet[open]"))
    # The sheet says the spread filled, and each leg's fill is told; the package itself bought no MSFT shares and
    # says nothing of the kind.
    # Each leg's fill names its contract as the user reads it ("MSFT Jan 15 2027 400 Call", "… 看涨"), not its code.
    names = app.d.execute_async_script(
        "import('/app/js/format.js').then((F) => arguments[2]([F.contractName(arguments[0]), F.contractName(arguments[1])]))",
        lower, higher)
    # The sheet says the spread filled, once: the legs' fill notifications are in Notifications, not toasted over
    # it as well (three toasts once stacked over the form).
    filled = "价差已成交" if chinese else "Spread filled"
    app.wait.until(lambda d: [t for t in app.toasts() if t.startswith(filled)])
    told = lambda: [n["title"] + " " + n["body"] for n in app.api("GET", "/notifications")["body"]["notifications"]]
    app.wait.until(lambda d: sum(name in n for n in told() for name in names) >= 2)
    assert not [n for n in told() if lower in n or higher in n], told()
    # Once the app has heard them (the bell counts them, from the same live events that would toast them)…
    app.wait.until(lambda d: int(d.execute_script(
        "return document.querySelector('.bell .badge:not([hidden])')?.textContent || '0'")) >= 2)
    # …no toast but the sheet's own tells of the legs.
    assert not [t for t in app.toasts() if not t.startswith(filled) and any(n in t for n in names)], app.toasts()
    detail = app.api("GET", f"/accounts/{account}")["body"]
    paid = {p["symbol"]: Decimal(p["avg_entry_price"]) for p in detail["positions"]}
    debit = paid[lower] - paid[higher]

    app.go("")
    app.go("stock/MSFT")
    app.visible("[data-testid=position-payoff] svg.payoff-chart polyline")
    points = json.loads(app.d.execute_script(
        "return document.querySelector('[data-testid=position-payoff]').dataset.points"))
    points = [(Decimal(x), Decimal(y)) for x, y in points]
    assert points[0][1] == -debit * 100 and points[-1][1] == (width - debit) * 100, points
    assert len(app.all(".position-payoff ul.legs li")) == 2
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-spread-{'zh' if chinese else 'en'}-phone.png"))
    # On the Orders screen the package reads as one multi-leg order, its legs as the contracts they traded.
    app.go("orders")
    tag = app.text("li.row.order[data-order-class=mleg] .sym .tag")
    assert tag == ("组合委托" if chinese else "Multi-leg")
    symbols = app.d.execute_script(
        "return [...document.querySelectorAll('li.row.order[data-order-class=mleg] .sym a')].map((a) => [a.title, a.textContent])")
    assert sorted(code for code, _ in symbols) == sorted(["MSFT", lower, higher]), symbols
    assert sorted(text for _, text in symbols) == sorted(["MSFT"] + names), symbols
    if chinese:
        assert english_left(app, ".position-payoff") == []
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def away(app, strikes, direction):
    """The call `strikes` strikes from the price line ("next": above it, "previous": below it, or the last there is):
    far enough that the live price, moving while the test clicks, does not take it across the line."""
    return app.d.execute_script("""
        const [strikes, direction] = arguments;
        let row = document.querySelector('tr.price-line');
        for (let i = 0; i < strikes && row[direction + 'ElementSibling']; i++) row = row[direction + 'ElementSibling'];
        return row.dataset.symbol;""", strikes, direction)


def test_a_long_contract_is_exercised_or_declined_from_the_stock_page(language_driver, server):
    """A call held in the money: "Don't exercise at expiry" marks it (the mark is kept by the server), and "Exercise",
    once confirmed, turns it into 100 shares bought at the strike — the cash moves by exactly strike × 100."""
    from decimal import Decimal
    driver, language = language_driver
    chinese = language.startswith("zh")
    app = App(driver, server).signup()
    account = app.switch_account("us")["id"]
    driver.get_log("browser")
    app.go("stock/MSFT")
    app.css("table.option-chain tbody tr.price-line")

    # A call above the price is out of the money: before exercising it the learner is told so, what the
    # shares cost against what they are worth, what selling brings, and the loss exercising locks in.
    otm = away(app, 1, "next")
    placed = app.api("POST", f"/accounts/{account}/orders",
                     {"symbol": otm, "side": "buy", "type": "market", "qty": "1", "time_in_force": "day"})
    assert placed["status"] in (200, 201) and placed["body"]["status"] == "filled", placed
    app.go("")
    app.go("stock/MSFT")
    app.click("[data-testid=exercise-actions] button[data-action=exercise]")
    warning = app.text("dialog[open] [data-testid=confirm-warning]")
    assert ("价外" in warning and "亏损" in warning) if chinese else ("out of the money" in warning and "down" in warning), warning
    assert "MSFT" in warning and str(Decimal(int(otm[-8:])) / 1000).rstrip("0").rstrip(".") in warning.replace(",", ""), warning
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-exercise-otm-{'zh' if chinese else 'en'}-phone.png"))
    app.click("dialog[open] .confirm button.secondary")  # not exercised
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    held = next(p for p in app.api("GET", f"/accounts/{account}")["body"]["positions"] if p["symbol"] == otm)
    assert Decimal(held["qty"]) == 1, "canceling the dialog exercised nothing"
    sold = app.api("POST", f"/accounts/{account}/orders",
                   {"symbol": otm, "side": "sell", "type": "market", "qty": "1", "time_in_force": "day"})
    assert sold["body"]["status"] == "filled", sold

    # A call below the price: in the money.
    call = away(app, 3, "previous")
    placed = app.api("POST", f"/accounts/{account}/orders",
                     {"symbol": call, "side": "buy", "type": "market", "qty": "1", "time_in_force": "day"})
    assert placed["status"] in (200, 201) and placed["body"]["status"] == "filled", placed
    strike = Decimal(int(call[-8:])) / 1000

    app.go("")
    # The holding names its contract in the user's language.
    name = app.text(f"a.row-link[data-symbol='{call}'] .name")
    assert ("MSFT" in name and "看涨" in name) if chinese else name.endswith("Call"), name
    app.go("stock/MSFT")
    app.visible("[data-testid=exercise-actions] button[data-action=dne]")
    app.click("[data-testid=exercise-actions] button[data-action=dne]")
    # Not exercising an in-the-money contract gives up its intrinsic value: said before confirming.
    warning = app.text("dialog[open] [data-testid=confirm-warning]")
    assert "价内" in warning if chinese else "in the money" in warning, warning
    app.click("dialog[open] .confirm button.danger")
    app.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=exercise-actions] [data-role=dne]"))
    assert app.text("[data-testid=exercise-actions] [data-role=dne]") == ("到期不行权" if chinese else "Will not be exercised at expiry")
    position = next(p for p in app.api("GET", f"/accounts/{account}")["body"]["positions"] if p["symbol"] == call)
    assert position["do_not_exercise"] is True
    if chinese:
        assert english_left(app, ".position-payoff") == []
    app.d.save_screenshot(os.path.join(SCREENSHOTS, f"option-exercise-{'zh' if chinese else 'en'}-phone.png"))

    cash = Decimal(app.api("GET", f"/accounts/{account}")["body"]["cash"])
    app.click("[data-testid=exercise-actions] button[data-action=exercise]")
    message = app.text("dialog[open] .confirm p")
    assert "MSFT" in message and "100" in message, message
    app.click("dialog[open] .confirm button.primary")
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid=exercise-actions]"))
    detail = app.api("GET", f"/accounts/{account}")["body"]
    assert not [p for p in detail["positions"] if p["symbol"] == call]
    shares = next(p for p in detail["positions"] if p["symbol"] == "MSFT")
    assert Decimal(shares["qty"]) == 100
    assert Decimal(detail["cash"]) == cash - strike * 100
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_chain_fits_a_320_px_phone_without_scrolling_sideways(language_driver, server):
    """Issue 56: at 320 px the chain's last column needed a sideways scroll; its five columns now fit."""
    driver, language = language_driver
    app = App(driver, server).signup()
    app.switch_account("us")
    app.size(320, 700)
    try:
        app.go("stock/MSFT")
        app.css("table.option-chain tbody tr.price-line")
        app.settled()
        scroll, client = driver.execute_script(
            "const s = document.querySelector('table.option-chain').parentElement; return [s.scrollWidth, s.clientWidth]")
        assert scroll <= client, (language, scroll, client)
        assert app.d.execute_script("return document.documentElement.scrollWidth") <= 320
    finally:
        app.size(390, 844)
