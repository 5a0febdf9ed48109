"""Classes in the web app, in English and in Chinese: a teacher makes a class that asks for a journal, pastes a roster
and reads the passwords it shows once, and sets an assignment (desktop first); a student logs in with a handed-out
password, is made to choose their own, trades from the class account through the trade sheet — which refuses to go on
without a journal note — and sees on their phone what is due and which check their trade satisfied. The teacher's
desk then shows the grade book, the journal and the rankings. No English is left on the Chinese screens, and axe finds nothing serious on them.

Screenshots (class-teacher-*, class-student-*, class-password-*) go to tests/e2e/screenshots/."""
import time
import uuid
from datetime import datetime, timedelta

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import App, chromium, DESKTOP
from test_accessibility import findings
from test_web_app_zh import english_left


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


def login(app, username, password):
    app.d.delete_all_cookies()
    app.open()
    app.d.execute_script("localStorage.clear()")
    app.d.refresh()
    app.css("#username").send_keys(username)
    app.css("#password").send_keys(password)
    app.click("form button[type=submit]")


def fill_password_change(app, username, handed_out):
    """Logs a student in with the password their teacher handed out and fills in the change to their own (not sent)."""
    login(app, username, handed_out)
    app.visible("#current-password").send_keys(handed_out)
    app.css("#new-password").send_keys("my own secret")
    app.css("#again-password").send_keys("my own secret")


def test_a_teacher_sets_up_a_class_and_a_student_does_the_work(driver, server):
    app = App(driver, server).signup()
    teacher = app.username
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    tag = "zh" if chinese else "en"

    # The teacher, on a desktop: make a class that asks for a journal.
    app.size(*DESKTOP)
    app.go("classes")
    app.visible("#c-name").send_keys("Econ 101")
    app.click("#c-journal")
    # Its rules: five trades a day at most, and crypto allowed beside the stocks.
    app.click("details.class-rules summary")
    app.visible("#c-max_trades_per_day").send_keys("5")
    app.click("#c-crypto")
    if chinese:
        assert english_left(app, "details.class-rules") == []
    app.click("form[aria-labelledby=classes-new-title] button[type=submit]")
    app.css("[data-card=class-roster]")
    class_id = app.d.execute_script("return location.hash.split('/')[2]")
    rules = app.api("GET", f"/classes/{class_id}")["body"]["rules"]
    assert rules["max_trades_per_day"] == 5 and rules["crypto"] is True and rules["options"] is True, rules
    prefix = uuid.uuid4().hex[:5]
    roster = "username,display_name\n" + "".join(f"{prefix}{i},Wang {i}\n" for i in range(1, 4))
    app.visible("#roster-csv").send_keys(roster)
    app.click(".roster-form button[type=submit]")
    passwords = {}
    app.css("table.passwords tbody tr")
    for row in app.all("table.passwords tbody tr"):
        cells = [c.text for c in row.find_elements(By.CSS_SELECTOR, "td")]
        passwords[cells[1]] = cells[2]
    assert len(passwords) == 3 and all(len(p) == 12 for p in passwords.values())
    notice = app.text(".roster-result .notice")
    assert ("只显示这一次" if chinese else "shown only once") in notice
    if chinese:
        assert english_left(app) == []
    app.click(".roster-result button:last-child")  # Done
    app.css("[data-card=class-students] li.row")

    due = (datetime.now() + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M")
    app.visible("#a-title").send_keys("Week 1")
    app.d.execute_script("const i = document.querySelector('#a-due'); i.value = arguments[0]; i.dispatchEvent(new Event('input'))", due)
    for box in ("#ac-trades", "#ac-journal"):
        app.click(box)
    trades = app.css("#a-trades")
    trades.clear()
    trades.send_keys("1")
    app.click(".assignment-form button[type=submit]")
    app.text_in("[data-card=class-assignments] .rows", "Week 1")
    app.settled()
    assert app.text("[data-card=class-gradebook] table.gradebook thead").count("Week 1") == 1
    csv_link = app.css("[data-card=class-gradebook] a.button[download]").get_attribute("href")
    assert csv_link.endswith(f"/api/v1/classes/{class_id}/gradebook?format=csv")
    csv = app.d.execute_async_script("fetch(arguments[0]).then(r => r.text()).then(arguments[1])", csv_link)
    assert csv.splitlines()[0] == "username,display_name,Week 1" and len(csv.splitlines()) == 4
    # A colleague becomes a co-teacher by username.
    colleague = f"co{prefix}"
    signup = requests.post(f"{server.url}/api/v1/auth/signup",
                           json={"username": colleague, "password": "correct horse battery"}, timeout=10)
    assert signup.status_code == 201, signup.text
    app.visible("#t-username").send_keys(colleague)
    app.click(".teacher-form button[type=submit]")
    app.text_in("[data-card=class-teachers] .rows", colleague)
    assert app.api("GET", f"/classes/{class_id}")["body"]["teachers"] == [teacher, colleague]
    if chinese:
        assert english_left(app) == []
    app.shot(f"class-teacher-{tag}")
    assert findings(app, "the teacher's desk") == []
    assert app.overflow(390) == 0

    # A student, on a phone: the handed-out password first, then their own.
    student = f"{prefix}1"
    fill_password_change(app, student, passwords[student])
    if chinese:
        assert english_left(app, "main.login") == []
    app.shot(f"class-password-{tag}")
    assert findings(app, "the password change") == []
    app.click("form button[type=submit]")
    app.css(".net-worth")

    app.go(f"classes/{class_id}")
    app.text_in("[data-card=class-due]", "Week 1")
    assert ("已完成交易：0/1" if chinese else "Trades made: 0 of 1") in app.text("[data-card=class-due]")
    app.click(".page-head button.primary")  # Trade in the class account
    app.css(".net-worth")
    app.open_trade("AAPL", "buy")
    app.set_qty("1")
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.toast("请写明" if chinese else "journal note")
    note = "业绩超预期，服务收入增长" if chinese else "Earnings beat; services growing"
    app.visible("dialog[open] #order-note").send_keys(note)
    app.click("dialog[open] form.trade-form button[type=submit]")
    app.text_in("dialog[open] .confirm-step", note)
    app.click("dialog[open] .confirm-step button.primary")
    app.toast("AAPL")

    app.go(f"classes/{class_id}")
    done = app.text_in("[data-card=class-done]", "Week 1")
    assert ("已完成交易：1/1" if chinese else "Trades made: 1 of 1") in done
    assert ("写了日志的交易：1/1" if chinese else "Trades with a journal note: 1 of 1") in done
    app.text_in("[data-card=class-journal]", note)
    app.settled()
    if chinese:
        assert english_left(app) == []
    app.shot(f"class-student-{tag}")
    assert findings(app, "the student's desk") == []
    assert app.overflow(320) == 0
    # The student is not shown the roster: the API says so too.
    assert app.api("GET", f"/classes/{class_id}/roster")["status"] == 403

    # Back to the teacher: the student's report shows the holding and the note, and the grade book says done.
    login(app, teacher, "correct horse battery")
    app.css(".net-worth")
    app.size(*DESKTOP)
    essay = app.api("POST", f"/classes/{class_id}/assignments", {
        "title": "Essay", "due": (datetime.now() + timedelta(days=6)).astimezone().isoformat(),
        "checks": [{"kind": "task", "text": "Why index funds?"}]})
    assert essay["status"] == 201, essay
    essay_id = essay["body"]["id"]
    app.go(f"classes/{class_id}")
    app.click(f"[data-card=class-students] li[data-student='{student}'] a.row-main")
    app.text_in("[data-card=student-holdings]", "AAPL")
    assert note in app.text("[data-card=student-journal]")
    assert ("从未登录" if chinese else "never logged in") not in app.text(".page-head")
    app.settled()
    if chinese:
        assert english_left(app) == []
    app.shot(f"class-report-{tag}")
    assert findings(app, "a student's report") == []

    # The teacher's tools on the report: the essay marked, cash added with a reason, a new password shown once.
    report = lambda: app.api("GET", f"/classes/{class_id}/students/{student}")["body"]
    cash_before = report()["cash"]
    app.visible(f"#mark-{essay_id}").send_keys("A-")
    app.click(f"li.assignment[data-assignment='{essay_id}'] .mark-form button")
    app.toast("A-")
    app.text_in(f"li.assignment[data-assignment='{essay_id}'] .pill", "A-")
    app.visible("#tool-amount").send_keys("500")
    app.css("#tool-reason").send_keys("Best journal of the week")
    app.click(".cash-form button[type=submit]")
    app.toast("资金已调整" if chinese else "Cash adjusted")
    assert float(report()["cash"]) == float(cash_before) + 500
    app.click("[data-card=student-tools] button[data-action=password]")
    app.text_in("dialog[open] .confirm", "Wang 1")
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.click("dialog[open] .confirm button.primary")
    shown = app.visible("[data-card=student-tools] code.password").text
    assert len(shown) == 12
    if chinese:
        assert english_left(app) == []
    assert findings(app, "the teacher's tools") == []
    app.go(f"classes/{class_id}")
    app.css("[data-card=class-gradebook] table.gradebook tbody tr")
    cells = app.d.execute_script("""
        return Object.fromEntries([...document.querySelectorAll('table.gradebook tbody tr')]
          .map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]))""")
    done, not_done = ("已完成", "未完成") if chinese else ("done", "not done")
    assert cells == {"Wang 1": done, "Wang 2": not_done, "Wang 3": not_done}, cells

    # The teacher changes the assignment to two trades: Wang 1's one trade no longer does it; then deletes it.
    app.click("[data-card=class-assignments] li.row button[data-action=edit]")
    assert app.css("#a-title").get_attribute("value") == "Week 1" and app.css("#ac-trades").is_selected()
    assert app.css("#a-trades").get_attribute("value") == "1" and app.css("#ac-journal").is_selected()
    assert app.css("#a-due").get_attribute("value") == due
    app.text_in("#a-form-title", "Week 1")
    app.css("#a-title").send_keys(" (two trades)")
    trades = app.css("#a-trades")
    trades.clear()
    trades.send_keys("2")
    app.click("#a-submit")
    app.text_in("[data-card=class-assignments] .rows", "Week 1 (two trades)")
    app.css("[data-card=class-gradebook] table.gradebook tbody tr")
    app.settled()
    cells = app.d.execute_script("""
        return Object.fromEntries([...document.querySelectorAll('table.gradebook tbody tr')]
          .map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]))""")
    assert cells == {"Wang 1": not_done, "Wang 2": not_done, "Wang 3": not_done}, cells
    assert app.text("[data-card=class-gradebook] thead").count("Week 1 (two trades)") == 1
    app.click("[data-card=class-assignments] li.row button[data-action=delete]")
    app.text_in("dialog[open] .confirm", "Week 1 (two trades)")
    if chinese:
        assert english_left(app, "dialog[open]") == []
    assert findings(app, "deleting an assignment") == []
    app.click("dialog[open] .confirm button.danger")
    app.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-card=class-assignments] li.row")) == 1)
    assert [a["title"] for a in app.api("GET", f"/classes/{class_id}/assignments")["body"]] == ["Essay"]

    # The student logs in with the new password (and is asked to choose their own); the teacher takes Wang 3 off the
    # roster from their page.
    login(app, student, shown)
    app.visible("#current-password")
    login(app, teacher, "correct horse battery")
    app.css(".net-worth")
    app.go(f"classes/{class_id}/students/{prefix}3")
    app.click("[data-card=student-tools] button[data-action=remove]")
    app.click("dialog[open] .confirm button.danger")
    app.wait.until(lambda d: d.execute_script("return location.hash") == f"#/classes/{class_id}")
    roster = app.api("GET", f"/classes/{class_id}/roster")["body"]
    gone = [r for r in roster if r.get("username") == f"{prefix}3"]
    assert not gone or gone[0].get("removed_at"), roster


def test_a_teacher_forms_a_team_and_its_members_trade_one_portfolio(driver, server):
    app = App(driver, server).signup()
    teacher = app.username
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    tag = "zh" if chinese else "en"
    app.size(*DESKTOP)
    made = app.api("POST", "/classes", {"name": "Econ 202", "market": "us", "starting_cash": "20000"})
    assert made["status"] == 201, made
    class_id = made["body"]["id"]
    prefix = uuid.uuid4().hex[:5]
    roster = "username,display_name\n" + "".join(f"{prefix}{i},Li {i}\n" for i in range(1, 4))
    imported = app.d.execute_async_script("""
        fetch('/api/v1/classes/' + arguments[0] + '/roster', {method: 'POST', headers: {'Content-Type': 'text/csv'},
                                                           body: arguments[1]})
          .then((r) => r.json()).then(arguments[2])""", class_id, roster)
    passwords = {s["username"]: s["initial_password"] for s in imported["students"]}

    # The teacher's Teams card: no team yet; two students ticked and named form one.
    app.go(f"classes/{class_id}")
    app.css("[data-card=class-teams] form.team-form")
    team = "牛队" if chinese else "Bulls"
    app.visible("#team-name").send_keys(team)
    app.click(f"#team-{prefix}1")
    app.click(f"#team-{prefix}2")
    app.click("form.team-form button[type=submit]")
    app.toast(team)
    app.text_in(f"[data-card=class-teams] li[data-team='{team}']", "Li 2")
    app.text_in(f"[data-card=class-students] li[data-student='{prefix}1']", team)
    # Only the student left alone may join the next team.
    assert len(app.all("form.team-form fieldset input[type=checkbox]")) == 1
    app.settled()
    if chinese:
        assert english_left(app) == []
    app.shot(f"class-teams-{tag}")
    assert findings(app, "the teams card") == []
    assert app.overflow(390) == 0

    # A member, on a phone: the class page names the team and its members; Trade picks the team's account.
    member = f"{prefix}2"
    fill_password_change(app, member, passwords[member])
    app.click("form button[type=submit]")
    app.css(".net-worth")
    app.go(f"classes/{class_id}")
    line = app.text_in(".page-head .team-line", "Li 1")
    assert team in line and "Li 2" in line
    app.text_in("[data-card=class-rankings] table.rankings tbody", team)
    app.settled()
    if chinese:
        assert english_left(app) == []
    app.shot(f"class-team-student-{tag}")
    assert findings(app, "a team member's class page") == []
    assert app.overflow(320) == 0
    app.click(".page-head button.primary")
    app.css(".net-worth")
    app.wait.until(lambda d: team in d.find_element(By.CSS_SELECTOR, "main h1").text)

    # Back to the teacher: disbanding asks first, then the team is gone and its members trade alone again.
    login(app, teacher, "correct horse battery")
    app.css(".net-worth")
    app.size(*DESKTOP)
    app.go(f"classes/{class_id}")
    app.click(f"[data-card=class-teams] li[data-team='{team}'] button")
    app.text_in("dialog[open] .confirm", team)
    if chinese:
        assert english_left(app, "dialog[open]") == []
    assert findings(app, "disbanding a team") == []
    app.click("dialog[open] .confirm button.danger")
    app.toast(team)
    app.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-card=class-teams] li[data-team]"))
    assert app.api("GET", f"/classes/{class_id}/teams")["body"] == []


@pytest.fixture(scope="module")
def replay_server():
    """A manual clock from a Monday before the open: the test steps it through the week's closes."""
    from conftest import Server
    s = Server(clock="manual", env={"PAPERTRADE_REPLAY_FROM": "2026-11-02"}).start()
    yield s
    s.stop()


def test_a_student_s_report_charts_equity_at_every_close_since_the_class_began(driver, replay_server):
    app = App(driver, replay_server).signup()
    chinese = app.d.execute_script("return document.documentElement.lang") == "zh-Hans"
    made = app.api("POST", "/classes", {"name": "Week of closes", "market": "us", "starting_cash": "100000"})
    assert made["status"] == 201, made
    class_id = made["body"]["id"]
    student = "s" + uuid.uuid4().hex[:8]
    enrolled = app.d.execute_async_script("""
        const [path, csv, done] = arguments;
        fetch('/api/v1' + path, {method: 'POST', headers: {'Content-Type': 'text/csv'}, body: csv})
          .then(r => r.json()).then(done);""", f"/classes/{class_id}/roster", f"username,display_name\n{student},Li Lei\n")
    handed = enrolled["students"][0]["initial_password"]
    session = requests.Session()
    assert session.post(f"{replay_server.url}/api/v1/auth/login",
                        json={"username": student, "password": handed}, timeout=10).status_code == 200
    assert session.put(f"{replay_server.url}/api/v1/me/password",
                       json={"current_password": handed, "new_password": "li lei's own"}, timeout=10).ok
    account = enrolled["students"][0]["account_id"]
    replay_server.advance_clock(30 * 60)  # Monday 10:00 New York
    placed = session.post(f"{replay_server.url}/api/v1/accounts/{account}/orders", timeout=10, json={
        "symbol": "NVDA", "side": "buy", "qty": "400", "type": "market", "time_in_force": "day"})
    assert placed.status_code == 201, placed.text
    # A day at a time until three closes are recorded (a weekend in between records none; the second language's
    # run starts where the first left the clock).
    path = f"/classes/{class_id}/students/{student}"
    for _ in range(8):
        replay_server.advance_clock(86_400)
        deadline = time.time() + 3  # (the report catches the closes up as it is read)
        while time.time() < deadline:
            closes = app.api("GET", path)["body"]["closes"]
            if len(closes) >= 3:
                break
            time.sleep(0.3)
        if len(closes) >= 3:
            break
    assert len(closes) >= 3, closes

    app.size(*DESKTOP)
    app.go(path.lstrip("/"))
    chart = app.css("[data-card=student-chart] svg.equity-chart")
    label = chart.get_attribute("aria-label")
    money = lambda text: "$" + f"{float(text):,.2f}"
    assert money(closes[0]["equity"]) in label and money(closes[-1]["equity"]) in label, (label, closes)
    assert str(len(closes)) in label
    points = app.d.execute_script(
        "return document.querySelector('svg.equity-chart polyline').getAttribute('points').split(' ').length")
    assert points == len(closes)
    # Higher equity is drawn higher: the polyline's y follows the closes' order.
    ys = app.d.execute_script("""return document.querySelector('svg.equity-chart polyline').getAttribute('points')
        .split(' ').map((p) => Number(p.split(',')[1]))""")
    values = [float(c["equity"]) for c in closes]
    for (a, b), (ya, yb) in zip(zip(values, values[1:]), zip(ys, ys[1:])):
        assert (a < b) == (ya > yb) or a == b
    if chinese:
        assert english_left(app) == []
    assert findings(app, "a student's report with its chart") == []
    app.shot(f"class-chart-{'zh' if chinese else 'en'}")
