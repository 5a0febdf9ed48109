import TradingCore

/// The simulated market's corporate actions: a pure function of (seed, symbol), like its prices.
///
/// - US stocks: about 45% pay quarterly cash dividends (ETFs 75%), on the same day of the month each quarter, at an
///   annual yield of 0.5–4% (ETFs 1–3%), declared four weeks ahead, record date = ex-date (T+1 settlement), paid three
///   weeks later. Forward splits (2:1, 3:1, 4:1, 3:2) come to about 5% of high-priced names a year and 1.5% of the
///   others; names under $5 reverse-split (1:10, 1:5, 1:20) about 6% a year.
/// - A-shares: about 65% pay a yearly cash dividend (派 X 元 per 10 shares, 0.5–3.5% yield) with an ex-date in June or
///   July, and about 8% a year distribute bonus shares (送/转 2, 3, 4, 5 or 10 per 10) on the same day; record date
///   (股权登记日) the trading day before, paid on the ex-date.
///
/// Prices follow: the simulator's latent path is the fully adjusted series, anchored on `SimulatedProfile.anchorDate`,
/// and the raw price is it × the product of each action's price factor (1 / ratio for splits, 1 − yield for
/// dividends) between the anchor and the day. A dividend's cash is that yield × the raw close on its declaration
/// day, so the ex-date's drop is about the dividend, as on a real exchange.
struct CorporateActionSchedule: Sendable {
    /// One action with the price factor the simulator applies from its ex-date.
    struct Planned: Sendable, Hashable {
        var kind: CorporateAction.Kind
        var declarationDate: CivilDate
        var exDate: CivilDate
        var recordDate: CivilDate
        var payableDate: CivilDate
        /// Dividends: the fraction of the price paid out; splits: unused.
        var yield: Double
        var newRate: Int
        var oldRate: Int

        /// What the price is multiplied by from the ex-date on.
        var priceFactor: Double {
            kind == .cashDividend ? 1 - yield : Double(oldRate) / Double(newRate)
        }
    }

    static let firstYear = 2000
    static let lastYear = 2040

    let key: UInt64
    let market: Market
    let kind: InstrumentKind
    let hasActions: Bool
    /// The price level on the anchor day (splits are likelier for high prices, reverse splits for pennies).
    let anchor: Double

    init(profile: SimulatedProfile) {
        key = profile.path.key
        market = profile.market
        kind = profile.isIndex ? .index : profile.kind
        // Indices have no actions; warrants, rights and units pay no dividends and do not split (their company's
        // shares do); nor do coins.
        hasActions =
            !profile.isIndex && !profile.isWarrantRightOrUnit && profile.kind != .crypto
            && profile.kind != .forex
        anchor = profile.anchor
    }

    private func u(_ salt: UInt64, _ year: Int = 0, _ n: Int = 0) -> Double {
        CounterRandom.uniform(CounterRandom.hash(key, salt, UInt64(year), UInt64(n)))
    }

    var paysDividends: Bool {
        switch (market, kind) {
        case _ where !hasActions: return false
        case (_, .index): return false
        case (.us, .etf): return u(0xD1) < 0.75
        case (.us, _): return u(0xD1) < 0.45
        case (.cn, .fund): return u(0xD1) < 0.2
        case (.cn, _): return u(0xD1) < 0.65
        }
    }

    /// The actions with ex-dates in `year`, in ex-date order.
    func actions(in year: Int, grid: SessionGrid) -> [Planned] {
        guard year >= Self.firstYear, year <= Self.lastYear, hasActions else { return [] }
        var out: [Planned] = []
        func onOrAfter(_ date: CivilDate) -> CivilDate {
            var d = date
            for _ in 0..<15 where !grid.isTradingDay(d) { d = d.adding(days: 1) }
            return d
        }
        func onOrBefore(_ date: CivilDate) -> CivilDate {
            grid.isTradingDay(date) ? date : grid.previousTradingDay(before: date)
        }
        let day = 1 + Int(u(0xD3) * 25)
        switch market {
        case .us:
            if paysDividends {
                let yearly = kind == .etf ? 0.01 + 0.02 * u(0xD4) : 0.005 + 0.035 * u(0xD4)
                let firstMonth = 1 + Int(u(0xD2) * 3)
                for quarter in 0..<4 {
                    let ex = onOrAfter(CivilDate(year, firstMonth + 3 * quarter, day))
                    out.append(usDates(.cashDividend, ex: ex, grid: grid, yield: yearly / 4, new: 1, old: 1))
                }
            }
            if kind == .stock, u(0xD5, year) < splitChance {
                let ex = onOrAfter(CivilDate(year, 1 + Int(u(0xD6, year) * 12), 1 + Int(u(0xD7, year) * 25)))
                let pick = u(0xD8, year)
                if anchor < 5 {
                    let old = pick < 0.5 ? 10 : pick < 0.8 ? 5 : 20
                    out.append(usDates(.reverseSplit, ex: ex, grid: grid, yield: 0, new: 1, old: old))
                } else {
                    let (new, old) = pick < 0.55 ? (2, 1) : pick < 0.75 ? (3, 1) : pick < 0.88 ? (4, 1) : (3, 2)
                    out.append(usDates(.forwardSplit, ex: ex, grid: grid, yield: 0, new: new, old: old))
                }
            }
        case .cn:
            let ex = onOrAfter(CivilDate(year, 6 + Int(u(0xD2) * 2), day))
            let record = grid.previousTradingDay(before: ex)
            let declared = onOrBefore(ex.adding(days: -14))
            if paysDividends {
                let yearly = 0.005 + 0.03 * u(0xD4, year)
                out.append(
                    Planned(
                        kind: .cashDividend, declarationDate: declared, exDate: ex, recordDate: record, payableDate: ex,
                        yield: yearly, newRate: 1, oldRate: 1))
            }
            if kind == .stock, u(0xD5, year) < 0.08 {
                let bonus = [2, 3, 4, 5, 10][min(4, Int(u(0xD8, year) * 5))]
                out.append(
                    Planned(
                        kind: .stockDividend, declarationDate: declared, exDate: ex, recordDate: record,
                        payableDate: ex, yield: 0, newRate: 10 + bonus, oldRate: 10))
            }
        }
        return out.sorted { ($0.exDate, $0.kind.rawValue) < ($1.exDate, $1.kind.rawValue) }
    }

    private var splitChance: Double {
        if anchor < 5 { return 0.06 }
        return anchor >= 150 ? 0.05 : 0.015
    }

    private func usDates(
        _ kind: CorporateAction.Kind, ex: CivilDate, grid: SessionGrid, yield: Double, new: Int, old: Int
    ) -> Planned {
        let declared =
            grid.isTradingDay(ex.adding(days: -28))
            ? ex.adding(days: -28) : grid.previousTradingDay(before: ex.adding(days: -28))
        // T+1 settlement (from 2024-05-28): the record date is the ex-date; before, the trading day after it.
        var record = ex
        if ex < CivilDate(2024, 5, 28) {
            record = ex.adding(days: 1)
            for _ in 0..<15 where !grid.isTradingDay(record) { record = record.adding(days: 1) }
        }
        var payable = ex.adding(days: kind == .cashDividend ? 21 : 1)
        for _ in 0..<15 where !grid.isTradingDay(payable) { payable = payable.adding(days: 1) }
        return Planned(
            kind: kind, declarationDate: declared, exDate: ex, recordDate: record, payableDate: payable,
            yield: yield, newRate: new, oldRate: old)
    }
}

extension SimulatedMarket {
    /// The schedule's actions of `year` for a profile (cached: every quote needs the current year's).
    func plannedActions(_ profile: SimulatedProfile, year: Int) -> [CorporateActionSchedule.Planned] {
        let key = ActionCache.Key(symbol: profile.symbol, year: year)
        if let hit = actionCache.withLock({ $0.entries[key] }) { return hit }
        let planned = CorporateActionSchedule(profile: profile).actions(in: year, grid: profile.grid)
        actionCache.withLock { cache in
            if cache.entries.count > 100_000 { cache.entries.removeAll(keepingCapacity: true) }
            cache.entries[key] = planned
        }
        return planned
    }

    /// The ex-dates of the schedule's actions after `after` through `through`, in order: the days on which
    /// `logPriceFactor` changes.
    func actionDates(_ profile: SimulatedProfile, after: CivilDate, through: CivilDate) -> [CivilDate] {
        guard !profile.isIndex, after < through else { return [] }
        let years = stride(
            from: Swift.max(after.year, CorporateActionSchedule.firstYear),
            through: Swift.min(through.year, CorporateActionSchedule.lastYear), by: 1)
        return years.flatMap { plannedActions(profile, year: $0) }.map(\.exDate).filter { $0 > after && $0 <= through }
            .sorted()
    }

    /// The log of the factor between the latent (fully adjusted) path and raw prices on `date`: the price factors of
    /// the actions between the anchor day and `date` (ex-dates up to and including `date` have happened).
    func logPriceFactor(_ profile: SimulatedProfile, on date: CivilDate) -> Double {
        guard !profile.isIndex else { return 0 }
        let anchor = SimulatedProfile.anchorDate
        let (from, to) = date >= anchor ? (anchor, date) : (date, anchor)
        var total = 0.0
        let years = stride(
            from: Swift.max(from.year, CorporateActionSchedule.firstYear),
            through: Swift.min(to.year, CorporateActionSchedule.lastYear), by: 1)
        for year in years {
            for action in plannedActions(profile, year: year) where action.exDate > from && action.exDate <= to {
                total += log(action.priceFactor)
            }
        }
        return date >= anchor ? total : -total
    }

    /// The corporate actions of `symbol` with ex-dates from `from` through `through`, with their cash amounts.
    public func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) -> [CorporateAction] {
        guard let entry = directory.entry(symbol), from <= through else { return [] }
        let profile = profile(entry)
        var out: [CorporateAction] = []
        // A stride, not a range: dates wholly before or after the schedule's years make an empty span (a range built
        // backwards traps, and the dates come from requests).
        let years = stride(
            from: Swift.max(from.year, CorporateActionSchedule.firstYear),
            through: Swift.min(through.year, CorporateActionSchedule.lastYear), by: 1)
        for year in years {
            for planned in plannedActions(profile, year: year) where planned.exDate >= from && planned.exDate <= through
            {
                out.append(action(planned, profile: profile))
            }
        }
        return out
    }

    func action(_ p: CorporateActionSchedule.Planned, profile: SimulatedProfile) -> CorporateAction {
        var cash = FixedDecimal.zero
        if p.kind == .cashDividend {
            // The yield of the raw close on the declaration day: cents per share in the US, 0.01 yuan per 10 shares.
            let grid = profile.grid
            let close = exp(
                profile.path.logLevel(day: grid.dayIndex(p.declarationDate), fraction: 1)
                    + logPriceFactor(profile, on: p.declarationDate))
            if profile.market == .us {
                cash = Swift.max(Quantize.price(close * p.yield, tick: .cent), FixedDecimal(units: 1, exponent: 2))
            } else {
                let perTen = Swift.max(
                    Quantize.price(close * p.yield * 10, tick: .cent), FixedDecimal(units: 1, exponent: 2))
                cash = perTen.divided(by: FixedDecimal(10), rule: .halfEven) ?? .zero
            }
        }
        return CorporateAction(
            symbol: profile.symbol, kind: p.kind, declarationDate: p.declarationDate, exDate: p.exDate,
            recordDate: p.recordDate, payableDate: p.payableDate, cash: cash, newRate: FixedDecimal(p.newRate),
            oldRate: FixedDecimal(p.oldRate))
    }
}

/// Planned corporate actions per symbol and year.
struct ActionCache: Sendable {
    struct Key: Hashable, Sendable {
        var symbol: String
        var year: Int
    }

    var entries: [Key: [CorporateActionSchedule.Planned]] = [:]
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
