import Backtest
import JSON
import Testing
import TradingCore

@Suite("Parameter sweeps")
struct ParameterSweepTests {
    /// 300 days of a price that waves (so moving averages cross) and drifts, with a wobble so no two paths are alike.
    static let series: BarSeries = {
        func price(_ cents: Int) -> String { "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)" }
        var pairs: [(String, String)] = []
        var last = 10_000
        for day in 0..<300 {
            let wave = abs(day % 36 - 18) * 80
            let next = 9_000 + wave + day * 5 + (day * 37) % 11 * 20
            pairs.append((price(last), price(next)))
            last = next
        }
        return BarSeries(symbol: "AAPL", bars: dailyBars(pairs))
    }()

    @Test("a grid reads ranges, steps and lists, and refuses what it cannot run")
    func grid() throws {
        let grid = try ParameterGrid(parsing: ["fast=5..20:5", "slow=30,60"])
        #expect(grid.axes.map(\.name) == ["fast", "slow"])
        #expect(grid.axes[0].values == [5, 10, 15, 20] && grid.axes[1].values == [30, 60])
        #expect(grid.points.count == 8)
        #expect(grid.points.first == ["fast": "5", "slow": "30"] && grid.points.last == ["fast": "20", "slow": "60"])
        #expect(try ParameterGrid(parsing: ["fast=5..50", "slow=20..200"]).points.count == 46 * 181)
        for bad in [
            ["fast"], ["fast=0..5"], ["fast=10..5"], ["fast=a..b"], ["fast=5..10:0"], ["fast=1,,2"],
            ["fast=1", "fast=2"],
            ["fast=1..1000", "slow=1..1000"], [],
        ] {
            #expect(throws: StrategyProblem.self, "\(bad)") { try ParameterGrid(parsing: bad) }
        }
    }

    @Test("each point is the same backtest as a run of its own, whatever the number of workers")
    func pointsAreRuns() async throws {
        let settings = BacktestSettings(cash: 100_000, fees: .free)
        let grid = try ParameterGrid(parsing: ["fast=3..12:3", "slow=10,20,40"])
        let make: @Sendable ([String: String]) throws(StrategyProblem) -> any Strategy = {
            point throws(StrategyProblem) in
            try BuiltInStrategy.make("sma-cross", parameters: point, qty: 100)
        }
        let one = await ParameterSweep.run(
            grid, settings: settings, series: [Self.series], instruments: ["AAPL": aapl], workers: 1, make: make)
        let many = await ParameterSweep.run(
            grid, settings: settings, series: [Self.series], instruments: ["AAPL": aapl], workers: 5, make: make)
        #expect(one.count == 12 && many.count == 12)
        // fast 12 with slow 10 is refused by the strategy: skipped, not a failure.
        #expect(one.filter { $0.skipped != nil }.map(\.parameters) == [["fast": "12", "slow": "10"]])
        var traded = 0
        for (a, b) in zip(one, many) {
            #expect(a.parameters == b.parameters && a.totalReturn == b.totalReturn && a.trades == b.trades)
            guard a.skipped == nil else { continue }
            let alone = try Backtester(settings: settings).run(
                [Self.series], instruments: ["AAPL": aapl],
                strategy: BuiltInStrategy.make("sma-cross", parameters: a.parameters, qty: 100))
            #expect(a.totalReturn == alone.totalReturn && a.finalEquity == alone.finalEquity, "\(a.parameters)")
            #expect(a.trades == alone.trades.count && a.sharpe == alone.figures?.sharpe)
            traded += a.trades
        }
        #expect(traded > 20, "the waves make the averages cross")
        // Ranked best first; the table shows the axes and the figures of the top rows.
        let ranked = ParameterSweep.ranked(one)
        #expect(ranked.first?.totalReturn == one.compactMap(\.totalReturn).max())
        let table = ParameterSweep.table(one, axes: ["fast", "slow"], top: 3).split(separator: "\n")
        #expect(table.count == 4 && table[0].hasPrefix("fast  slow"))
        let json = ParameterSweep.json(one)
        #expect(json.array?.count == 12)
        #expect(json.array?.last?["parameters"]?["slow"] == .number("40"))
    }
}
