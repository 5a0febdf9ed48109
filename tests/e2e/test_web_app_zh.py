"""The web app in Chinese: a browser whose language is zh-CN gets every main screen in Simplified Chinese, red-up
price colours, 万/亿 volumes, Chinese refusals and Chinese notifications from the server; Settings switches the
language (kept on the server) and back.

Screenshots of every main screen in Chinese (zh-*-phone.png, zh-*-desktop.png) go to tests/e2e/screenshots/.
"""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import App, chromium


@pytest.fixture(scope="module")
def driver():
    d = chromium("zh-CN")
    yield d
    d.quit()


@pytest.fixture
def app(driver, server):
    return App(driver, server).signup()


def english_left(app, selector="main"):
    """English catalogue texts that Chinese words differently, still on screen in `selector`: each English text's
    longest literal run (placeholders cut out) of at least two letters-words, matched as whole words. Data shown as
    given — company names (`.name`) and the provider's words (marked `lang="en"`) — is left out: "XYZ Bank" is a
    name, not an untranslated "Bank"."""
    return app.d.execute_async_script("""
        const [selector, done] = arguments;
        // The main catalogues and the texts screens outside the offline shell bring (i18n/<screen>.<language>.js).
        const files = ['', 'classes.', 'password.', 'keys.', 'webhook.'].flatMap((screen) => [`${screen}en.js`, `${screen}zh-Hans.js`]);
        Promise.all(files.map((f) => import('/app/js/i18n/' + f))).then((modules) => {
          const en = { default: Object.assign({}, ...modules.filter((m, i) => i % 2 === 0).map((m) => m.default)) };
          const zh = { default: Object.assign({}, ...modules.filter((m, i) => i % 2 === 1).map((m) => m.default)) };
          const root = document.querySelector(selector);
          let text = root?.innerText ?? '';
          for (const data of root?.querySelectorAll('.name, [lang=en]') ?? []) {
            if (data.innerText) text = text.split(data.innerText).join(' ');
          }
          const found = [];
          for (const [key, english] of Object.entries(en.default)) {
            if (zh.default[key] === english) continue;
            const run = english.split(/\\{\\w+\\}/).map((s) => s.trim()).sort((a, b) => b.length - a.length)[0] ?? '';
            if (!/[A-Za-z]{2,}[^A-Za-z]+[A-Za-z]{2,}/.test(run) && !/^[A-Z][a-z]{3,}$/.test(run)) continue;
            const escaped = run.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
            if (new RegExp(`(^|[^A-Za-z])${escaped}($|[^A-Za-z])`).test(text)) found.push(`${key}: ${run}`);
          }
          done(found);
        });
    """, selector)


def zh_trade(app, symbol, side, qty):
    """Buys or sells through the trade sheet, pressing its buttons by their place (their words are Chinese)."""
    app.open_trade(symbol, side)
    app.set_qty(qty)
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.click("dialog[open] .confirm-step button.primary")


def test_every_main_screen_is_in_chinese_with_red_up_colours(app):
    assert app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    assert app.d.execute_script("return document.documentElement.dataset.colors") == "red-up"
    tabs = [t.text for t in app.all("nav.tabs a")]
    assert tabs[0] == "首页" and "排队" in "".join(tabs), tabs
    # The browser's language is remembered for the user, so notifications and pushes are in Chinese too.
    assert app.api("GET", "/me")["body"]["language"] == "zh-Hans"
    assert {a["name"] for a in app.accounts()} == {"美股模拟账户", "A 股模拟账户"}

    # A Chinese user starts on the A-share account: the first buy of 茅台 goes through, no refusal for the market.
    app.go("")
    assert app.text("main h1") == "A 股模拟账户"
    zh_trade(app, "600519", "buy", "100")
    assert app.toast("您已成功买入 600519 100 股")
    app.switch_account("us")
    zh_trade(app, "AAPL", "buy", "3")
    assert app.toast("您已成功买入 AAPL 3 股")
    app.switch_account("cn")

    screens = [("home", "", ".net-worth"), ("explore", "explore", ".rows"), ("orders", "orders", ".order"),
               ("account", "account", ".transactions"), ("notifications", "notifications", ".notifications"),
               ("settings", "settings", ".language"), ("queue", "queue", ".queue-form"),
               ("alerts", "alerts", "#alerts-active-title"), ("performance", "performance", "[data-testid=figure-twr]"),
               ("games", "games", "#games-mine-title"), ("game-new", "games/new", ".game-form"),
               ("backtest", "backtest", ".backtest-form"), ("stock-a-share", "stock/600519", ".depth-table")]
    for name, route, ready in screens:
        app.go(route)
        app.css(ready)
        app.settled()
        assert english_left(app) == [], name
        app.clear_toasts()
        app.shot(f"zh-{name}")

    stats = app.text(".stats")
    assert "涨停价" in stats and "跌停价" in stats
    assert any(unit in stats for unit in ("万", "亿")), stats
    # The chart's range tabs are Chinese, and so are the labels it draws on its canvas (a DOM check cannot read
    # them): the volume axis in 万/亿, the time axis in the Chinese locale.
    tabs = [b.text for b in app.all(".chart-card .segmented:not(.kline) button")]
    assert tabs == ["1日", "1周", "1月", "6月", "1年", "5年"], tabs
    volume = app.d.execute_async_script(
        "import('/app/js/chart.js').then((c) => arguments[0]([c.volumeLabel(4070000), c.volumeLabel(159200)]))")
    assert volume == ["407.00万", "15.92万"], volume
    assert "卖1" in app.text(".depth-table") and "买1" in app.text(".depth-table")
    assert "北京时间" in app.text(".market-status")

    # The alert sheet: how long it watches is chosen in Chinese words, not a browser date field's "mm/dd/yyyy".
    app.click(".alert-bell")
    expiry = [o.text for o in Select(app.visible("dialog[open] #alert-expires")).options]
    assert expiry == ["永不", "1 天后", "1 周后", "1 个月后", "3 个月后"], expiry
    assert english_left(app, "dialog[open]") == []
    app.d.find_element(By.CSS_SELECTOR, "dialog[open] .sheet-head button").click()

    app.open_trade("600519", "buy")
    app.set_qty("100")
    app.text_in('dialog[open] [data-testid="estimate-total"]', "¥")
    assert english_left(app, "dialog[open]") == []
    assert "A 股以 100 股为一手交易" in app.text("dialog[open] [data-field=qty] .field-help")
    app.shot("zh-trade-sheet")
    app.d.find_element(By.CSS_SELECTOR, "dialog[open] .sheet-head button").click()

    app.switch_account("us")
    app.go("stock/AAPL")
    app.css(".chart-area canvas")
    app.settled()
    assert english_left(app) == []
    app.shot("zh-stock")

    # The notifications the server wrote for the fills are in Chinese.
    app.go("notifications")
    assert "买入 600519" in app.text_in(".notifications", "买入 600519")


def zh_review(app, symbol, side, qty):
    """Fills the trade sheet and presses its review button (for an order the sheet refuses before confirming)."""
    app.open_trade(symbol, side)
    app.set_qty(qty)
    app.click("dialog[open] form.trade-form button[type=submit]")


def test_a_refused_order_is_explained_in_chinese(app):
    app.switch_account("cn")
    app.open_trade("600519", "buy")
    app.set_qty("150")
    # Said while typing, before any review or confirm step, with the most that can be bought.
    refusal = app.text_in('dialog[open] [data-testid="refusal"]', "600519 的委托数量 150 必须是每手 100 股的整数倍")
    app.click("dialog[open] form.trade-form button[type=submit]")
    assert app.toast("600519 的委托数量 150 必须是每手 100 股的整数倍")
    assert app.all("dialog[open] #qty") and not app.all("dialog[open] .confirm-step"), "the sheet stays on the form"
    assert "{" not in refusal


def test_cash_held_for_an_open_order_is_named_where_cash_is_shown(app):
    """Home's cash balance counts cash an open buy order holds; the trade sheet's available cash does not. Both say
    so, with the same figures, instead of two different amounts called the same."""
    account = next(a for a in app.accounts() if a["market"] == "cn")
    last = app.api("GET", "/quotes/600519")["body"]["last"]
    bid = app.d.execute_script("return (Math.floor(+arguments[0] * 0.95 * 100) / 100).toFixed(2)", last)
    placed = app.api("POST", f"/accounts/{account['id']}/orders", {"symbol": "600519", "side": "buy", "type": "limit",
                                                                  "qty": "100", "limit_price": bid, "time_in_force": "day"})
    assert placed["status"] in (200, 201), placed
    detail = app.api("GET", f"/accounts/{account['id']}")["body"]
    money = lambda text: app.d.execute_async_script(
        "import('/app/js/format.js').then((F) => arguments[1](F.money(arguments[0], 'CNY')))", text)
    held = app.d.execute_script("return (+arguments[0] - +arguments[1]).toFixed(2)", detail["cash"], detail["buying_power"])
    assert float(held) > 0, detail
    app.select_account(account)
    assert app.text('[data-testid="cash"]') == money(detail["cash"])
    assert app.text('[data-testid="held"]') == money(held)
    assert "冻结" in app.text(".figures .held dt")
    app.open_trade("600519", "buy")
    available = app.text_in("dialog[open] p.available", "冻结")
    assert available == f"可用资金：{money(detail['buying_power'])}（现金余额 {money(detail['cash'])}，其中 {money(held)} 为未成交委托冻结）", available


def first_tab(driver):
    """The first tab's label, read in one step (the shell re-renders when the language changes)."""
    return driver.execute_script("return document.querySelector('nav.tabs a')?.innerText.trim()")


def test_settings_switches_the_language_and_back(app):
    app.go("settings")
    app.click(".language input[value=en]")
    app.wait.until(lambda d: first_tab(d) == "Home")
    assert app.d.execute_script("return document.documentElement.lang") == "en"
    assert app.api("GET", "/me")["body"]["language"] == "en"
    # Colours follow the language until chosen: English defaults to green-up.
    assert app.d.execute_script("return document.documentElement.dataset.colors") == "green-up"
    assert app.text("main h1") == "Settings"
    # The accounts still called by their default names read in English now, in the switcher and from the API; a
    # name the user gave stays theirs.
    switcher = lambda: app.d.execute_script(
        "return [...document.querySelectorAll('select.account-switcher option')].map((o) => o.textContent)")
    app.wait.until(lambda d: "US paper account · USD" in switcher())
    assert not any("模拟账户" in name for name in switcher()), switcher()
    assert {a["name"] for a in app.accounts()} >= {"US paper account"}
    app.d.refresh()
    app.wait.until(lambda d: first_tab(d) == "Home")

    app.go("settings")
    app.click(".language input[value='zh-Hans']")
    app.wait.until(lambda d: first_tab(d) == "首页")
    assert app.api("GET", "/me")["body"]["language"] == "zh-Hans"
    assert app.text("main h1") == "设置"
    app.wait.until(lambda d: "美股模拟账户 · USD" in switcher())


def test_a_game_in_chinese_and_its_rule_refusal(app):
    game = app.api("POST", "/games", {"name": "经济学 101", "starting_cash": "50000",
                                      "rules": {"quick_sell_minutes": 15}})["body"]
    joined = app.api("POST", f"/games/{game['id']}/join", {})["body"]
    assert any(a["name"] == "比赛：经济学 101" for a in app.accounts())  # named in the player's language
    app.d.refresh()  # the game account joins the account switcher
    app.css(".net-worth")
    app.go(f"games/{game['id']}")
    app.text_in(".my-standing", "您排名第 1")
    app.settled()
    assert english_left(app) == []
    assert "买入后 15 分钟内不得卖出" in app.text(".game-rules")
    app.shot("zh-game")
    # Trading in the game account: the game's rule answers in Chinese.
    app.d.execute_script("""
        const select = document.querySelector('select.account-switcher');
        select.value = arguments[0];
        select.dispatchEvent(new Event('change'));
    """, joined["account_id"])
    zh_trade(app, "AAPL", "buy", "1")
    assert app.toast("您已成功买入 AAPL 1 股")
    zh_review(app, "AAPL", "sell", "1")
    assert app.toast("本比赛规定买入后 15 分钟内不得卖出：AAPL 还需等待")


def test_each_catalogue_names_each_text_once():
    """A key written twice in a catalogue is a text silently lost (a JavaScript object keeps the last one): the stock
    page once showed "Earnings surprises" where "Earnings in 3 days" was meant."""
    import collections
    import pathlib
    import re
    web = pathlib.Path(__file__).resolve().parents[2] / "Sources/Server/Web/js/i18n"
    for name in ("en.js", "zh-Hans.js"):
        keys = re.findall(r"^\s*'([^']+)':", (web / name).read_text(), re.M)
        assert len(keys) > 500
        twice = [k for k, n in collections.Counter(keys).items() if n > 1]
        assert twice == [], (name, twice)
