"""Accessibility, as people who cannot use a pointer or small text meet the web app:

- axe-core (the engine PyPI's axe-core-python ships, 4.4) on every screen of the tour — sign-in and sign-up, each
  tab, a US and an A-share stock, a game, the trade sheet, the currency sheet — in English and Chinese, light and
  dark, finds nothing serious or critical (contrast, names of buttons and icons, labels of fields, ARIA, structure);
- a price chart's values are read with the arrow keys into a live region, and a trade is placed with the keyboard
  alone (Tab, Enter, typing);
- at 200% text (the browser's own text-size setting) no screen is pushed sideways off a phone and the tab bar's
  labels are whole.
"""
import shutil
from pathlib import Path

import axe_core_python
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from browser import App, SCREENSHOTS, chromium
from conftest import Server
from test_web_tour import SCREENS, settled

AXE = Path(axe_core_python.__file__).with_name("axe.min.js").read_text()


@pytest.fixture(scope="module")
def a11y_server():
    s = Server(clock="always-open").start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def a11y_driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


def findings(app, where):
    """axe-core's serious and critical findings on the page as it is now, each with where it was and its first
    elements. Transitions are waited out first: a toast half faded in measures as faint text."""
    app.settled()
    app.still()
    if not app.d.execute_script("return Boolean(window.axe)"):
        app.d.execute_script(AXE)
    violations = app.d.execute_async_script("""
        const done = arguments[0];
        axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations), (e) => done([{ impact: 'critical', id: 'axe-error', help: String(e), nodes: [] }]));
    """)
    return [f"{where}: {v['impact']} {v['id']} ({v['help']}): " + "; ".join(" ".join(n["target"]) for n in v["nodes"][:4])
            for v in violations if v["impact"] in ("serious", "critical")]


def set_theme(app, theme):
    app.d.execute_script("""
        localStorage.setItem('papertrade.theme', arguments[0]);
        document.dispatchEvent(new Event('papertrade:theme'));""", theme)
    assert app.d.execute_script("return document.documentElement.dataset.scheme") == theme


def test_axe_finds_nothing_serious_on_any_screen_in_either_language_or_theme(a11y_driver, a11y_server):
    app = App(a11y_driver, a11y_server)
    problems = []
    for theme in ("light", "dark"):
        # Signed out: the sign-in form, then the sign-up form.
        app.d.delete_all_cookies()
        app.open()
        app.d.execute_script("localStorage.clear()")
        app.d.refresh()
        set_theme(app, theme)
        app.css("#username")
        problems += findings(app, f"{theme} sign-in")
        app.click("button.link")
        app.css("#password[autocomplete=new-password]")
        problems += findings(app, f"{theme} sign-up")

        app.signup()
        set_theme(app, theme)
        account = next(a for a in app.accounts() if a["market"] == "us")
        assert app.api("POST", f"/accounts/{account['id']}/orders", {"symbol": "AAPL", "side": "buy", "type": "market",
                                                                      "qty": "2", "time_in_force": "day"})["status"] in (200, 201)
        game = app.api("POST", "/games", {"name": "Accessible", "starting_cash": "50000"})["body"]
        for route, selector in SCREENS + [(f"games/{game['id']}", "main h1")]:
            app.go(route)
            settled(app, selector)
            problems += findings(app, f"{theme} #/{route}")
        # The trade sheet of a stock in the account's market (a Chinese user starts on the A-share account).
        app.open_trade("600519" if app.d.execute_script("return document.documentElement.lang") == "zh-Hans" else "AAPL", "buy")
        problems += findings(app, f"{theme} the trade sheet")
        app.d.find_element("css selector", "dialog[open] #qty").send_keys(Keys.ESCAPE)
        # A coin's trade sheet on the US account, by an amount of dollars: its unit switch, fee and what it receives.
        app.select_account(account)
        app.open_trade("BTC%2FUSD", "buy")
        app.still()  # the sheet has finished sliding in
        app.click("dialog[open] .segmented [data-value='amount']")
        app.set_qty("50")
        app.css("dialog[open] [data-testid=receive]")
        problems += findings(app, f"{theme} a coin's trade sheet")
        app.d.find_element("css selector", "dialog[open] #qty").send_keys(Keys.ESCAPE)
        # Moving money to the other account, reviewed: the rate, mid rate, spread and fee.
        app.go("account")
        settled(app, ".balance .actions")
        app.click(".balance .actions button:last-child")
        app.visible("dialog[open] #move-amount").send_keys("500")
        app.click("dialog[open] button[type=submit]")
        app.css("dialog[open] [data-testid=move-review] dl")
        problems += findings(app, f"{theme} the move-money sheet, reviewed")
        app.d.find_element("css selector", "dialog[open] #move-amount").send_keys(Keys.ESCAPE)
        # The currency sheet on a pair's page, an amount typed: what it pays and receives, and the rate.
        app.go("stock/EUR.USD")
        settled(app, ".forex-actions .trade-bar")
        app.click(".forex-actions .trade-bar button.buy")
        app.visible("dialog[open] #qty").send_keys("1000")
        app.css("dialog[open] [data-testid=forex-pay]")
        problems += findings(app, f"{theme} the currency sheet")
        app.d.find_element("css selector", "dialog[open] #qty").send_keys(Keys.ESCAPE)
    assert problems == [], "\n".join(problems)


def active(app, selector):
    return app.d.execute_script("return document.activeElement?.matches(arguments[0]) ?? false", selector)


def tab_to(app, selector, limit=120):
    """Presses Tab (as a person does, from wherever focus is) until the focused element matches `selector`."""
    for _ in range(limit):
        if active(app, selector):
            return app.d.switch_to.active_element
        ActionChains(app.d).send_keys(Keys.TAB).perform()
    raise AssertionError(f"{limit} presses of Tab never reached {selector}; focus is on "
                         + app.d.execute_script("const e = document.activeElement; return e.outerHTML.slice(0, 200)"))


def test_a_price_charts_values_are_read_with_the_arrow_keys(a11y_driver, a11y_server):
    app = App(a11y_driver, a11y_server).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    bars = app.api("GET", "/bars/AAPL?timeframe=1Min")["body"]["bars"]
    app.go("stock/AAPL")
    app.css(".chart-area canvas")
    app.settled()
    readout = '[data-testid="chart-readout"]'
    assert app.d.execute_script(f"return document.querySelector('{readout}').getAttribute('aria-live')") == "polite"
    # From the range tabs, Tab reaches the chart; Home shows the session's first minute.
    app.d.execute_script("document.querySelector('.chart-card button').focus()")
    tab_to(app, ".chart-area", limit=12)
    ActionChains(app.d).send_keys(Keys.HOME).perform()
    first = app.text(readout)
    close = app.d.execute_script("return (+arguments[0]).toFixed(2)", bars[0]["c"])
    assert close in first and ("成交量" if chinese else "volume") in first, (first, bars[0])
    ActionChains(app.d).send_keys(Keys.ARROW_RIGHT).perform()
    app.wait.until(lambda d: app.text(readout) != first)
    ActionChains(app.d).send_keys(Keys.ARROW_LEFT).perform()
    app.wait.until(lambda d: app.text(readout) == first)
    # Leaving the chart clears what it read out.
    ActionChains(app.d).send_keys(Keys.TAB).perform()
    app.wait.until(lambda d: app.text(readout) == "")


def test_a_trade_is_placed_with_the_keyboard_alone(a11y_driver, a11y_server):
    app = App(a11y_driver, a11y_server).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    account = next(a for a in app.accounts() if a["market"] == "us")
    app.select_account(account)
    app.go("stock/AAPL")
    app.css(".stock-title h1")
    app.settled()
    app.d.execute_script("document.activeElement?.blur()")
    tab_to(app, ".trade-bar .buy").send_keys(Keys.ENTER)
    app.visible("dialog[open] #qty")
    tab_to(app, "dialog[open] #qty").send_keys(Keys.CONTROL, "a")
    app.d.switch_to.active_element.send_keys("3")
    tab_to(app, "dialog[open] button[type=submit]").send_keys(Keys.ENTER)  # Review order
    # The confirm step takes focus: Enter there places the order.
    confirm = "确认买入" if chinese else "Confirm buy"
    app.wait.until(lambda d: d.switch_to.active_element.text.strip() == confirm)
    app.d.switch_to.active_element.send_keys(Keys.ENTER)
    app.wait.until(lambda d: any(p["symbol"] == "AAPL" and p["qty"] == "3"
                                 for p in app.api("GET", f"/accounts/{account['id']}")["body"]["positions"]))


@pytest.fixture(scope="module")
def large_text_driver():
    d = chromium("zh-CN", font_size=32)
    yield d
    d.quit()


@pytest.mark.parametrize("width", [320, 390])
def test_at_200_percent_text_no_screen_spills_sideways(large_text_driver, a11y_server, width):
    app = App(large_text_driver, a11y_server).signup()
    assert app.d.execute_script("return getComputedStyle(document.documentElement).fontSize") == "32px"
    app.size(width, 800)
    problems = []
    for route, selector in SCREENS:
        app.go(route)
        settled(app, selector)
        wider = app.d.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wider > 0:
            widest = app.d.execute_script("""
                const w = document.documentElement.clientWidth;
                const clipped = (e) => {  // inside a box that scrolls or clips within the screen (a table, a strip)
                  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
                    if (getComputedStyle(a).overflowX !== 'visible') return a.getBoundingClientRect().right <= w + 1;
                  }
                  return false;
                };
                return [...document.querySelectorAll('main *, header *')].filter((e) => e.getBoundingClientRect().right > w + 1 && !clipped(e))
                  .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${Math.round(e.getBoundingClientRect().right)}px`).slice(0, 4)""")
            problems.append(f"#/{route}: {wider}px wider than the screen: {widest}")
            app.d.save_screenshot(f"{SCREENSHOTS}/large-text-{route.replace('/', '-') or 'home'}-{width}.png")
        cut = app.d.execute_script("""
            return [...document.querySelectorAll('nav.tabs a, header.topbar button, header.topbar select')]
              .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent.trim() || e.getAttribute('aria-label'))""")
        if cut:
            problems.append(f"#/{route}: cut off: {cut}")
    assert problems == [], "\n".join(problems)
