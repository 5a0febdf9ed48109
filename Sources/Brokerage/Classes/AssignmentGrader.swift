import BrokerageModel
import TradingCore

/// What a student did that an assignment can count, read from their class account's ledger up to the due time.
public struct StudentWork: Sendable {
    /// Every order the student placed up to the due time, oldest first (rejected ones are never stored).
    public var orders: [Order]
    /// Their fills up to the due time, oldest first.
    public var fills: [Fill]
    /// What each position is worth and the account's equity: now while the assignment is open, at the due date's
    /// close once it is due (nil when that close is not recorded yet).
    public var holdings: [(symbol: String, value: FixedDecimal)]?
    public var equity: FixedDecimal?
    /// The student's return since the class started, and the benchmark's, at the same moment as `holdings`.
    public var totalReturn: FixedDecimal?
    public var benchmarkReturn: FixedDecimal?

    public init(
        orders: [Order], fills: [Fill], holdings: [(symbol: String, value: FixedDecimal)]? = nil,
        equity: FixedDecimal? = nil, totalReturn: FixedDecimal? = nil, benchmarkReturn: FixedDecimal? = nil
    ) {
        self.orders = orders
        self.fills = fills
        self.holdings = holdings
        self.equity = equity
        self.totalReturn = totalReturn
        self.benchmarkReturn = benchmarkReturn
    }
}

extension StudentWork {
    /// The portfolio as it stands (an open assignment): its holdings, equity and return since the class started,
    /// and the benchmark's return now.
    mutating func value(_ summary: AccountSummary?, startingCash start: FixedDecimal, benchmark: FixedDecimal?) {
        if let summary {
            holdings = summary.positions.map { ($0.position.symbol, $0.valuation.marketValue) }
            equity = summary.equity
            totalReturn = (summary.equity - start).divided(by: start, places: 6, rule: .halfEven)
        }
        benchmarkReturn = benchmark
    }
}

/// How far one check of an assignment is, and what satisfied it: the orders that counted, the symbols held, the
/// figure against its limit — so a student sees why a check is done or not, and a teacher can verify it.
public struct CheckProgress: Sendable, Hashable {
    public var check: AssignmentCheck
    public var done: Bool
    /// How many were counted, and how many it takes (trades, order types, holdings).
    public var count: Int?
    public var needed: Int?
    /// The orders that satisfied it (the trades counted, the order of the asked type, the trades without a note).
    public var orders: [OrderID]
    /// The symbols (or sectors) held together at the best moment; or the positions over the cap.
    public var symbols: [String]
    /// A figure and the limit it is held to (the largest position's share of equity, in percent; the student's
    /// return against the benchmark's, as fractions).
    public var value: FixedDecimal?
    public var limit: FixedDecimal?
    /// The check and its state in English (the app words the same facts in the reader's language).
    public var detail: String
}

/// An assignment's state for one student: done when every check is (a task, when the teacher marked it).
public struct AssignmentProgress: Sendable, Hashable {
    public var assignment: AssignmentRecord
    public var checks: [CheckProgress]
    public var mark: AssignmentMark?
    public var done: Bool { checks.allSatisfy(\.done) }
}

/// Checks assignments against a student's work. Pure: the same ledger gives the same grade, so the grade book can
/// be recomputed at any time and never needs grading by hand.
public struct AssignmentGrader: Sendable {
    /// The sector of a symbol (GICS for US stocks; nil when unknown: such a stock counts as its own sector).
    public var sector: @Sendable (String) -> String?

    public init(sector: @escaping @Sendable (String) -> String?) { self.sector = sector }

    public func progress(_ assignment: AssignmentRecord, work: StudentWork, mark: AssignmentMark?)
        -> AssignmentProgress
    {
        AssignmentProgress(
            assignment: assignment, checks: assignment.checks.map { check($0, work: work, mark: mark) }, mark: mark)
    }

    func check(_ check: AssignmentCheck, work: StudentWork, mark: AssignmentMark?) -> CheckProgress {
        let trades = work.orders.filter { $0.filledQty.isPositive }
        switch check {
        case .trades(let count):
            let counted = Array(trades.prefix(max(count, 0)))
            return CheckProgress(
                check: check, done: trades.count >= count, count: trades.count, needed: count,
                orders: counted.map(\.id), symbols: [], value: nil, limit: nil,
                detail: "\(trades.count) of \(count) trades made")
        case .orderType(let types):
            let used = work.orders.filter { types.contains($0.type) }
            let names = types.map(\.rawValue).joined(separator: ", ")
            return CheckProgress(
                check: check, done: !used.isEmpty, count: used.count, needed: 1, orders: used.prefix(1).map(\.id),
                symbols: [], value: nil, limit: nil,
                detail: used.first.map { "used a \($0.type.rawValue) order on \($0.symbol)" }
                    ?? "no \(names) order placed yet")
        case .holdings(let count, let bySector):
            let best = mostHeldTogether(work.fills, bySector: bySector)
            let what = bySector ? "sectors" : "stocks"
            return CheckProgress(
                check: check, done: best.count >= count, count: best.count, needed: count, orders: [],
                symbols: best, value: nil, limit: nil,
                detail: "held at most \(best.count) of \(count) different \(what) at once")
        case .maxPosition(let percent):
            guard let holdings = work.holdings, let equity = work.equity, equity.isPositive else {
                return CheckProgress(
                    check: check, done: false, count: nil, needed: nil, orders: [], symbols: [], value: nil,
                    limit: percent, detail: "the portfolio at the due date's close is not recorded yet")
            }
            let shares = holdings.map { holding in
                (
                    holding.symbol,
                    holding.value.magnitude.times(100).divided(by: equity, places: 2, rule: .halfEven) ?? .zero
                )
            }
            let over = shares.filter { $0.1 > percent }.map(\.0)
            let largest = shares.map(\.1).max() ?? .zero
            return CheckProgress(
                check: check, done: over.isEmpty, count: nil, needed: nil, orders: [], symbols: over,
                value: largest, limit: percent,
                detail: over.isEmpty
                    ? "largest position \(largest.formatted(minimumPlaces: 2))% of equity (limit \(percent.formatted(minimumPlaces: 0))%)"
                    : "\(over.joined(separator: ", ")) above \(percent.formatted(minimumPlaces: 0))% of equity")
        case .journal:
            let missing = trades.filter { ($0.note ?? "").allSatisfy(\.isWhitespace) }
            return CheckProgress(
                check: check, done: !trades.isEmpty && missing.isEmpty, count: trades.count - missing.count,
                needed: trades.count, orders: missing.map(\.id), symbols: [], value: nil, limit: nil,
                detail: trades.isEmpty
                    ? "no trades yet" : "\(trades.count - missing.count) of \(trades.count) trades have a journal note")
        case .beatBenchmark:
            guard let mine = work.totalReturn, let index = work.benchmarkReturn else {
                return CheckProgress(
                    check: check, done: false, count: nil, needed: nil, orders: [], symbols: [],
                    value: work.totalReturn,
                    limit: work.benchmarkReturn, detail: "the benchmark's return is not known yet")
            }
            return CheckProgress(
                check: check, done: mine > index, count: nil, needed: nil, orders: [], symbols: [], value: mine,
                limit: index,
                detail: "return \(Self.percent(mine)) against the benchmark's \(Self.percent(index))")
        case .task(let text):
            return CheckProgress(
                check: check, done: mark != nil, count: nil, needed: nil, orders: [], symbols: [], value: nil,
                limit: nil, detail: mark.map { "marked \($0.mark)" } ?? "waiting for the teacher's mark: \(text)")
        }
    }

    /// The largest set of stocks (or sectors) held at the same moment, replaying the fills in order.
    func mostHeldTogether(_ fills: [Fill], bySector: Bool) -> [String] {
        var held: [String: Quantity] = [:]
        var best: [String] = []
        for fill in fills {
            held[fill.symbol, default: .zero] += fill.side == .buy ? fill.qty : -fill.qty
            if held[fill.symbol]?.isZero == true { held[fill.symbol] = nil }
            let now = Set(held.keys.map { bySector ? (sector($0).flatMap { $0.isEmpty ? nil : $0 } ?? $0) : $0 })
            if now.count > best.count { best = now.sorted() }
        }
        return best
    }

    static func percent(_ fraction: FixedDecimal) -> String {
        let value = fraction.times(100).rounded(places: 2, rule: .halfEven)
        return (value.isPositive ? "+" : "") + value.formatted(minimumPlaces: 2) + "%"
    }
}
