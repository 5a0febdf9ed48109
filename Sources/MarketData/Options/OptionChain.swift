import Foundation
import TradingCore

/// What the chain of one underlying is made from on one trading day: its daily closes before that day, the
/// volatility it has been realizing, its dividend yield and its trading volume. Everything here is known at the
/// previous close, so the chain (which contracts exist) is the same all day and on every node.
public struct UnderlyingHistory: Sendable, Hashable {
    public var symbol: String
    /// The trading day the history is for (closes end the trading day before).
    public var date: CivilDate
    /// Daily closes, ascending, up to the trading day before `date`, in today's shares: a close before a split's
    /// ex-date is divided by its ratio, so a split is no move (it neither widens the strike grid nor inflates the
    /// realized volatility).
    public var closes: [DailyClose]
    /// Cash dividends per share over the last year, divided by the last close.
    public var dividendYield: Double
    /// Average daily volume in shares over the last 20 sessions.
    public var averageVolume: Double
    /// The sessions whose close-to-close move carries an earnings report (the report's day when it came before the
    /// open, the next session when after the close), past and coming, ascending.
    public var earningsSessions: [CivilDate] = []
    /// The splits with an ex-date on or before `date`, ascending: when each came and its ratio (new shares per old).
    /// The closes are already adjusted for them; the chain carries the contracts listed before each.
    public var splits: [Split] = []

    public struct Split: Sendable, Hashable {
        public var exDate: CivilDate
        public var ratio: Double
        /// New contracts per old one (a whole-number forward split: `OptionAdjustment`), nil for other ratios.
        public var wholeFactor: Int?
        /// Other ratios: the adjusted root its contracts move to and the shares each then delivers.
        public var adjustedRoot: String?
        public var deliverable: Int?
        /// Contracts already on an adjusted root when this split comes: every such root's contracts move to a new root
        /// (same count and strike) delivering what they did × the ratio, rounded down — as OCC adjusts an adjusted
        /// contract again.
        public var readjusted: [Readjustment] = []
        /// Adjusted roots this split leaves delivering less than a share (a reverse split of a contract already
        /// delivering few): OCC pays the fraction as cash in lieu, which makes the deliverable cash only, and
        /// accelerates their expiration to the ex-date — they settle in cash that day and are listed no more.
        public var cashSettled: [CashSettlement] = []

        /// Contracts of `root`, each delivering `deliverable` shares before the split and `shares` (less than one)
        /// after it, paid as cash.
        public struct CashSettlement: Sendable, Hashable {
            public var root: String
            public var deliverable: Int
            public var shares: FixedDecimal
            public init(root: String, deliverable: Int, shares: FixedDecimal) {
                self.root = root
                self.deliverable = deliverable
                self.shares = shares
            }
        }

        public struct Readjustment: Sendable, Hashable {
            public var from: String
            public var root: String
            public var deliverable: Int
            public init(from: String, root: String, deliverable: Int) {
                self.from = from
                self.root = root
                self.deliverable = deliverable
            }
        }
        public init(
            exDate: CivilDate, ratio: Double, wholeFactor: Int?, adjustedRoot: String? = nil, deliverable: Int? = nil
        ) {
            self.exDate = exDate
            self.ratio = ratio
            self.wholeFactor = wholeFactor
            self.adjustedRoot = adjustedRoot
            self.deliverable = deliverable
        }
    }

    /// The last close, in today's shares, to the cent (nil before the underlying's first close).
    public var lastClosePrice: Price? { closes.last.map { Quantize.amount($0.close) } }

    public struct DailyClose: Sendable, Hashable {
        public var date: CivilDate
        public var close: Double
        public init(date: CivilDate, close: Double) {
            self.date = date
            self.close = close
        }
    }

    public init(symbol: String, date: CivilDate, closes: [DailyClose], dividendYield: Double, averageVolume: Double) {
        self.symbol = symbol
        self.date = date
        self.closes = closes
        self.dividendYield = dividendYield.isFinite ? max(dividendYield, 0) : 0
        self.averageVolume = averageVolume.isFinite ? max(averageVolume, 0) : 0
    }

    public var lastClose: Double? { closes.last?.close }

    /// Annualized close-to-close volatility over the last `sessions` sessions (nil with fewer than 5 returns),
    /// leaving out the sessions that carried an earnings report: what the stock does between reports.
    public func realizedVolatility(sessions: Int) -> Double? {
        diffusiveReturns(sessions: sessions).flatMap(Self.annualized)
    }

    /// The variance of a report's move beyond an ordinary session's, from the last two years' report sessions (nil
    /// with fewer than two of them): what options price in for the next report.
    public var earningsMoveVariance: Double? {
        let reports = Set(earningsSessions)
        var moves: [Double] = []
        for (previous, close) in zip(closes.suffix(505), closes.suffix(504))
        where reports.contains(close.date) && previous.close > 0 && close.close > 0 {
            let r = log(close.close / previous.close)
            moves.append(r * r)
        }
        guard moves.count >= 2 else { return nil }
        let daily = diffusiveReturns(sessions: 250).map { r in r.reduce(0) { $0 + $1 * $1 } / Double(max(r.count, 1)) }
        return max(moves.reduce(0, +) / Double(moves.count) - (daily ?? 0), 0)
    }

    /// The first report session after `date`, on or before `expiration` (nil when none falls between).
    public func earningsSession(after date: CivilDate, through expiration: CivilDate) -> CivilDate? {
        earningsSessions.first { $0 > date && $0 <= expiration }
    }

    func diffusiveReturns(sessions: Int) -> [Double]? {
        let window = closes.suffix(sessions + 1)
        guard window.count >= 6 else { return nil }
        let reports = Set(earningsSessions)
        var previous: Double?
        var returns: [Double] = []
        returns.reserveCapacity(window.count)
        for c in window {
            if let p = previous, p > 0, c.close > 0, !reports.contains(c.date) { returns.append(log(c.close / p)) }
            previous = c.close
        }
        return returns.count >= 5 ? returns : nil
    }

    static func annualized(_ returns: [Double]) -> Double? {
        guard returns.count >= 5 else { return nil }
        let mean = returns.reduce(0, +) / Double(returns.count)
        let variance = returns.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(returns.count - 1)
        return (variance * 252).squareRoot()
    }

    /// The lowest and highest close known on `start` or after it: the last close before `start` (what the market
    /// knew when it listed) and every close since (nil when there are none).
    func closeRange(from start: CivilDate) -> (low: Double, high: Double)? {
        var low = Double.infinity
        var high = -Double.infinity
        for c in closes.reversed() {
            low = min(low, c.close)
            high = max(high, c.close)
            if c.date < start { break }
        }
        return low.isFinite ? (low, high) : nil
    }

    /// The last close before a date — what the market knew that morning (the first close when the date is before
    /// the history).
    func close(before date: CivilDate) -> Double? {
        var found: Double?
        for c in closes {
            if c.date >= date { break }
            found = c.close
        }
        return found ?? closes.first?.close
    }
}

/// How an underlying's options are listed: which expirations (dailies or not), the strike grid and the quoting tick
/// (Penny Program classes quote in pennies below $3, nickels above; SPY, QQQ and IWM in pennies at every price).
public struct OptionClass: Sendable, Hashable {
    public var underlying: String
    public var expirations: OptionExpirations
    /// Index-tracking ETFs: dailies, $1 strikes, pennies everywhere, a steeper skew.
    public var isIndexETF: Bool
    /// Quotes in pennies at every price (the daily classes), not only below $3.
    let penniesEverywhere: Bool

    /// The ETFs that list every weekday (0DTE) and quote in pennies at any price.
    static let dailyClasses: Set<String> = ["SPY", "QQQ", "IWM"]
    /// Index ETFs with $1 strikes near the money.
    static let indexETFs: Set<String> = ["SPY", "QQQ", "IWM", "DIA"]

    public init(underlying: String, isETF: Bool) {
        self.underlying = underlying
        self.isIndexETF = isETF && Self.indexETFs.contains(underlying)
        self.expirations = OptionExpirations(dailies: Self.dailyClasses.contains(underlying))
        self.penniesEverywhere = Self.dailyClasses.contains(underlying)
    }

    /// The class's tick rule (the engine trades its contracts on it).
    public var tickRule: TickRule { penniesEverywhere ? .usOptionPennies : .usOption }

    /// The minimum price increment of a contract's premium at a price.
    public func tick(at price: Price) -> FixedDecimal { tickRule.tick(at: price) }

    /// The instrument the engine trades for one of the class's contracts.
    public func instrument(_ contract: OptionContract) -> Instrument {
        .usOption(contract, penniesEverywhere: penniesEverywhere)
    }

    static let increments: [FixedDecimal] = [
        FixedDecimal(units: 5, exponent: 1), FixedDecimal(1), FixedDecimal(units: 25, exponent: 1), FixedDecimal(5),
        FixedDecimal(10), FixedDecimal(25), FixedDecimal(50), FixedDecimal(100), FixedDecimal(250),
    ]

    /// The strike increment near the money for an underlying price: finer for cheap stocks and index ETFs, one
    /// step coarser for quarterlies and LEAPS.
    func fineIncrementIndex(price: Double, kind: OptionExpirations.Kind) -> Int {
        var index: Int
        switch price {
        case ..<25: index = 0
        case ..<100: index = 1
        case ..<250: index = 2
        case ..<1000: index = 3
        case ..<2500: index = 4
        default: index = 5
        }
        if isIndexETF && price < 1000 { index = 1 }
        if kind == .leaps || kind == .quarterly { index += 1 }
        return min(index, Self.increments.count - 3)
    }

    /// The strikes listed for an expiration on a day: a fine grid around every close since the expiration was
    /// listed, a coarse one (two increments up) further out. The band grows with the volatility to expiry, and the
    /// grid only ever grows — a strike, once listed, stays until it expires.
    public func strikes(expiration: CivilDate, history: UnderlyingHistory) -> [Price] {
        guard let kind = expirations.kind(of: expiration), let listed = expirations.listingDate(of: expiration),
            let range = history.closeRange(from: listed), let reference = history.close(before: listed),
            range.low > 0
        else { return [] }
        let years = Double(expiration.daysSinceEpoch - listed.daysSinceEpoch) / 365
        // A fixed volatility per class, not the realized one: a band that shrank on a calm day would delist strikes.
        let spread = (isIndexETF ? 0.2 : 0.35) * years.squareRoot()
        let fineIndex = fineIncrementIndex(price: reference, kind: kind)
        let fine = Self.increments[fineIndex]
        let coarse = Self.increments[fineIndex + 2]
        // At least six fine strikes each side of the money, even where a percentage band is narrower than the grid
        // (a $12 stock's weekly).
        let far = min(max(0.15, 3.5 * spread), 0.8)
        let near = min(max(0.05, 1.5 * spread, 6 * Quantize.level(fine) / reference), max(far, 0.35))
        var strikes = Set<Price>()
        func add(_ low: Double, _ high: Double, step: FixedDecimal) {
            let stepLevel = Quantize.level(step)
            guard stepLevel > 0 else { return }
            let first = max(Int((low / stepLevel).rounded(.up)), 1)
            let last = Int((high / stepLevel).rounded(.down))
            guard first <= last, last - first < 2000 else { return }
            for n in first...last { strikes.insert(step.times(n)) }
        }
        add(range.low * (1 - near), range.high * (1 + near), step: fine)
        add(range.low * (1 - far), range.high * (1 + far), step: coarse)
        return strikes.sorted()
    }

    /// Every contract listed on `history.date`: for each expiration in turn its grid with the contracts a
    /// whole-number split carried over from before it (`carriedStrikes`) in chain order, then those other splits
    /// moved to an adjusted root (`adjustedContracts`).
    public func contracts(history: UnderlyingHistory) -> [OptionContract] {
        var out: [OptionContract] = []
        for expiration in expirations.listed(on: history.date) {
            defer { out += adjustedContracts(expiration: expiration, history: history) }
            var strikes = strikes(expiration: expiration, history: history)
            let carried = carriedStrikes(expiration: expiration, history: history)
            if !carried.isEmpty { strikes = Set(strikes).union(carried).sorted() }
            for strike in strikes {
                for right in OptionRight.allCases {
                    if let c = OptionContract(
                        underlying: underlying, expiration: expiration, right: right, strike: strike)
                    {
                        out.append(c)
                    }
                }
            }
        }
        return out
    }

    /// The contracts of an expiration on adjusted roots, the OCC way, followed through every split since its listing:
    /// a split that is not a whole number moves every strike listed the day before its ex-date (with those earlier
    /// whole-number splits carried over) to its adjusted root (`AAPL1`), delivering 100 × the ratio shares (150 after
    /// 3:2, 10 after 1:10); a later split moves an adjusted root's contracts on again, to a new root delivering what
    /// they did × its ratio (a 3:2 then a 2:1: 300 shares).
    public func adjustedContracts(expiration: CivilDate, history: UnderlyingHistory) -> [OptionContract] {
        guard !history.splits.isEmpty, let listed = expirations.listingDate(of: expiration) else { return [] }
        // The standard strikes earlier whole-number splits carried (beyond the grid), and the adjusted roots' strikes.
        var standard = Set<Price>()
        var families: [String: (deliverable: Int, strikes: Set<Price>)] = [:]
        for (n, split) in history.splits.enumerated() where split.exDate > listed && split.exDate <= expiration {
            // The grid the day before, in that day's shares: every split from this one on backed out of the closes.
            let scale = history.splits[n...].reduce(1.0) { $0 * $1.ratio }
            var before = history
            before.date = TradingCalendar.xnys.previousTradingDay(before: split.exDate)
            before.closes = history.closes.filter { $0.date < before.date }.map {
                UnderlyingHistory.DailyClose(date: $0.date, close: $0.close * scale)
            }
            let listedBefore = standard.union(strikes(expiration: expiration, history: before))
            var moved: [String: (deliverable: Int, strikes: Set<Price>)] = [:]
            for r in split.readjusted {
                if let family = families[r.from] { moved[r.root] = (r.deliverable, family.strikes) }
            }
            families = moved
            if let factor = split.wholeFactor {
                standard = Set(listedBefore.compactMap { OptionAdjustment.adjustedStrike($0, factor: factor) })
            } else if let root = split.adjustedRoot, let deliverable = split.deliverable {
                families[root] = (deliverable, listedBefore)
                standard = []
            }
        }
        var out: [OptionContract] = []
        for (root, family) in families.sorted(by: { $0.key < $1.key }) {
            for strike in family.strikes.sorted() {
                for right in OptionRight.allCases {
                    if let c = OptionContract(
                        underlying: underlying, expiration: expiration, right: right, strike: strike, root: root,
                        deliverable: family.deliverable)
                    {
                        out.append(c)
                    }
                }
            }
        }
        return out
    }

    /// The strikes of an expiration that whole-number splits since its listing carried over, the OCC way: every
    /// strike listed the day before a split's ex-date, ÷ the split's factor (and the factors of the splits after it),
    /// to $0.001 — a $250 call becomes three $83.333 calls. Other ratios (3:2, reverse splits) are not carried: OCC
    /// moves those to an adjusted root and deliverable, which papertrade does not list.
    public func carriedStrikes(expiration: CivilDate, history: UnderlyingHistory) -> Set<Price> {
        guard !history.splits.isEmpty, let listed = expirations.listingDate(of: expiration) else { return [] }
        var out = Set<Price>()
        for (n, split) in history.splits.enumerated() where split.exDate > listed && split.exDate <= expiration {
            guard let factor = split.wholeFactor else { continue }
            // Every split from this one on, back out of the closes (what the market quoted then) and into the strikes.
            let later = history.splits[n...]
            let scale = later.reduce(1.0) { $0 * $1.ratio }
            guard later.allSatisfy({ $0.wholeFactor != nil }) else { continue }
            let combined = later.reduce(1) { $0 * ($1.wholeFactor ?? 1) }
            var before = history
            before.date = TradingCalendar.xnys.previousTradingDay(before: split.exDate)
            before.closes = history.closes.filter { $0.date < before.date }.map {
                UnderlyingHistory.DailyClose(date: $0.date, close: $0.close * scale)
            }
            guard factor > 1, combined > 1 else { continue }
            for strike in strikes(expiration: expiration, history: before) {
                if let adjusted = OptionAdjustment.adjustedStrike(strike, factor: combined) { out.insert(adjusted) }
            }
        }
        return out
    }
}
