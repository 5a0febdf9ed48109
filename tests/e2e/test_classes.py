"""Classes end to end against a real `papertrade serve`: a teacher scripts a class with the CLI — creates it, imports
a roster of 30 from a CSV file, sets an assignment — two students log in with the passwords the import printed and
trade over the native API, and the grade book the CLI exports says, cell by cell, who did the work."""
import csv
import io
import json
import os
import subprocess
import uuid
from datetime import datetime, timedelta, timezone

import requests

from conftest import BINARY
from test_games import signup


def class_cli(server, username, *args, password="correct horse"):
    env = dict(os.environ, PAPERTRADE_URL=server.url, PAPERTRADE_USERNAME=username, PAPERTRADE_PASSWORD=password)
    return subprocess.run([BINARY, "class", *args], env=env, capture_output=True, text=True, timeout=120)


def login(server, username, password):
    s = requests.Session()
    r = s.post(f"{server.url}/api/v1/auth/login", json={"username": username, "password": password})
    return s, r


def test_a_teacher_scripts_a_class_and_the_grade_book_says_who_did_the_work(server, tmp_path):
    teacher = "t" + uuid.uuid4().hex[:8]
    signup(server, teacher)
    created = class_cli(server, teacher, "create", "Econ 101", "--cash", "50000", "--journal",
                        "--rule", "max_position_percent=30")
    assert created.returncode == 0, created.stderr
    class_id = created.stdout.split("id ")[1].split()[0]
    assert "journal notes required" in created.stdout

    # A roster with a duplicate is refused whole, naming its lines; nothing is created.
    prefix = uuid.uuid4().hex[:5]
    bad = tmp_path / "bad.csv"
    bad.write_text(f"username,display_name\n{prefix}a,Ann\n{prefix}a,Ann again\n")
    refused = class_cli(server, teacher, "roster", class_id, str(bad))
    assert refused.returncode != 0 and f"line 3: username {prefix}a is already on line 2" in refused.stderr
    assert login(server, f"{prefix}a", "anything-at-all")[1].status_code == 401

    roster = tmp_path / "roster.csv"
    rows = [(f"{prefix}s{i:02d}", f"Student {i}", f"s{i}@school.example") for i in range(1, 31)]
    with roster.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["username", "display_name", "email"])
        w.writerows(rows)
    imported = class_cli(server, teacher, "roster", class_id, str(roster), "--json")
    assert imported.returncode == 0, imported.stderr
    students = {s["username"]: s for s in json.loads(imported.stdout)}
    assert len(students) == 30 and all(len(s["initial_password"]) == 12 for s in students.values())
    listed = class_cli(server, teacher, "roster", class_id)
    assert listed.returncode == 0 and all(r[0] in listed.stdout for r in rows)

    due = (datetime.now(timezone.utc) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assigned = class_cli(server, teacher, "assign", class_id, "Week 1", "--due", due,
                         "--check", "trades=2", "--check", "order_type=limit,stop", "--check", "journal")
    assert assigned.returncode == 0, assigned.stderr

    # Student 1 does the work; student 2 trades once. Each must first change the handed-out password.
    first, second = rows[0][0], rows[1][0]
    sessions = {}
    for name in (first, second):
        s, r = login(server, name, students[name]["initial_password"])
        assert r.status_code == 200 and r.json()["must_change_password"] is True
        changed = s.put(f"{server.url}/api/v1/me/password",
                        json={"current_password": students[name]["initial_password"], "new_password": "my own pass"})
        assert changed.status_code == 200 and changed.json()["must_change_password"] is False
        sessions[name] = s

    def order(name, body):
        account = students[name]["account_id"]
        return sessions[name].post(f"{server.url}/api/v1/accounts/{account}/orders", json=body)

    no_note = order(first, {"symbol": "AAPL", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day"})
    assert no_note.status_code == 403 and "journal note" in no_note.json()["message"]
    assert order(first, {"symbol": "AAPL", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day",
                         "note": "Services keep growing"}).status_code == 201
    quote = sessions[first].get(f"{server.url}/api/v1/quotes/MSFT").json()
    ask = quote.get("ask") or quote.get("last")
    limit = f"{float(ask) * 1.02:.2f}"
    filled = order(first, {"symbol": "MSFT", "qty": "1", "side": "buy", "type": "limit", "limit_price": limit,
                           "time_in_force": "day", "note": "Cloud demand"})
    assert filled.status_code == 201 and filled.json()["status"] == "filled", filled.text
    assert order(second, {"symbol": "AAPL", "qty": "1", "side": "buy", "type": "market", "time_in_force": "day",
                          "note": "A start"}).status_code == 201

    book = class_cli(server, teacher, "gradebook", class_id)
    assert book.returncode == 0, book.stderr
    table = list(csv.reader(io.StringIO(book.stdout)))
    assert table[0] == ["username", "display_name", "Week 1"]
    cells = {row[0]: row[2] for row in table[1:]}
    assert len(cells) == 30
    assert cells[first] == "done" and cells[second] == "not done"
    assert all(cells[r[0]] == "not done" for r in rows[2:])

    # A student cannot read the grade book nor another class.
    assert sessions[second].get(f"{server.url}/api/v1/classes/{class_id}/gradebook").status_code == 403
    other = class_cli(server, teacher, "create", "Other class")
    other_id = other.stdout.split("id ")[1].split()[0]
    assert sessions[second].get(f"{server.url}/api/v1/classes/{other_id}").status_code == 404

    # The rest of a teacher's terminal: progress, the journal, rankings, a student's report, a mark, an edit and a
    # deletion — each read back through the API or the grade book.
    assignment_id = assigned.stdout.split("(id ")[1].split(")")[0]
    progress = class_cli(server, teacher, "progress", class_id)
    assert progress.returncode == 0, progress.stderr
    lines = {line.split()[0]: line for line in progress.stdout.splitlines()[1:]}
    assert " done" in lines[first] and "not done" in lines[second]
    assert "1 of 2" in lines[second] or "trades" in lines[second], lines[second]

    journal = class_cli(server, teacher, "journal", class_id, "--student", first)
    assert journal.returncode == 0, journal.stderr
    assert "Cloud demand" in journal.stdout and "Services keep growing" in journal.stdout
    assert "A start" not in journal.stdout and f"buy 1 MSFT limit" in journal.stdout

    rankings = class_cli(server, teacher, "rankings", class_id, "--definitions")
    assert rankings.returncode == 0, rankings.stderr
    header, *ranked = rankings.stdout.split("\n\n")[0].splitlines()
    assert header.split()[:4] == ["#", "STUDENT", "EQUITY", "RETURN"] and "TREYNOR" in header
    assert len(ranked) == 30 and {r.split()[1] for r in ranked} == {r[0] for r in rows}
    assert "sharpe" in rankings.stdout.split("\n\n")[1]

    report = class_cli(server, teacher, "report", class_id, first)
    assert report.returncode == 0, report.stderr
    assert f"Student 1 ({first})" in report.stdout and "Equity" in report.stdout
    assert "MSFT" in report.stdout and "AAPL" in report.stdout and "Week 1" in report.stdout
    assert "Cloud demand" in report.stdout

    marked = class_cli(server, teacher, "mark", class_id, assignment_id, second, "B, see me")
    assert marked.returncode == 0, marked.stderr
    too_long = class_cli(server, teacher, "mark", class_id, assignment_id, second, "x" * 41)
    assert too_long.returncode != 0 and "1 to 40 characters" in too_long.stderr
    book = list(csv.reader(io.StringIO(class_cli(server, teacher, "gradebook", class_id).stdout)))
    assert {row[0]: row[2] for row in book[1:]}[second] == "B, see me"

    later = (datetime.now(timezone.utc) + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M:%SZ")
    edited = class_cli(server, teacher, "edit", class_id, assignment_id, "--title", "Week 1 (longer)", "--due", later)
    assert edited.returncode == 0, edited.stderr
    nothing = class_cli(server, teacher, "edit", class_id, assignment_id)
    assert nothing.returncode != 0 and "name what changes" in nothing.stderr
    api = sessions[first].get(f"{server.url}/api/v1/classes/{class_id}/progress").json()
    mine = api[0]["assignments"][0]
    assert mine["title"] == "Week 1 (longer)" and mine["due"].startswith(later[:16]) and mine["done"] is True

    # A student reads only their own report; the teacher deletes the assignment and the grade book loses it.
    assert class_cli(server, second, "report", class_id, first, password="my own pass").returncode != 0
    assert class_cli(server, second, "report", class_id, second, password="my own pass").returncode == 0
    deleted = class_cli(server, teacher, "unassign", class_id, assignment_id)
    assert deleted.returncode == 0, deleted.stderr
    book = list(csv.reader(io.StringIO(class_cli(server, teacher, "gradebook", class_id).stdout)))
    assert book[0] == ["username", "display_name"]


def test_a_team_shares_one_portfolio_from_the_terminal_to_alpaca_py(server, tmp_path):
    """A teacher forms a team with the CLI; one member trades the team's account from the web API and another from
    alpaca-py on a key of that account; the rankings show the team on one line; disbanded, each member's own account
    trades again and the team's is out of reach."""
    from alpaca.trading.client import TradingClient
    from alpaca.trading.enums import OrderSide, TimeInForce
    from alpaca.trading.requests import MarketOrderRequest

    teacher = "t" + uuid.uuid4().hex[:8]
    signup(server, teacher)
    created = class_cli(server, teacher, "create", "Team class", "--cash", "20000")
    assert created.returncode == 0, created.stderr
    class_id = created.stdout.split("id ")[1].split()[0]
    prefix = uuid.uuid4().hex[:5]
    names = [f"{prefix}a", f"{prefix}b", f"{prefix}c"]
    roster = tmp_path / "team.csv"
    roster.write_text("username,display_name\n" + "".join(f"{n},{n.upper()}\n" for n in names))
    imported = class_cli(server, teacher, "roster", class_id, str(roster), "--json")
    assert imported.returncode == 0, imported.stderr
    students = {s["username"]: s for s in json.loads(imported.stdout)}

    refused = class_cli(server, teacher, "team", "form", class_id, "Solo", names[0])
    assert refused.returncode != 0 and "2 to 5 students" in refused.stderr
    formed = class_cli(server, teacher, "team", "form", class_id, "Bulls", names[0], names[1], "--json")
    assert formed.returncode == 0, formed.stderr
    team = json.loads(formed.stdout)
    shared = team["account_id"]
    listed = class_cli(server, teacher, "team", "list", class_id)
    assert listed.returncode == 0 and "Bulls" in listed.stdout and f"{names[0]}, {names[1]}" in listed.stdout

    sessions = {}
    for name in names:
        s, r = login(server, name, students[name]["initial_password"])
        assert r.status_code == 200, r.text
        sessions[name] = s
    a, b, c = names
    assert shared in [x["id"] for x in sessions[b].get(f"{server.url}/api/v1/accounts").json()]
    assert shared not in [x["id"] for x in sessions[c].get(f"{server.url}/api/v1/accounts").json()]
    assert sessions[c].get(f"{server.url}/api/v1/accounts/{shared}").status_code == 404
    buy = {"symbol": "AAPL", "qty": "2", "side": "buy", "type": "market", "time_in_force": "day"}
    r = sessions[a].post(f"{server.url}/api/v1/accounts/{shared}/orders", json=buy)
    assert r.status_code == 201 and r.json()["status"] == "filled", r.text
    # Member b trades the same account from alpaca-py, on a key made for it.
    key = sessions[b].post(f"{server.url}/api/v1/accounts/{shared}/keys").json()
    client = TradingClient(key["key_id"], key["secret"], paper=True, url_override=server.url)
    client.submit_order(MarketOrderRequest(symbol="MSFT", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY))
    held = {p.symbol: p.qty for p in client.get_all_positions()}
    assert held == {"AAPL": "2", "MSFT": "1"}, held
    # A's own class account is out of the game while A is in the team.
    own = sessions[a].post(f"{server.url}/api/v1/accounts/{students[a]['account_id']}/orders", json=buy)
    assert own.status_code == 403, own.text

    rankings = class_cli(server, teacher, "rankings", class_id)
    assert rankings.returncode == 0, rankings.stderr
    body = rankings.stdout.splitlines()[1:]
    assert len(body) == 2 and any(f"Bulls: {a}, {b}" in line for line in body), rankings.stdout
    journal = class_cli(server, teacher, "journal", class_id)
    assert journal.stdout.count("Bulls (team)") == 2, journal.stdout

    disbanded = class_cli(server, teacher, "team", "disband", class_id, "Bulls")
    assert disbanded.returncode == 0, disbanded.stderr
    assert class_cli(server, teacher, "team", "list", class_id).stdout.strip() == "No teams."
    assert sessions[a].post(f"{server.url}/api/v1/accounts/{students[a]['account_id']}/orders",
                            json=buy).status_code == 201
    assert sessions[b].get(f"{server.url}/api/v1/accounts/{shared}").status_code == 404
