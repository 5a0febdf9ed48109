import Foundation
import Synchronization
import TradingCore

/// An index computed from its members: the S&P 500 from its constituents and the Dow from its thirty, the NASDAQ
/// Composite, SSE Composite and SZSE Component from their largest members, the Nasdaq-100 and the CSI 300 by their
/// rules (`make`), weighted by simulated market value on the anchor day (the Dow by price), as a fixed basket of
/// shares:
///
///     I(t) = I₀ · Σ wᵢ · exp(xᵢ(t) − xᵢ(t₀))
///
/// so the benchmark on the performance screen and the market's mood on the home screen are the stocks'. Each day's
/// open and close are the members' exactly (computed once per day and kept). Between them the index moves with its
/// members' factors (market and sectors, weighted by the members' loadings, at any instant) and what the members'
/// own moves add up to (the residual, well diversified) is interpolated: a minute costs a few factor look-ups rather
/// than hundreds of member paths.
final class IndexBasket: Sendable {
    struct Member: Sendable {
        let symbol: String
        let path: StockPath
        let weight: Double
        /// The member's log-level on the anchor day (where the index is `anchorLevel`).
        let base: Double
        /// A daily price limit's log bounds (A-shares: ±10% on the main boards), nil without one.
        let limit: (down: Double, up: Double)?
    }

    let index: MarketIndex
    let members: [Member]
    let anchorLevel: Double
    /// The members' factor loadings summed by weight.
    let exposures: [(factor: FactorModel.Factor, loading: Double)]
    let dailyVolatility: Double
    private let factors: FactorModel
    private let overnightShare: Double
    private let days = Mutex([Int: (open: Double, close: Double)]())

    /// `members` with their weights (any positive scale; normalized here).
    init(
        index: MarketIndex, members: [(symbol: String, path: StockPath, weight: Double, limit: Double?)],
        anchorLevel: Double, anchorDay: Int,
        factors: FactorModel
    ) {
        self.index = index
        self.anchorLevel = anchorLevel
        self.factors = factors
        overnightShare = factors.overnightShare
        let total = members.reduce(0) { $0 + max($1.weight, 0) }
        self.members = members.map {
            Member(
                symbol: $0.symbol, path: $0.path, weight: total > 0 ? max($0.weight, 0) / total : 0,
                base: $0.path.logLevel(day: anchorDay, fraction: 0),
                limit: $0.limit.map { (log(1 - $0), log(1 + $0)) })
        }
        var loadings: [FactorModel.Factor: Double] = [:]
        var ownVariance = 0.0
        for m in self.members {
            loadings[m.path.market, default: 0] += m.weight * m.path.marketLoading
            if let sector = m.path.sector { loadings[sector, default: 0] += m.weight * m.path.sectorLoading }
            ownVariance += m.weight * m.weight * m.path.ownLoading * m.path.ownLoading
        }
        exposures = loadings.map { ($0.key, $0.value) }.sorted { $0.factor.key < $1.factor.key }
        dailyVolatility = (exposures.reduce(ownVariance) { $0 + $1.loading * $1.loading }).squareRoot()
    }

    /// The members' basket at a day's open and close, exactly; a member with a daily price limit counts within its
    /// limits of the day before's close (an A-share index cannot fall further than its members can).
    func exactDay(_ day: Int) -> (open: Double, close: Double) {
        var levels: [UInt64: (start: Double, open: Double, close: Double)] = [:]
        for (factor, _) in exposures {
            let today = factors.day(factor, day)
            levels[factor.key] = (factors.day(factor, day - 1).close, today.open, today.close)
        }
        var open = 0.0, close = 0.0
        for m in members {
            var x = m.path.dayLevels(day: day, factorLevels: levels)
            if let limit = m.limit {
                x.open = min(max(x.open, x.start + limit.down), x.start + limit.up)
                x.close = min(max(x.close, x.start + limit.down), x.start + limit.up)
            }
            open += m.weight * exp(x.open - m.base)
            close += m.weight * exp(x.close - m.base)
        }
        let anchor = log(anchorLevel)
        return (anchor + log(max(open, .leastNormalMagnitude)), anchor + log(max(close, .leastNormalMagnitude)))
    }

    /// The day's exact open and close.
    func day(_ day: Int) -> (open: Double, close: Double) {
        if let hit = days.withLock({ $0[day] }) { return hit }
        let value = exactDay(day)
        days.withLock {
            if $0.count > 40_000 { $0.removeAll(keepingCapacity: true) }
            $0[day] = value
        }
        return value
    }

    /// Computes the days of `range` not known yet, spread over the machine's cores (a year of an index is a
    /// quarter of a million member-days): a chart or an option chain over years of an index asks for them all at
    /// once.
    func prefetch(_ range: ClosedRange<Int>) {
        let known = days.withLock { cache in Set(range.filter { cache[$0] != nil }) }
        let missing = range.filter { !known.contains($0) }
        guard missing.count > 8 else { return }
        let chunks = min(ProcessInfo.processInfo.activeProcessorCount, 16)
        let results = Mutex([(Int, (open: Double, close: Double))]())
        ComputeLane.parallel(chunks) { chunk in
            var mine: [(Int, (open: Double, close: Double))] = []
            for i in stride(from: chunk, to: missing.count, by: chunks) {
                mine.append((missing[i], self.exactDay(missing[i])))
            }
            results.withLock { $0 += mine }
        }
        let computed = results.withLock { $0 }
        days.withLock { cache in
            if cache.count > 40_000 { cache.removeAll(keepingCapacity: true) }
            for (day, value) in computed { cache[day] = value }
        }
    }

    private func factorPart(day: Int, fraction: Double) -> Double {
        exposures.reduce(0) { $0 + $1.loading * factors.level($1.factor, day: day, fraction: fraction) }
    }

    /// The residual (exact level − factor part) at the day's three anchors — the previous close, the open and the
    /// close — interpolated linearly in the day's trading time.
    private func residual(day: Int, fraction: Double, today: (open: Double, close: Double)) -> Double {
        let g = overnightShare
        let atOpen = today.open - factorPart(day: day, fraction: g)
        if fraction >= g {
            let atClose = today.close - factorPart(day: day, fraction: 1)
            let w = g < 1 ? (fraction - g) / (1 - g) : 1
            return atOpen + (atClose - atOpen) * min(max(w, 0), 1)
        }
        let atStart = self.day(day - 1).close - factorPart(day: day - 1, fraction: 1)
        let w = g > 0 ? fraction / g : 1
        return atStart + (atOpen - atStart) * min(max(w, 0), 1)
    }

    func logLevel(day: Int, fraction: Double) -> Double {
        let today = self.day(day)
        if fraction == 1 { return today.close }
        if fraction == overnightShare { return today.open }
        return factorPart(day: day, fraction: fraction) + residual(day: day, fraction: fraction, today: today)
    }

    func logLevels(day: Int, fractions: [Double]) -> [Double] {
        let today = self.day(day)
        var out = [Double](repeating: 0, count: fractions.count)
        for (factor, loading) in exposures {
            let levels = factors.levels(factor, day: day, fractions: fractions)
            for i in out.indices { out[i] += loading * levels[i] }
        }
        for i in out.indices {
            if fractions[i] == 1 {
                out[i] = today.close
            } else if fractions[i] == overnightShare {
                out[i] = today.open
            } else {
                out[i] += residual(day: day, fraction: fractions[i], today: today)
            }
        }
        return out
    }

    /// The day's variance multiplier: the factors' activities weighted by their share of the index's variance.
    func activity(day: Int) -> Double {
        var v = 0.0, total = 0.0
        for (factor, loading) in exposures {
            v += loading * loading * factors.day(factor, day).activity
            total += loading * loading
        }
        return total > 0 ? v / total : 1
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension IndexBasket {
    /// The thirty Dow Jones Industrial Average members (late 2025).
    static let dowMembers = [
        "AAPL", "AMGN", "AMZN", "AXP", "BA", "CAT", "CRM", "CSCO", "CVX", "DIS", "GS", "HD", "HON", "IBM", "JNJ",
        "JPM", "KO", "MCD", "MMM", "MRK", "MSFT", "NKE", "NVDA", "PG", "SHW", "TRV", "UNH", "V", "VZ", "WMT",
    ]

    /// Funds that track an index, and the index.
    static let tracked: [String: MarketIndex] = [
        "SPY": .sp500, "IVV": .sp500, "VOO": .sp500, "SPLG": .sp500, "DIA": .dowJones, "QQQ": .nasdaq100,
        "QQQM": .nasdaq100, "ONEQ": .nasdaqComposite, "510050": .sseComposite, "510300": .csi300, "159919": .csi300,
    ]

    /// At most this many members of the broad composites (by weight): the rest of the long tail adds little but
    /// cost.
    static let compositeMembers = 500

    /// Index levels on the anchor day (the first session of 2026).
    static func anchorLevel(_ index: MarketIndex) -> Double {
        switch index {
        case .sseComposite: return 3969
        case .szseComponent: return 13525
        case .csi300: return 4630
        case .nasdaqComposite: return 23242
        case .nasdaq100: return 25250
        case .dowJones: return 48063
        case .sp500: return 6845
        }
    }

    /// The index's basket from the directory: S&P 500 members (the directory's GICS sectors mark them) and the
    /// Dow's thirty in full; the largest primary-listed common stocks of Nasdaq, SSE and SZSE for the composites.
    /// The directory has no Nasdaq-100 or CSI 300 lists, so they are built by their rules on the simulated market
    /// values: the Nasdaq-100 from the 100 largest non-financial companies listed on Nasdaq (GICS Financials left
    /// out, as Nasdaq's methodology does), the CSI 300 from the 300 largest A-shares of Shanghai and Shenzhen (all
    /// boards but B shares); both weighted by market value (neither index's capping of its largest weights).
    static func make(_ index: MarketIndex, model: SimulationModel) -> IndexBasket? {
        let directory = model.directory
        func isStock(_ e: DirectoryEntry) -> Bool {
            e.instrument.kind == .stock && e.instrument.board != .bShare && tracked[e.symbol] == nil
                && e.symbol.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." }
        }
        let candidates: [DirectoryEntry]
        var limit = Int.max
        switch index {
        case .sp500:
            candidates = directory.entries.filter { $0.instrument.market == .us && !$0.sector.isEmpty && isStock($0) }
        case .dowJones:
            candidates = dowMembers.compactMap { directory.entry($0) }.filter(isStock)
        case .nasdaqComposite:
            candidates = directory.entries.filter { $0.instrument.exchange == .nasdaq && isStock($0) }
            limit = compositeMembers
        case .sseComposite:
            candidates = directory.entries.filter { $0.instrument.exchange == .sse && isStock($0) }
            limit = compositeMembers
        case .szseComponent:
            candidates = directory.entries.filter { $0.instrument.exchange == .szse && isStock($0) }
            limit = compositeMembers
        case .nasdaq100:
            candidates = directory.entries.filter {
                $0.instrument.exchange == .nasdaq && $0.sector != "Financials" && !$0.isWarrantRightOrUnit
                    && isStock($0)
            }
            limit = 100
        case .csi300:
            candidates = directory.entries.filter {
                ($0.instrument.exchange == .sse || $0.instrument.exchange == .szse) && isStock($0)
            }
            limit = 300
        }
        var members: [(symbol: String, path: StockPath, weight: Double, limit: Double?)] = []
        for entry in candidates {
            let profile = SimulatedProfile.make(entry, model: model)
            guard case .stock(let path) = profile.path.source else { continue }
            let limit = profile.limit?.fraction.map(Quantize.level)
            members.append((entry.symbol, path, index == .dowJones ? profile.anchor : profile.capitalisation, limit))
        }
        guard !members.isEmpty else { return nil }
        if members.count > limit {
            members = Array(members.sorted { $0.weight > $1.weight }.prefix(limit))
        }
        return IndexBasket(
            index: index, members: members, anchorLevel: anchorLevel(index), anchorDay: SimulatedProfile.anchorDay,
            factors: model.factors)
    }
}

extension SimulatedMarket {
    /// Works out ahead of the first request what the first screens need: the profiles of the movers' candidates
    /// (thousands of symbols placed on their paths) and the benchmark indices' last `days` calendar days (an index's
    /// day is hundreds of members' days): the S&P 500 (SPY tracks it) and the SSE Composite; then the four years
    /// before `time` of the indices whose funds list options (SPY, QQQ, DIA), which their option chains' history
    /// reads — SPY's chain took 0.46 s to open the first time, 0.44 s of it these days (`MarketDataBench --options`).
    /// Stops early when its task is canceled (the server is shutting down).
    public func warm(through time: Timestamp, days: Int = 400) {
        for entry in directory.entries where entry.isMoverCandidate {
            if Task.isCancelled { return }
            _ = profile(entry)
        }
        let optionHistory = OptionMarket.historyDays
        let spans: [(MarketIndex, Int)] = [
            (.sp500, days), (.sseComposite, days), (.sp500, optionHistory), (.nasdaq100, optionHistory),
            (.dowJones, optionHistory),
        ]
        for (index, span) in spans {
            guard let basket = model.basket(index) else { continue }
            let grid = grid(index.market)
            let last = grid.zone.localTime(of: time).date
            // One day at a time, on one core: the server is starting and serving meanwhile. (Days known already —
            // the S&P 500's last year on its second pass — are looked up, not made again.)
            for day in grid.dayIndex(last.adding(days: -span))...grid.dayIndex(last) {
                if Task.isCancelled { return }
                _ = basket.day(day)
            }
        }
    }
}
