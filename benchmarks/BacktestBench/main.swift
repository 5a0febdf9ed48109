// Backtest benchmark: prints figures, asserts nothing.
//
//   bash benchmarks/backtest/run.sh        (builds in release, then runs this and backtrader on the same file)
//   swift run -c release BacktestBench [BARS] [CSV-PATH]
//
// Generates BARS one-minute bars (default 1,000,000; a random walk in cents, as tests/e2e/test_backtest_reference.py
// does), writes them to CSV-PATH if given, and times the SMA(10)/SMA(30) crossover (qty 1) through the real engine:
// parsing, and the run itself (the bars/s figure).
import Backtest
import Foundation
import TradingCore

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let path = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : nil

var generator = SeededGenerator(seed: 20_261_124)
var close = 10_000
var time = Timestamp(CivilDate(2024, 1, 1), in: .utc)
var bars: [HistoricalBar] = []
bars.reserveCapacity(count)
var csv = "datetime,open,high,low,close,volume\n"
if path != nil { csv.reserveCapacity(count * 60) }
func cents(_ n: Int) -> FixedDecimal { FixedDecimal(units: n, exponent: 2) }
for _ in 0..<count {
    let open = max(100, close + generator.next(in: -3...3))
    close = max(100, open + generator.next(in: -12...12))
    let high = max(open, close) + generator.next(in: 0...5)
    let low = max(50, min(open, close) - generator.next(in: 0...5))
    bars.append(
        HistoricalBar(
            time: time, open: cents(open), high: cents(high), low: cents(low), close: cents(close), volume: 1000))
    if path != nil {
        csv += "\(time.rfc3339(in: .utc, fractionalDigits: 0).prefix(19).replacingOccurrences(of: "T", with: " ")),"
        csv += "\(cents(open).formatted(places: 2)),\(cents(high).formatted(places: 2)),"
        csv += "\(cents(low).formatted(places: 2)),\(cents(close).formatted(places: 2)),1000\n"
    }
    time = time.adding(seconds: 60)
}
if let path {
    try csv.write(toFile: path, atomically: true, encoding: .utf8)
    let clock = ContinuousClock()
    let started = clock.now
    let parsed = try CSVBars.parse(csv, symbol: "WALK", zone: .utc)
    let elapsed = clock.now - started
    print("parse CSV: \(parsed[0].bars.count) bars in \(elapsed)")
}

let clock = ContinuousClock()
let instrument = Instrument.usEquity("WALK", name: "Random walk")
let tester = Backtester(settings: BacktestSettings(cash: 1_000_000, fees: .free))
var best = Duration.seconds(1_000)
var trades = 0
for _ in 0..<5 {
    let started = clock.now
    let result = try tester.run(
        [BarSeries(symbol: "WALK", bars: bars)], instruments: ["WALK": instrument],
        strategy: SMACross(fast: 10, slow: 30, qty: 1))
    best = min(best, clock.now - started)
    trades = result.trades.count
}
let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
print(
    "papertrade: sma-cross 10/30 over \(count) one-minute bars through the engine: \(Int(Double(count) / seconds)) bars/s (\(Int(seconds * 1000)) ms, best of 5; \(trades) round trips; goal 20,000,000 bars/s)"
)

// The same bars with a strategy that never orders: the loop's cost per bar (days, marks, equity, the strategy's call)
// without the order path, which at sma-cross's ~40,000 orders a million bars is most of the time above.
var idle = Duration.seconds(1_000)
for _ in 0..<5 {
    let started = clock.now
    _ = try tester.run([BarSeries(symbol: "WALK", bars: bars)], instruments: ["WALK": instrument], strategy: Watch())
    idle = min(idle, clock.now - started)
}
let idleSeconds = Double(idle.components.seconds) + Double(idle.components.attoseconds) / 1e18
print(
    "papertrade: the same bars, no orders: \(Int(Double(count) / idleSeconds)) bars/s (\(Int(idleSeconds * 1000)) ms, best of 5); the orders cost \(Int((seconds - idleSeconds) / Double(max(1, trades * 2)) * 1e9)) ns each (\(trades * 2) orders)"
)

/// Reads every bar and never orders.
struct Watch: Strategy {
    mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {}
}

/// The core's seeded generator (SplitMix64), so every run benchmarks the same bars.
extension SeededGenerator {
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
