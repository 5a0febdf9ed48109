"""`papertrade backtest` end to end: a CSV file in pandas' layout through the real engine, the JSON report a tool
reads, and clear errors for bad input."""
import json
import subprocess
from decimal import Decimal

from conftest import BINARY

# Closes 12 11 10 9 10 11 12 11 10 9 with opens a step away: SMA(2) crosses above SMA(3) at the 6th close and below
# at the 9th, so one round trip is bought at the 7th open (11.25) and sold at the 10th (9.75).
ROWS = [("2024-01-02", "12.00", "12"), ("2024-01-03", "11.75", "11"), ("2024-01-04", "10.75", "10"),
        ("2024-01-05", "9.75", "9"), ("2024-01-08", "9.25", "10"), ("2024-01-09", "10.25", "11"),
        ("2024-01-10", "11.25", "12"), ("2024-01-11", "12.25", "11"), ("2024-01-12", "10.75", "10"),
        ("2024-01-16", "9.75", "9")]


def backtest(*args):
    return subprocess.run([BINARY, "backtest", *args], capture_output=True, text=True, timeout=120)


def test_a_csv_backtest_reports_json(tmp_path):
    csv = tmp_path / "spy.csv"
    lines = ["Date,Open,High,Low,Close,Adj Close,Volume"]
    for date, open_, close in ROWS:
        high, low = max(Decimal(open_), Decimal(close)) + Decimal("0.5"), min(Decimal(open_), Decimal(close)) - Decimal("0.5")
        lines.append(f"{date},{open_},{high},{low},{close},{close},1000")
    csv.write_text("\n".join(lines) + "\n")
    out = tmp_path / "report.json"
    run = backtest("--data", str(csv), "--strategy", "sma-cross", "--param", "fast=2", "--param", "slow=3",
                   "--qty", "10", "--cash", "10000", "--commission", "none", "--report", "json", "--out", str(out))
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text())
    assert report["symbols"] == ["SPY"] and report["bars"] == 10 and report["trades"] == 1
    assert Decimal(report["final_equity"]) == Decimal("9985") and Decimal(report["return"]) == Decimal("-0.0015")
    assert Decimal(report["max_drawdown"]) < 0
    assert "sharpe" in report and report["fill"] == "next-open" and report["warnings"] == []
    trade = report["trade_list"][0]
    assert (Decimal(trade["entry_price"]), Decimal(trade["exit_price"]), Decimal(trade["pnl"])) == (
        Decimal("11.25"), Decimal("9.75"), Decimal("-15"))
    assert trade["entry_time"].startswith("2024-01-10") and trade["exit_time"].startswith("2024-01-16")

    # Filling at the signal bar's close is possible, and flagged.
    close = backtest("--data", str(csv), "--strategy", "sma-cross", "--param", "fast=2", "--param", "slow=3",
                     "--qty", "10", "--fill", "close", "--report", "json")
    assert close.returncode == 0, close.stderr
    assert "look-ahead" in json.loads(close.stdout)["warnings"][0]

    page = tmp_path / "report.html"
    html = backtest("--data", str(csv), "--strategy", "sma-cross", "--param", "fast=2", "--param", "slow=3",
                    "--qty", "10", "--commission", "none", "--report", "html", "--out", str(page))
    assert html.returncode == 0, html.stderr
    document = page.read_text()
    assert document.startswith("<!doctype html>") and document.count("<svg") == 2 and "<script" not in document
    assert "Backtest of SPY" in document and "Monthly returns" in document and "-$15.00" in document

    text = backtest("--data", str(csv), "--strategy", "buy-and-hold", "--qty", "10")
    assert text.returncode == 0 and "Backtest of SPY" in text.stdout and "Final equity" in text.stdout


def test_bad_input_is_refused_clearly(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("Date,Open,High,Low,Close\n2024-01-02,1,1,oops,1\n")
    run = backtest("--data", str(bad))
    assert run.returncode != 0 and 'line 2: "oops" is not a positive price (low)' in run.stderr
    unknown = backtest("--symbols", "AAPL", "--strategy", "moon-shot")
    assert unknown.returncode != 0 and "unknown strategy moon-shot" in unknown.stderr
    params = backtest("--symbols", "AAPL", "--param", "fast=30", "--param", "slow=10")
    assert params.returncode != 0 and "fast (30) must be shorter than slow (10)" in params.stderr


def test_minute_bars_through_a_daylight_saving_night(tmp_path):
    """One-minute bars through 2015-03-08 (New York skips 02:00–02:59): the error names the time that does not
    exist and the way out; with --timezone UTC the same file runs. Through 2015-11-01 (01:00–01:59 twice) the bars
    are read in their order."""
    def night(date, hours):
        rows = ["datetime,open,high,low,close,volume"]
        rows += [f"{date} {h:02d}:{m:02d}:00,10,10.5,9.5,10,100" for h in hours for m in range(60)]
        return "\n".join(rows) + "\n"
    spring = tmp_path / "bars.csv"
    spring.write_text(night("2015-03-08", range(0, 5)))
    run = backtest("--data", str(spring), "--strategy", "buy-and-hold", "--qty", "1")
    assert run.returncode != 0
    assert "line 122: 2015-03-08 02:00:00 does not exist in America/New_York" in run.stderr, run.stderr
    assert "--timezone UTC" in run.stderr and "not in time order" not in run.stderr
    utc = backtest("--data", str(spring), "--timezone", "UTC", "--strategy", "buy-and-hold", "--qty", "1",
                   "--report", "json")
    assert utc.returncode == 0, utc.stderr
    assert json.loads(utc.stdout)["bars"] == 300

    autumn = tmp_path / "autumn.csv"
    autumn.write_text(night("2015-11-01", [0, 1, 1, 2]))  # 01:00–01:59 written twice, as a New York clock shows it
    run = backtest("--data", str(autumn), "--strategy", "buy-and-hold", "--qty", "1", "--report", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["bars"] == 240


def test_the_bundled_real_history_replays_the_limit_up_rules(tmp_path):
    """Real A-share prices (000338, 2007–2020, bundled) and the A-share app's own strategy as queue rules: buy at the
    next day's limit-up price when a close is within 1% of limit-up, sell when a day falls 3%."""
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([
        {"side": "buy", "qty": "100", "condition": {"type": "within_percent_of_limit_up", "value": "1"},
         "order_type": "limit_up"},
        {"side": "sell", "qty": "100", "condition": {"type": "change_percent_at_most", "value": "-3"}}]))
    run = backtest("--source", "real", "--symbols", "000338", "--strategy", "queue-rules", "--rules", str(rules),
                   "--cash", "1000000", "--report", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["symbols"] == ["000338"] and report["bars"] == 3133 and report["currency"] == "CNY"
    assert report["start"].startswith("2007-04-30") and report["end"].startswith("2020-06-16")
    assert report["trades"] > 5 and Decimal(report["fees"]) > 0  # A-share commission and stamp duty
    assert report["index"] is None  # no index is bundled with the real series
    for trade in report["trade_list"]:
        assert Decimal(trade["qty"]) % 100 == 0  # board lots
    missing = backtest("--source", "real", "--symbols", "TSLA")
    assert missing.returncode != 0 and "no bundled history for TSLA" in missing.stderr


def test_the_bundled_real_five_minute_bars():
    """000338's real 5-minute bars (bundled): the same rules intraday — T+1 holds, board lots, each bar stamped at its
    end in Shanghai time."""
    run = backtest("--source", "real", "--symbols", "000338", "--timeframe", "5Min", "--strategy", "sma-cross",
                   "--qty", "100", "--from", "2020-01-01", "--to", "2020-06-30", "--report", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["frequency"] == "5Min" and report["bars"] == 48 * 110  # the 110 trading days to 17 June 2020
    assert report["start"] == "2020-01-02T01:35:00.000000000Z"  # 09:35 Shanghai: the first bar's end
    assert report["trades"] > 10
    for trade in report["trade_list"]:
        assert Decimal(trade["qty"]) % 100 == 0
        # Bought shares are sold on a later day at the earliest (T+1), whatever the crossings say.
        assert trade["exit_time"] is None or trade["exit_time"][:10] > trade["entry_time"][:10]
    daily_only = backtest("--source", "real", "--symbols", "000001", "--timeframe", "5Min")
    assert daily_only.returncode != 0 and "no bundled 5-minute history for 000001; it has 000338" in daily_only.stderr
    csv_too = backtest("--symbols", "AAPL", "--timeframe", "5Min")
    assert csv_too.returncode != 0 and "--timeframe is for --source real" in csv_too.stderr


def test_a_currency_pair_priced_in_dollars_backtests_and_one_priced_in_yen_is_refused():
    run = backtest("--symbols", "EUR.USD", "--from", "2025-01-01", "--to", "2025-12-31", "--strategy", "sma-cross",
                   "--param", "fast=10", "--param", "slow=30", "--qty", "50000", "--report", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["symbols"] == ["EUR.USD"] and report["currency"] == "USD" and report["warnings"] == []
    assert report["trades"] >= 2 and Decimal(report["fees"]) == 0
    # The euros held count in the equity at each close: every trade's profit (the open one at the last close) is
    # what the account made, to the cent.
    made = sum(Decimal(t["pnl"]) for t in report["trade_list"])
    assert Decimal(report["final_equity"]) - Decimal(report["starting_cash"]) == made
    assert all(Decimal(t["qty"]) == 50000 for t in report["trade_list"])
    # Weekdays only, each ending at the forex day's roll (17:00 New York).
    assert report["bars"] in range(255, 263)

    yen = backtest("--symbols", "USD.JPY", "--from", "2025-01-01", "--to", "2025-03-31", "--strategy", "buy-and-hold")
    assert yen.returncode != 0 and "priced in JPY" in yen.stderr and "EUR.USD" in yen.stderr


def test_a_sweep_runs_every_point_and_its_best_is_the_same_as_a_run_of_its_own():
    common = ["--symbols", "AAPL,MSFT", "--from", "2022-01-01", "--to", "2024-12-31", "--qty", "10"]
    run = backtest(*common, "--sweep", "fast=5..20:5", "slow=10,30,60", "--report", "json")
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert len(rows) == 12
    assert [r["parameters"] for r in rows if "skipped" in r] == [{"fast": 10, "slow": 10}, {"fast": 15, "slow": 10},
                                                                  {"fast": 20, "slow": 10}]
    ran = [r for r in rows if "skipped" not in r]
    best = max(ran, key=lambda r: Decimal(r["total_return"]))
    alone = backtest(*common, "--param", f"fast={best['parameters']['fast']}",
                     "--param", f"slow={best['parameters']['slow']}", "--report", "json")
    assert alone.returncode == 0, alone.stderr
    report = json.loads(alone.stdout)
    assert report["return"] == best["total_return"] and report["final_equity"] == best["final_equity"]
    assert report["trades"] == best["trades"] and report["sharpe"] == best["sharpe"]

    table = backtest(*common, "--sweep", "fast=5..20:5", "slow=10,30,60", "--top", "3")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert "12 points (fast 4 × slow 3)" in lines[0] and "3 skipped" in lines[0]
    assert lines[3].split()[:2] == ["fast", "slow"] and len(lines) == 7
    assert lines[4].split()[:2] == [str(best["parameters"]["fast"]), str(best["parameters"]["slow"])]


def test_a_sweep_refuses_what_it_cannot_run():
    for args, message in [
        (["--sweep", "fast=0..5"], "fast: 0 is not a whole number"),
        (["--sweep", "fast=1..1000", "slow=1..1000"], "more than 100000 points"),
        (["--sweep", "fast=5..10", "--param", "fast=3"], "fast is both swept and set"),
        (["--sweep", "fast=5..10", "--strategy", "buy-and-hold"], "--sweep is for a strategy with parameters"),
        (["--sweep", "fast=40..50", "slow=10..20"], "no point of the sweep could run"),
    ]:
        run = backtest("--symbols", "AAPL", *args)
        assert run.returncode != 0 and message in run.stderr, (args, run.stderr)
