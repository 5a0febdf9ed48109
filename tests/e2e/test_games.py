"""Games end to end against a real `papertrade serve`: a teacher creates a game in the browser and a second user
joins through the invite link, trades, and sees the leaderboard move; a bot plays the same game through alpaca-py
with the game account's own key, and meets the game's rules in Alpaca's error shape."""
import os
import subprocess
import uuid
from decimal import Decimal

import pytest
import requests
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, OrderStatus, TimeInForce
from alpaca.trading.requests import LimitOrderRequest, MarketOrderRequest
from selenium.webdriver.common.by import By

from browser import App, SCREENSHOTS
from conftest import BINARY


def signup(server, username=None):
    """A new user's session (requests keeps the cookie)."""
    s = requests.Session()
    r = s.post(f"{server.url}/api/v1/auth/signup",
               json={"username": username or "p" + uuid.uuid4().hex[:10], "password": "correct horse"})
    assert r.status_code in (200, 201), r.text
    return s


def game_cli(server, username, *args):
    env = dict(os.environ, PAPERTRADE_URL=server.url, PAPERTRADE_USERNAME=username, PAPERTRADE_PASSWORD="correct horse")
    return subprocess.run([BINARY, "game", *args], env=env, capture_output=True, text=True, timeout=60)


def test_the_game_cli_creates_lists_joins_and_shows_the_leaderboard(server):
    owner, player = "o" + uuid.uuid4().hex[:8], "q" + uuid.uuid4().hex[:8]
    signup(server, owner)
    signup(server, player)
    created = game_cli(server, owner, "create", "CLI Cup", "--cash", "25000", "--private",
                       "--rule", "max_position_percent=25", "--rule", "day_trading=false")
    assert created.returncode == 0, created.stderr
    game_id = created.stdout.split("id ")[1].split()[0]
    code = created.stdout.split("Join code: ")[1].split()[0]
    assert "/#/join/" + code in created.stdout

    listed = game_cli(server, owner, "list", "--mine")
    assert game_id in listed.stdout and "CLI Cup" in listed.stdout and "owner" in listed.stdout

    refused = game_cli(server, player, "join", game_id)
    assert refused.returncode != 0 and "404" in refused.stderr  # private: the code is needed
    joined = game_cli(server, player, "join", code.lower(), "--api-key")
    assert joined.returncode == 0, joined.stderr
    assert "Joined: game account" in joined.stdout and "APCA_API_SECRET_KEY=" in joined.stdout

    board = game_cli(server, player, "leaderboard", game_id)
    assert board.returncode == 0, board.stderr
    lines = board.stdout.strip().splitlines()
    assert lines[0].startswith("Standings as of") and player in lines[2] and "25000" in lines[2]
    bad = game_cli(server, owner, "create", "Bad", "--rule", "short_selling=true")
    assert bad.returncode != 0 and "short_selling needs margin" in bad.stderr


def test_a_bot_plays_a_game_through_alpaca_py_and_meets_its_rules(server):
    teacher, bot = signup(server), signup(server)
    game = teacher.post(f"{server.url}/api/v1/games", json={
        "name": "Bots only", "market": "us", "starting_cash": "50000", "visibility": "private",
        "rules": {"commission_per_trade": "1", "min_price_buy": "1", "max_position_percent": "20",
                  "max_trades_per_day": 3, "quick_sell_minutes": 15}}).json()
    joined = bot.post(f"{server.url}/api/v1/games/{game['id']}/join",
                      json={"code": game["join_code"], "api_key": True})
    assert joined.status_code == 201, joined.text
    key = joined.json()
    client = TradingClient(key["key_id"], key["secret"], paper=True, url_override=server.url)

    account = client.get_account()
    assert Decimal(account.cash) == Decimal("50000")
    order = client.submit_order(MarketOrderRequest(symbol="AAPL", qty=10, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert order.status == OrderStatus.FILLED
    price = Decimal(order.filled_avg_price)
    # The $1 commission is charged once on the order.
    assert Decimal(client.get_account().cash) == Decimal("50000") - price * 10 - 1

    # 20% of the portfolio in one stock: a purchase taking AAPL past it is refused, with the rule in the message.
    too_big = int(Decimal("12000") / price) + 1
    with pytest.raises(APIError) as refused:
        client.submit_order(MarketOrderRequest(symbol="AAPL", qty=too_big, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert refused.value.status_code == 403
    assert refused.value.code == 40310000
    assert "This game allows at most 20% of your portfolio in one stock; this order would make AAPL" in str(refused.value)

    # Quick sell: the shares were bought a moment ago.
    with pytest.raises(APIError) as quick:
        client.submit_order(MarketOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.DAY))
    assert "no sale within 15 minutes of a purchase" in str(quick.value)

    # Three orders a day: two were placed (the refused ones do not count); a resting limit is the third.
    limit = client.submit_order(LimitOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY,
                                                  limit_price=1))
    client.submit_order(LimitOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY, limit_price=1))
    with pytest.raises(APIError) as fourth:
        client.submit_order(LimitOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY,
                                              limit_price=1))
    assert "This game allows at most 3 orders a day; you have placed 3 today" in str(fourth.value)
    client.cancel_order_by_id(limit.id)

    # The leaderboard shows the bot with its trade, as the teacher sees it.
    board = teacher.get(f"{server.url}/api/v1/games/{game['id']}/leaderboard").json()
    assert [e["account_id"] for e in board["entries"]] == [key["account_id"]]
    assert board["entries"][0]["trades"] == 1 and board["final"] is False

    # Ended by the teacher: the standings freeze and the bot can no longer trade.
    assert teacher.post(f"{server.url}/api/v1/games/{game['id']}/end").json()["status"] == "ended"
    with pytest.raises(APIError) as ended:
        client.submit_order(MarketOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    assert "This game ended at" in str(ended.value)
    final = teacher.get(f"{server.url}/api/v1/games/{game['id']}/leaderboard").json()
    assert final["final"] is True and final["entries"] == teacher.get(
        f"{server.url}/api/v1/games/{game['id']}/leaderboard").json()["entries"]


def test_a_game_that_allows_currencies_counts_euros_at_the_rate_and_one_that_does_not_refuses_them(server):
    teacher, player = signup(server), signup(server)
    results = {}
    for forex in (True, False):
        game = teacher.post(f"{server.url}/api/v1/games", json={
            "name": f"Currencies {forex}", "market": "us", "starting_cash": "50000", "visibility": "private",
            "rules": {"forex": forex}}).json()
        assert game["rules"]["forex"] is forex
        joined = player.post(f"{server.url}/api/v1/games/{game['id']}/join", json={"code": game["join_code"]})
        assert joined.status_code == 201, joined.text
        account = joined.json()["account_id"]
        placed = player.post(f"{server.url}/api/v1/accounts/{account}/orders", json={
            "symbol": "EUR.USD", "side": "buy", "type": "market", "qty": "10000", "time_in_force": "gtc"})
        results[forex] = (game, account, placed)
    game, account, placed = results[True]
    assert placed.status_code in (200, 201) and placed.json()["status"] == "filled", placed.text
    detail = player.get(f"{server.url}/api/v1/accounts/{account}").json()
    eur = next(b for b in detail["balances"] if b["currency"] == "EUR")
    assert eur["amount"] == "10000"
    board = teacher.get(f"{server.url}/api/v1/games/{game['id']}/leaderboard").json()
    # The standings count the euros at the rate: equity is the dollars left and the euros' worth.
    assert Decimal(board["entries"][0]["equity"]) == Decimal(detail["cash"]) + Decimal(eur["value"])
    refused = results[False][2]
    assert refused.status_code == 403, refused.text
    assert "This game does not allow currencies" in refused.json()["message"]


@pytest.fixture
def app(driver, server):
    return App(driver, server)


def test_create_a_game_join_by_invite_link_trade_and_see_the_leaderboard(app):
    # The teacher creates a private game through the form.
    app.signup()
    teacher = app.username
    app.go("games")
    app.click('a[href="#/games/new"]')
    app.css("#g-name").send_keys("Econ 101")
    cash = app.css("#g-cash")
    cash.clear()
    cash.send_keys("50000")
    app.css("#g-max_position_percent").send_keys("50")
    app.css("#g-quick_sell_minutes").send_keys("15")
    app.click("#g-play")  # a teacher runs the game without playing in it
    app.click("#g-options")  # stocks only: options are on unless the teacher turns them off
    assert "at most this % of the portfolio in one stock" in app.text("#g-max_position_percent-help")
    app.shot("game-create")
    app.click(".game-form button[type=submit]")
    assert app.toast("Created Econ 101")
    invite = app.value(".invite input")
    assert "/#/join/" in invite
    assert "At most 50% of the portfolio in one stock." in app.text(".game-rules")
    assert "No sale within 15 minutes of a purchase." in app.text(".game-rules")
    assert "No options: stocks and ETFs only." in app.text(".game-rules")
    app.text_in("main", "No players yet")
    # The owner may rename it later; its rules stay fixed.
    app.button("Edit the game")
    name = app.visible("dialog[open] #e-name")
    name.clear()
    name.send_keys("Econ 101 (fall)")
    app.button("Save", within="dialog")
    assert app.toast("Saved.")
    app.text_in("main h1", "Econ 101 (fall)")

    # A student opens the link, signs up, and joins.
    app.signup()
    student = app.username
    app.d.get(invite)
    app.text_in("main h1", "Econ 101 (fall)")
    assert "You are invited to this game." in app.text("main")
    app.button("Join this game")
    assert app.toast("You joined Econ 101 (fall)")
    app.text_in(".my-standing", "You are #1 of 1")
    app.shot("game-page")

    # Trading in the game: the game account is the one selected; a purchase shows on the board.
    app.button("Trade in this game")
    app.wait.until(lambda d: "Game: Econ 101" in d.find_element(By.CSS_SELECTOR, "select.account-switcher").text)
    app.trade("AAPL", "buy", "10")
    assert app.toast("You have successfully bought 10 shares of AAPL")
    # The rule holds in the app too: selling right away is refused with the game's reason, said in the sheet while
    # typing and again on "Review" (the order never reaches the confirm step).
    app.open_trade("AAPL", "sell")
    app.set_qty("1")
    app.text_in('dialog[open] [data-testid="refusal"]', "This game allows no sale within 15 minutes of a purchase")
    app.button("Review order", within="dialog")
    assert app.toast("This game allows no sale within 15 minutes of a purchase")
    assert not app.all("dialog[open] .confirm-step")
    app.click('dialog[open] .sheet-head button')  # the sheet stays open on a refusal; the student closes it

    app.go("games")
    app.click(".game .row-link")
    row = app.css(f'table.leaderboard tr.me')
    # The trades column (shown from 600 px; read from the page here at phone size): the one purchase.
    app.wait.until(lambda d: d.execute_script(
        "return document.querySelector('table.leaderboard tr.me td:nth-last-child(1)')?.textContent") == "1")
    assert student in row.text
    assert teacher not in app.text("table.leaderboard")
    assert app.overflow() == 0, "the game page fits a 320 px phone"


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_a_long_game_name_keeps_the_header_to_two_rows_on_a_phone(server, language):
    """A game account named at length (issue 56: 40 characters took 185 of 844 px and pushed the header to three
    rows): at 320 and 390 px the brand, the account switcher, the bell and settings share the first row, the search
    the second; on a desktop, one row."""
    from browser import chromium
    driver = chromium(language)
    try:
        app = App(driver, server).signup()
        name = "班级模拟大赛 2026 冬季挑战赛（第一期）决赛圈特别加赛" if language == "zh-CN" else \
            "Winter Challenge 2026, Round One: The Grand Final Qualifier"
        game = app.api("POST", "/games", {"name": name, "starting_cash": "100000", "market": "us"})
        assert game["status"] in (200, 201), game
        joined = app.api("POST", f"/games/{game['body']['id']}/join", {"code": game["body"].get("join_code")})
        assert joined["status"] in (200, 201), joined
        app.d.refresh()
        app.select_account(next(a for a in app.accounts() if a["id"] == joined["body"]["account_id"]))
        for width, rows in [(320, 2), (390, 2), (1280, 1)]:
            app.size(width, 844 if width < 1000 else 900)
            app.settled()
            boxes = driver.execute_script("""
                const box = (s) => { const r = document.querySelector(s).getBoundingClientRect();
                                     return {top: r.top, bottom: r.bottom, right: r.right}; };
                return {bar: box('header.topbar'), brand: box('header.topbar .brand'),
                        switcher: box('header.topbar .account-switcher'), bell: box('header.topbar .bell'),
                        settings: box('header.topbar a[href="#/settings"]'), search: box('header.topbar .search'),
                        page: document.documentElement.scrollWidth};
            """)
            first = boxes["brand"]["top"]
            for part in ("switcher", "bell", "settings"):
                assert abs(boxes[part]["top"] - boxes["brand"]["top"]) < 12, (width, part, boxes)
            if rows == 2:
                assert boxes["search"]["top"] > first + 20, (width, boxes)
            else:
                assert abs(boxes["search"]["top"] - first) < 12, (width, boxes)
            assert boxes["settings"]["right"] <= width and boxes["page"] <= width, (width, boxes)
            assert boxes["bar"]["bottom"] - boxes["bar"]["top"] <= (112 if rows == 2 else 64), (width, boxes)
            if width == 320:
                app.d.save_screenshot(os.path.join(SCREENSHOTS, f"header-long-game-{language[:2]}-320.png"))
    finally:
        driver.quit()


@pytest.mark.parametrize("width", [320, 390])
def test_the_owners_leaderboard_fits_a_phone_with_long_player_names(server, width):
    """The owner's view in Chinese (issue 56: a hidden "移除" label escaped the table's scroll box and widened the page
    to 398 px, the remove column was off screen, long names were cut without an ellipsis): nothing wider than the
    screen, every remove button on it, long names ending in an ellipsis."""
    from browser import chromium
    driver = chromium("zh-CN")
    try:
        app = App(driver, server).signup()
        created = app.api("POST", "/games", {"name": "排行榜", "starting_cash": "100000", "market": "us"})
        assert created["status"] in (200, 201), created
        game = created["body"]
        for n in range(3):
            player = requests.Session()
            name = f"p{n}_{uuid.uuid4().hex[:6]}_with_a_long_name_x"[:32]
            signed = player.post(f"{server.url}/api/v1/auth/signup", json={"username": name, "password": "correct horse"},
                                 timeout=60)
            assert signed.status_code in (200, 201), signed.text
            joined = player.post(f"{server.url}/api/v1/games/{game['id']}/join", json={"code": game.get("join_code")},
                                 timeout=60)
            assert joined.status_code in (200, 201), joined.text
        app.size(width, 844)
        app.go(f"games/{game['id']}")
        app.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")) == 3)
        app.settled()
        facts = driver.execute_script("""
            const names = [...document.querySelectorAll('table.leaderboard th[scope=row] .link')];
            const removes = [...document.querySelectorAll('table.leaderboard .remove')];
            const tabs = [...document.querySelectorAll('nav.tabs a, .tabs a')];
            return {page: document.documentElement.scrollWidth,
                    removes: removes.map((b) => b.getBoundingClientRect().right),
                    tabs: tabs.map((a) => a.getBoundingClientRect().right),
                    names: names.map((b) => ({cut: b.scrollWidth > b.clientWidth,
                                              ellipsis: getComputedStyle(b).textOverflow === 'ellipsis'}))};
        """)
        assert facts["page"] <= width, facts
        assert len(facts["removes"]) == 3 and max(facts["removes"]) <= width, facts
        assert facts["tabs"] and max(facts["tabs"]) <= width, facts
        assert all(n["ellipsis"] for n in facts["names"]) and any(n["cut"] for n in facts["names"]), facts
        app.d.save_screenshot(os.path.join(SCREENSHOTS, f"leaderboard-owner-zh-{width}.png"))
    finally:
        driver.quit()
