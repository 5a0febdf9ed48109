"""The option model papertrade prices its chains with, checked against QuantLib (PyPI, pinned): 1,000 random contracts
through `papertrade option-price --csv` — the European value and every greek equal QuantLib's analytic engine, and the
American value its Bjerksund–Stensland engine, to 1e-6."""
import random
import subprocess

import QuantLib as ql

from conftest import BINARY


def quantlib(right, spot, strike, days, rate, q, vol):
    today = ql.Date(2, 1, 2026)
    ql.Settings.instance().evaluationDate = today
    count = ql.Actual365Fixed()
    process = ql.BlackScholesMertonProcess(
        ql.QuoteHandle(ql.SimpleQuote(spot)),
        ql.YieldTermStructureHandle(ql.FlatForward(today, q, count, ql.Continuous)),
        ql.YieldTermStructureHandle(ql.FlatForward(today, rate, count, ql.Continuous)),
        ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), vol, count)))
    payoff = ql.PlainVanillaPayoff(ql.Option.Call if right == "call" else ql.Option.Put, strike)
    european = ql.VanillaOption(payoff, ql.EuropeanExercise(today + days))
    european.setPricingEngine(ql.AnalyticEuropeanEngine(process))
    american = ql.VanillaOption(payoff, ql.AmericanExercise(today, today + days))
    american.setPricingEngine(ql.BjerksundStenslandApproximationEngine(process))
    # Brokers' units: theta per calendar day, vega per volatility point, rho per 1%.
    return [european.NPV(), european.delta(), european.gamma(), european.thetaPerDay(), european.vega() / 100,
            european.rho() / 100, american.NPV()]


def test_a_thousand_random_contracts_match_quantlib():
    rng = random.Random(20261126)
    contracts = []
    for _ in range(1000):
        spot = rng.uniform(5, 1500)
        contracts.append((rng.choice(["call", "put"]), spot, round(spot * rng.uniform(0.6, 1.5), 2),
                          rng.randint(1, 1000), rng.uniform(0, 0.08), rng.uniform(0, 0.05), rng.uniform(0.05, 1.2)))
    lines = "".join(f"{r},{s},{k},{d / 365!r},{rate},{q},{v}\n" for r, s, k, d, rate, q, v in contracts)
    run = subprocess.run([BINARY, "option-price", "--csv"], input=lines, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    rows = [list(map(float, line.split(","))) for line in run.stdout.splitlines()]
    assert len(rows) == len(contracts)
    names = ["price", "delta", "gamma", "theta", "vega", "rho", "american"]
    for contract, ours in zip(contracts, rows):
        theirs = quantlib(*contract)
        for name, a, b in zip(names, ours, theirs):
            assert abs(a - b) <= 1e-6 * max(1, abs(b)), f"{contract}: {name} {a} vs QuantLib {b}"


def test_bad_lines_are_refused_with_the_line_number():
    run = subprocess.run([BINARY, "option-price", "--csv"], input="call,100,100,1,0.05,0,0.2\ncall,100,abc,1,0,0,0.2\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "line 2" in run.stderr
