import JSON
import TradingCore

/// A grid of whole-number strategy parameters — `fast=5..50 slow=20..200`, `fast=5..50:5`, `slow=20,50,100` — and
/// its points, every combination of the axes' values.
public struct ParameterGrid: Sendable {
    public struct Axis: Sendable {
        public var name: String
        public var values: [Int]
    }

    public var axes: [Axis]
    /// The most points one sweep may hold (a typo like `slow=1..1000000` is refused rather than run for hours).
    public static let maximumPoints = 100_000

    public init(parsing specs: [String]) throws(StrategyProblem) {
        var axes: [Axis] = []
        for spec in specs {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw StrategyProblem("a sweep axis is name=first..last[:step] or name=a,b,c, not \(spec)")
            }
            let name = parts[0]
            guard !axes.contains(where: { $0.name == name }) else { throw StrategyProblem("\(name) is swept twice") }
            axes.append(Axis(name: name, values: try Self.values(parts[1], name: name)))
        }
        guard !axes.isEmpty else { throw StrategyProblem("a sweep needs at least one axis, e.g. fast=5..50") }
        let count = axes.reduce(1) { $0.multipliedReportingOverflow(by: $1.values.count).partialValue }
        guard count <= Self.maximumPoints, axes.allSatisfy({ $0.values.count <= Self.maximumPoints }) else {
            throw StrategyProblem("the sweep has more than \(Self.maximumPoints) points; narrow it or add a :step")
        }
        self.axes = axes
    }

    static func values(_ text: String, name: String) throws(StrategyProblem) -> [Int] {
        func number(_ s: Substring) throws(StrategyProblem) -> Int {
            guard let n = Int(s), n > 0, n <= 1_000_000 else {
                throw StrategyProblem("\(name): \(s) is not a whole number from 1 to 1000000")
            }
            return n
        }
        if text.contains("..") {
            let range = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let dots = range[0].firstRange(of: "..") else {
                throw StrategyProblem("\(name): a range is first..last[:step], not \(text)")
            }
            let first = try number(range[0][..<dots.lowerBound]), last = try number(range[0][dots.upperBound...])
            let step = range.count == 2 ? try number(range[1]) : 1
            guard first <= last else { throw StrategyProblem("\(name): \(first)..\(last) runs backwards") }
            return Array(stride(from: first, through: last, by: step))
        }
        var values: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let n = try number(part)
            if !values.contains(n) { values.append(n) }
        }
        return values
    }

    /// Every combination, the first axis slowest.
    public var points: [[String: String]] {
        axes.reduce([[:]]) { points, axis in
            points.flatMap { point in
                axis.values.map { value in point.merging([axis.name: String(value)]) { _, new in new } }
            }
        }
    }
}

/// One point of a sweep: its parameters, and what the backtest made of them (or why the strategy refused them).
public struct SweepRow: Sendable {
    public var parameters: [String: String]
    public var totalReturn: FixedDecimal?
    public var cagr: FixedDecimal?
    public var maxDrawdown: FixedDecimal?
    public var sharpe: FixedDecimal?
    public var trades = 0
    public var winRate: FixedDecimal?
    public var fees: FixedDecimal = .zero
    public var finalEquity: FixedDecimal?
    public var skipped: String?

    init(parameters: [String: String], result: BacktestResult) {
        self.parameters = parameters
        let figures = result.figures
        totalReturn = result.totalReturn
        cagr = result.cagr
        maxDrawdown = figures?.maxDrawdown?.depth
        sharpe = figures?.sharpe
        trades = result.trades.count
        winRate = result.winRate
        fees = result.fees
        finalEquity = result.finalEquity
    }

    init(parameters: [String: String], skipped: String) {
        self.parameters = parameters
        self.skipped = skipped
    }
}

/// A strategy's backtest at every point of a grid, the points dealt to every core (each a whole backtest through
/// the same engine as one run: the same fills, fees and report figures).
public enum ParameterSweep {
    /// The rows in the grid's order. `make` builds the strategy for a point; a point it refuses (sma-cross with fast
    /// not below slow) is a skipped row, not a failure.
    public static func run(
        _ grid: ParameterGrid, settings: BacktestSettings, series: [BarSeries], instruments: [String: Instrument],
        actions: [String: [CorporateAction]] = [:], workers: Int,
        make: @escaping @Sendable ([String: String]) throws(StrategyProblem) -> any Strategy
    ) async -> [SweepRow] {
        let points = grid.points
        let workers = max(1, min(workers, points.count))
        let rows = await withTaskGroup(of: [(Int, SweepRow)].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var done: [(Int, SweepRow)] = []
                    for index in stride(from: worker, to: points.count, by: workers) {
                        let point = points[index]
                        do {
                            let strategy = try make(point)
                            let result = try Backtester(settings: settings).run(
                                series, instruments: instruments, strategy: strategy, actions: actions)
                            done.append((index, SweepRow(parameters: point, result: result)))
                        } catch let problem as StrategyProblem {
                            done.append((index, SweepRow(parameters: point, skipped: problem.description)))
                        } catch {
                            done.append((index, SweepRow(parameters: point, skipped: "\(error)")))
                        }
                    }
                    return done
                }
            }
            var all: [(Int, SweepRow)] = []
            for await part in group { all += part }
            return all
        }
        return rows.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The rows best first: by total return, then Sharpe; skipped rows last.
    public static func ranked(_ rows: [SweepRow]) -> [SweepRow] {
        rows.filter { $0.skipped == nil }.sorted { a, b in
            if a.totalReturn != b.totalReturn { return (a.totalReturn ?? .zero) > (b.totalReturn ?? .zero) }
            return (a.sharpe ?? .zero) > (b.sharpe ?? .zero)
        } + rows.filter { $0.skipped != nil }
    }

    /// A table of the `top` best rows: the axes, then the figures (returns and drawdown in percent).
    public static func table(_ rows: [SweepRow], axes: [String], top: Int) -> String {
        func percent(_ d: FixedDecimal?) -> String {
            guard let d else { return "—" }
            let p = d.times(100).rounded(places: 2, rule: .halfEven)
            return (p.isPositive ? "+" : "") + p.formatted(minimumPlaces: 2) + "%"
        }
        func plain(_ d: FixedDecimal?, _ places: Int) -> String {
            d.map { $0.rounded(places: places, rule: .halfEven).formatted(minimumPlaces: places) } ?? "—"
        }
        let header = axes + ["return", "CAGR", "max drawdown", "Sharpe", "trades", "win rate", "fees"]
        let body = ranked(rows).filter { $0.skipped == nil }.prefix(top).map { row in
            axes.map { row.parameters[$0] ?? "" } + [
                percent(row.totalReturn), percent(row.cagr), percent(row.maxDrawdown), plain(row.sharpe, 2),
                String(row.trades), percent(row.winRate), plain(row.fees, 2),
            ]
        }
        let widths = header.indices.map { i in ([header[i]] + body.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i < axes.count ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        return ([line(header)] + body.map(line)).joined(separator: "\n")
    }

    /// Every row as JSON: the parameters (as numbers), the figures, or why the point was skipped.
    public static func json(_ rows: [SweepRow]) -> JSONValue {
        .array(
            rows.map { row in
                var o: [String: JSONValue] = [
                    "parameters": .object(
                        row.parameters.mapValues { value in Int(value).map { .int($0) } ?? .string(value) })
                ]
                if let skipped = row.skipped {
                    o["skipped"] = .string(skipped)
                } else {
                    o["total_return"] = .decimal(row.totalReturn)
                    o["cagr"] = .decimal(row.cagr)
                    o["max_drawdown"] = .decimal(row.maxDrawdown)
                    o["sharpe"] = .decimal(row.sharpe)
                    o["trades"] = .int(row.trades)
                    o["win_rate"] = .decimal(row.winRate)
                    o["fees"] = .decimal(row.fees)
                    o["final_equity"] = .decimal(row.finalEquity)
                }
                return .object(o)
            })
    }
}
