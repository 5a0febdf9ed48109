import Synchronization
import TradingCore

/// How the simulated market is generated. Two markets with the same configuration produce the same prices
/// for the same symbol and time, in any process.
public struct SimulatorConfiguration: Sendable, Hashable {
    public var seed: UInt64
    /// Sessions follow exchange calendars, or every minute of every day trades (demos, tests).
    public var sessions: EngineConfiguration.SessionPolicy
    /// Cascade spread δ (fat tails and clustering); 0.28 matches the real daily series (see MarketDataBench).
    public var cascadeSpread: Double
    /// Share of a day's variance that happens overnight (the opening gap).
    public var overnightShare: Double
    /// An A-share whose path gains (loses) at least this share of its daily limit (0.87 → 8.7% on the main board,
    /// 17.4% on ChiNext/STAR) is pulled to limit-up (limit-down) and pins there, as strong days do on SSE/SZSE. (At
    /// 0.6 every 6% day ended at the limit: the simulated A-shares closed beyond 10% on 1.7 times as many days as
    /// real ones, and between 5% and 10% on too few.)
    public var limitPullThreshold: Double

    public init(
        seed: UInt64 = 1, sessions: EngineConfiguration.SessionPolicy = .exchangeCalendars,
        cascadeSpread: Double = 0.28, overnightShare: Double = 0.2, limitPullThreshold: Double = 0.87
    ) {
        self.seed = seed
        self.sessions = sessions
        self.cascadeSpread = cascadeSpread
        self.overnightShare = overnightShare
        self.limitPullThreshold = limitPullThreshold
    }
}

/// The built-in simulated market: quotes with five levels of depth, trades, bars at every timeframe, indices
/// and movers for every instrument of the directory, generated on demand from `PricePath`s.
///
/// Everything is a pure function of (seed, symbol, time); a small cache of computed days only saves work.
public final class SimulatedMarket: Sendable {
    public let directory: SymbolDirectory
    public let configuration: SimulatorConfiguration
    let model: SimulationModel
    /// Profiles by symbol (a profile is a pure function of the seed and the symbol; making one places the path on
    /// its anchor, which costs a few path points).
    private let profiles = Mutex([String: SimulatedProfile]())
    private let cache = Mutex(DayCache())
    /// Daily bars already aggregated (a day's bar is a pure function of the seed, the symbol and the date, so it
    /// never goes stale): years of daily history for a universe are built once (backtests, charts).
    private let dailyCache = Mutex(DailyBarCache())
    let actionCache = Mutex(ActionCache())

    public init(directory: SymbolDirectory, configuration: SimulatorConfiguration = SimulatorConfiguration()) {
        self.directory = directory
        self.configuration = configuration
        model = SimulationModel(directory: directory, configuration: configuration)
    }

    // MARK: Instruments

    /// The simulation parameters of a symbol (a pure function of seed and symbol).
    func profile(_ entry: DirectoryEntry) -> SimulatedProfile {
        if let hit = profiles.withLock({ $0[entry.symbol] }) { return hit }
        let profile = SimulatedProfile.make(entry, model: model)
        profiles.withLock { $0[entry.symbol] = profile }
        return profile
    }

    func profile(_ index: MarketIndex) -> SimulatedProfile { SimulatedProfile(index: index, model: model) }

    // MARK: Sessions

    func grid(_ market: Market) -> SessionGrid {
        SessionGrid(market: market, policy: configuration.sessions, overnightShare: configuration.overnightShare)
    }

    // MARK: Days

    /// Drops the computed days nobody has read since the last call and hands the freed memory back to the system
    /// (the allocator keeps freed pages otherwise); returns how many minutes of prices went. Every day is a pure
    /// function of the seed, so one dropped is made again when next asked for.
    @discardableResult
    public func shedIdleDays() -> Int {
        let dropped = cache.withLock { $0.shed() }
        if dropped > 0 { AllocatorTrim.releaseFreeMemory() }
        return dropped
    }

    /// Minutes of prices the day cache holds now.
    public var cachedMinutes: Int { cache.withLock { $0.minutes } }

    /// The minute bars of one trading day (minutes that traded: a halt leaves a gap), or nil if the date does not
    /// trade or the symbol is unknown.
    public func minuteBars(_ symbol: String, on date: CivilDate) -> [PriceBar]? {
        guard let entry = directory.entry(symbol) else { return nil }
        return day(profile(entry), on: date)?.tradedBars
    }

    /// The trading halts of a symbol's sessions from `from` through `through` (US stocks: trading pauses and news
    /// halts; none for A-shares, funds tracking an index or indices), oldest first.
    public func halts(_ symbol: String, from: CivilDate, through: CivilDate) -> [TradingHalt] {
        guard let entry = directory.entry(symbol), from <= through,
            through.daysSinceEpoch - from.daysSinceEpoch <= 366 * 40
        else { return [] }
        let profile = profile(entry)
        guard profile.haltRule != nil else { return [] }
        var out: [TradingHalt] = []
        var date = from
        while date <= through {
            if let day = day(profile, on: date) { out += day.halts }
            date = date.adding(days: 1)
        }
        return out
    }

    func day(_ profile: SimulatedProfile, on date: CivilDate) -> SimulatedDay? {
        let key = DayCache.Key(symbol: profile.symbol, day: date.daysSinceEpoch)
        if let hit = cache.withLock({ $0.get(key) }) { return hit }
        guard let outline = outline(profile, on: date) else { return nil }
        let day = SimulatedDay(
            profile: profile, outline: outline, grid: profile.grid, configuration: configuration)
        cache.withLock { $0.put(key, day) }
        return day
    }

    /// A trading day's outline (its daily bar and what its minutes are drawn to agree with), from the daily cache
    /// or computed on its own; nil on a day without trading.
    func outline(_ profile: SimulatedProfile, on date: CivilDate) -> DayOutline? {
        if let hit = dailyCache.withLock({ $0.get(profile.symbol, day: date.daysSinceEpoch) }) { return hit }
        let grid = profile.grid
        guard grid.isTradingDay(date) else { return nil }
        // On an ex-date the reference price is the last close adjusted by the day's actions (除权除息参考价).
        let factor = logPriceFactor(profile, on: date)
        let before = logPriceFactor(profile, on: grid.previousTradingDay(before: date))
        guard
            let outline = DayOutline(
                profile: profile, date: date, grid: grid, configuration: configuration,
                previousClose: visibleClose(profile, before: date, grid: grid) * exp(factor - before), logFactor: factor
            )
        else { return nil }
        dailyCache.withLock { $0.put(profile.symbol, day: date.daysSinceEpoch, outline) }
        return outline
    }

    /// How many trading days back `visibleClose` starts from the latent path (A-share limits chain; US closes are
    /// the path's own).
    static func closeWalk(_ profile: SimulatedProfile) -> Int { profile.limit == nil ? 1 : 20 }

    /// The close the market showed on the trading day before `date`, limits applied. A-share limits chain:
    /// a pinned close sets the next band, so this walks back until the latent path was inside its band.
    func visibleClose(_ profile: SimulatedProfile, before date: CivilDate, grid: SessionGrid) -> Double {
        var dates: [CivilDate] = []
        var d = grid.previousTradingDay(before: date)
        for _ in 0..<Self.closeWalk(profile) {
            dates.append(d)
            d = grid.previousTradingDay(before: d)
        }
        // Oldest first: start from the latent close and apply each day's band and limit events (each band from the
        // reference price: the last close, adjusted on an ex-date).
        var previousFactor = logPriceFactor(profile, on: d)
        var close = exp(profile.path.logLevel(day: grid.dayIndex(d), fraction: 1) + previousFactor)
        for day in dates.reversed() {
            let factor = logPriceFactor(profile, on: day)
            close =
                DayOutline.ends(
                    profile, day: grid.dayIndex(day), minutes: grid.minuteCount(on: day), grid: grid,
                    configuration: configuration, previousClose: close * exp(factor - previousFactor), logFactor: factor
                ).close
            previousFactor = factor
        }
        return close
    }

    /// The outlines of the trading days from `first` through `last`, oldest first, in one pass. Each day's reference
    /// price comes from a chain of closes carried forward (instead of `visibleClose` walking back from every day),
    /// and the factor of corporate actions is worked out again only across an ex-date; the result is exactly what
    /// `outline(_:on:)` computes day by day. The chain starts where the walk back from `first` starts (the latent
    /// close `closeWalk` + 1 trading days earlier); the walk back from a later day starts at the latent close of its
    /// own starting day, so the two are the same computation whenever the chain's close on that starting day was the
    /// latent one (always for US stocks; for an A-share unless that day's close was held at a limit, when the day
    /// walks back on its own).
    func outlines(_ profile: SimulatedProfile, from first: CivilDate, through last: CivilDate) -> [DayOutline] {
        guard first <= last else { return [] }
        let grid = profile.grid
        if case .basket(let basket, _) = profile.path.source {
            // An index (or a fund that tracks one): its members' days, all at once.
            basket.prefetch(grid.dayIndex(first.adding(days: -7))...max(grid.dayIndex(last), grid.dayIndex(first)))
        }
        let walk = Self.closeWalk(profile)
        var start = first
        for _ in 0...walk { start = grid.previousTradingDay(before: start) }
        let exDates = actionDates(profile, after: start, through: last)
        var nextEx = 0
        var factor = logPriceFactor(profile, on: start)
        var chain: [(close: Double, latent: Bool)] = [
            (exp(profile.path.logLevel(day: grid.dayIndex(start), fraction: 1) + factor), true)
        ]
        var out: [DayOutline] = []
        var fresh: [(day: Int, outline: DayOutline)] = []
        var date = start.adding(days: 1)
        while date <= last {
            defer { date = date.adding(days: 1) }
            guard grid.isTradingDay(date) else { continue }
            var crossed = false
            while nextEx < exDates.count, exDates[nextEx] <= date {
                nextEx += 1
                crossed = true
            }
            let before = factor
            factor = crossed ? logPriceFactor(profile, on: date) : before
            let chained = chain[chain.count - 1].close * exp(factor - before)
            var outline: DayOutline?
            if date >= first {
                outline = dailyCache.withLock { $0.get(profile.symbol, day: date.daysSinceEpoch) }
                if outline == nil {
                    let exact = chain.count > walk && chain[chain.count - 1 - walk].latent
                    let previousClose =
                        exact ? chained : visibleClose(profile, before: date, grid: grid) * exp(factor - before)
                    outline = DayOutline(
                        profile: profile, date: date, grid: grid, configuration: configuration,
                        previousClose: previousClose, logFactor: factor)
                    if let outline { fresh.append((date.daysSinceEpoch, outline)) }
                }
            }
            if let outline, outline.previousClose == chained {
                chain.append((outline.close, outline.closeIsLatent))
            } else {
                let ends = DayOutline.ends(
                    profile, day: grid.dayIndex(date), minutes: grid.minuteCount(on: date), grid: grid,
                    configuration: configuration, previousClose: chained, logFactor: factor)
                chain.append((ends.close, ends.close == ends.latentClose))
            }
            if let outline { out.append(outline) }
        }
        if !fresh.isEmpty { dailyCache.withLock { $0.put(profile.symbol, fresh) } }
        return out
    }

    // MARK: Quotes

    /// The quote at a time: the current session's values so far (or the last session's, outside hours).
    public func quote(_ symbol: String, at time: Timestamp) -> MarketQuote? {
        guard let entry = directory.entry(symbol) else { return nil }
        return quote(profile(entry), at: time)
    }

    func quote(_ profile: SimulatedProfile, at time: Timestamp) -> MarketQuote? {
        let grid = profile.grid
        let date = grid.session(at: time).date
        guard let session = day(profile, on: date) else { return nil }
        let phase = grid.phase(at: time)
        let tick = profile.tick
        // The session so far is its prints so far: the quote, the bars and the trades read at `time` agree.
        // (Summed over the completed minutes in place and the one under way apart: the quote runs every second for
        // every watched symbol, and a copy of the day's bars with the partial one appended was ~40 KB each time.)
        let (completed, partial, lastPrint) = traded(profile, session, at: time)
        // (Halted minutes did not trade: they are skipped.)
        let first = completed.first { $0.tradeCount > 0 } ?? partial
        var high = first?.high, low = first?.low
        var volume = Quantity.zero, turnover = FixedDecimal.zero
        func add(_ bar: PriceBar) {
            high = max(high ?? bar.high, bar.high)
            low = min(low ?? bar.low, bar.low)
            volume += bar.volume
            turnover += bar.turnover
        }
        for bar in completed where bar.tradeCount > 0 { add(bar) }
        if let partial { add(partial) }
        let previousClose = Quantize.price(session.previousClose, tick: tick)
        let last = (partial ?? completed.last { $0.tradeCount > 0 })?.close ?? previousClose
        // When the last price traded: before the session's first print, at the previous session's last one.
        var lastTime = lastPrint?.time
        if lastTime == nil, let previous = day(profile, on: grid.previousTradingDay(before: date)),
            let k = previous.lastTradedMinute(before: previous.bars.count)
        {
            lastTime = previous.trades(minute: k, profile: profile).last?.time
        }
        let band = session.band
        // A halted stock has no bids or offers: nothing trades until the reopening.
        let halt = session.date == date ? session.halt(at: time) : nil
        let book =
            halt == nil
            ? QuoteBook.make(profile: profile, last: last, band: band, time: time, open: phase != .closed)
            : Quote(bids: .empty, asks: .empty)
        return MarketQuote(
            symbol: profile.symbol, time: time, last: last, open: first?.open, high: high, low: low,
            previousClose: previousClose, volume: volume, turnover: turnover,
            bids: book.bids, asks: book.asks, limitUp: band?.limitUp, limitDown: band?.limitDown,
            phase: phase, tradingDate: date, lastTradeTime: lastTime.map { min($0, time) }, halt: halt)
    }

    /// What a day has traded by `time`: the minutes completed, the minute under way made of its prints before `time`
    /// (nil when none is under way), and the last print. Every minute of a day before `time`'s session; nothing of a
    /// day after it.
    func traded(_ profile: SimulatedProfile, _ day: SimulatedDay, at time: Timestamp) -> (
        completed: ArraySlice<PriceBar>, partial: PriceBar?, last: TradeTick?
    ) {
        let (date, elapsed) = profile.grid.session(at: time)
        guard date >= day.date else { return ([], nil, nil) }
        let n = day.bars.count
        let complete = date == day.date ? min(elapsed.minutes, n) : n
        if complete < n, elapsed.fraction > 0 {
            let prints = day.trades(minute: complete, profile: profile).filter { $0.time < time }
            if let bar = BarAggregation.combine(prints: prints, at: day.minuteStarts[complete]) {
                return (day.bars[..<complete], bar, prints.last)
            }
        }
        let last = day.lastTradedMinute(before: complete).flatMap { day.trades(minute: $0, profile: profile).last }
        return (day.bars[..<complete], nil, last)
    }

    // MARK: Bars

    /// Bars of a timeframe whose interval starts in [from, to), oldest first, as they stood at `to`: nothing comes from
    /// later than `to`. A bar whose interval `to` falls in is the partial bar so far (its close the price at `to`, its
    /// range and volume those traded by then) — the current day's, week's or month's bar during a session too — and a
    /// session that has not opened by `to` has no bar. Reads bounded by the clock (`SimulatedFeed`) pass the clock's
    /// now as `to`, so the market never serves a price from the future; history ending before now is unchanged.
    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) -> [PriceBar] {
        guard let entry = directory.entry(symbol) else { return [] }
        return bars(profile(entry), timeframe: timeframe, from: from, to: to)
    }

    func bars(_ profile: SimulatedProfile, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) -> [PriceBar] {
        guard from < to else { return [] }
        let grid = profile.grid
        let first = grid.sessionDate(at: from)
        // The latest session that has opened by `to`: later dates have no bars yet.
        let (session, elapsed) = grid.session(at: to)
        let last = min(grid.sessionDate(at: to), session)
        guard last.daysSinceEpoch - first.daysSinceEpoch <= 366 * 40 else { return [] }
        var out: [PriceBar] = []
        var pending = BarAggregation.Running()
        var pendingKey = Int.min
        func flush() {
            if let bar = pending.bar { out.append(bar) }
            pending = BarAggregation.Running()
        }
        if !timeframe.isIntraday {
            for outline in outlines(profile, from: first, through: last) {
                let date = outline.date
                let key: Int
                switch timeframe {
                case .week: key = (date.daysSinceEpoch + 3) / 7 // weeks start on Monday
                case .month: key = date.year * 12 + date.month
                default: key = date.daysSinceEpoch
                }
                if key != pendingKey {
                    flush()
                    pendingKey = key
                }
                if date == session, let day = day(profile, on: date), elapsed.minutes < day.bars.count {
                    // The session under way at `to`: its bar so far, from its minutes so far.
                    var minutes = BarAggregation.Running()
                    let (completed, partial, _) = traded(profile, day, at: to)
                    for bar in completed where bar.tradeCount > 0 { minutes.add(bar) }
                    if let partial, partial.tradeCount > 0 { minutes.add(partial) }
                    if var bar = minutes.bar {
                        bar.time = outline.bar(profile).time
                        pending.add(bar)
                    }
                } else {
                    pending.add(outline.bar(profile))
                }
            }
            flush()
            return out.filter { $0.time < to }
        }
        var date = first
        while date <= last {
            defer { date = date.adding(days: 1) }
            guard let day = day(profile, on: date) else { continue }
            let size = max(1, timeframe.minutes)
            // The day's minutes as known at `to` (`traded`: halted minutes too, so a bar's index is its minute's),
            // read in place. Buckets count from the session's
            // first minute (09:30 → 09:30, 10:00 … for 30Min); those whose minutes all began before `from` are left
            // out below, so the walk starts at the bucket of the first minute at or after `from` (a stream asks for
            // the last two minutes every second: a day is ~1,400 of them).
            let (completed, partial, _) = traded(profile, day, at: to)
            let start = min(Self.firstIndex(in: day.minuteStarts, notBefore: from) / size * size, completed.count)
            func add(_ k: Int, _ bar: PriceBar) {
                let key = date.daysSinceEpoch * 10_000 + k / size
                if key != pendingKey {
                    flush()
                    pendingKey = key
                }
                pending.add(bar)
            }
            for k in start..<completed.endIndex where completed[k].tradeCount > 0 { add(k, completed[k]) }
            if let partial, partial.tradeCount > 0 { add(completed.endIndex, partial) }
            flush()
        }
        flush()
        // Intraday bars start inside [from, to); day, week and month bars cover the dates of that range.
        return out.filter { $0.time >= from && $0.time < to }
    }

    /// The index of the first of `times` (ascending) at or after `time` (`times.count` when none is).
    static func firstIndex(in times: [Timestamp], notBefore time: Timestamp) -> Int {
        var (low, high) = (0, times.count)
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The trading days from `from`'s date through `to`'s in order (newest first when `descending`), with their
    /// minute indices in the same order, for walking ticks without building more days than a page needs.
    func walk(
        _ profile: SimulatedProfile, from: Timestamp, to: Timestamp, descending: Bool,
        _ visit: (SimulatedDay, Int) -> Bool
    ) {
        guard from < to else { return }
        let grid = profile.grid
        let first = grid.sessionDate(at: from), last = grid.sessionDate(at: to)
        guard last.daysSinceEpoch - first.daysSinceEpoch <= 366 * 40 else { return }
        var date = descending ? last : first
        while descending ? date >= first : date <= last {
            defer { date = date.adding(days: descending ? -1 : 1) }
            guard let day = day(profile, on: date) else { continue }
            let minutes = day.minuteStarts.indices.filter {
                day.minuteStarts[$0].adding(seconds: 60) > from && day.minuteStarts[$0] < to
            }
            for k in descending ? minutes.reversed() : minutes where !visit(day, k) { return }
        }
    }

    /// Trades of a symbol in [from, to), at most `limit`, oldest first (newest first when `descending`): one to
    /// six per minute, at prices on the minute's path, each at its own nanosecond.
    public func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int = 1000, descending: Bool = false)
        -> [TradeTick]
    {
        guard let entry = directory.entry(symbol), limit > 0 else { return [] }
        let profile = profile(entry)
        var out: [TradeTick] = []
        walk(profile, from: from, to: to, descending: descending) { day, k in
            let ticks = day.trades(minute: k, profile: profile)
            for tick in descending ? ticks.reversed() : ticks where tick.time >= from && tick.time < to {
                out.append(tick)
                if out.count == limit { return false }
            }
            return true
        }
        return out
    }

    /// Best bid and offer updates in [from, to): one just after each print (137 µs later), the book re-centred on
    /// the print's price; ordered and limited as `trades`.
    public func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int = 1000, descending: Bool = false)
        -> [TopOfBook]
    {
        guard let entry = directory.entry(symbol), limit > 0 else { return [] }
        let profile = profile(entry)
        let lag: Int64 = 137_000
        var out: [TopOfBook] = []
        walk(profile, from: from.adding(nanoseconds: -lag), to: to, descending: descending) { day, k in
            let ticks = day.trades(minute: k, profile: profile)
            for tick in descending ? ticks.reversed() : ticks {
                let time = tick.time.adding(nanoseconds: lag)
                guard time >= from && time < to else { continue }
                let book = QuoteBook.make(profile: profile, last: tick.price, band: day.band, time: time, open: true)
                let bid = book.bids.best, ask = book.asks.best
                out.append(
                    TopOfBook(
                        symbol: profile.symbol, time: time, bidPrice: bid?.price ?? .zero, bidSize: bid?.size ?? .zero,
                        askPrice: ask?.price ?? .zero, askSize: ask?.size ?? .zero))
                if out.count == limit { return false }
            }
            return true
        }
        return out
    }

    /// Each trading day's opening and closing auction prints (the day's official open and close, with a share of
    /// the day's volume crossing in each) from `from` through `through`, for sessions that have happened by
    /// `before`.
    public func auctions(_ symbol: String, from: CivilDate, through: CivilDate, before now: Timestamp)
        -> [DailyAuctions]
    {
        guard let entry = directory.entry(symbol), from <= through,
            through.daysSinceEpoch - from.daysSinceEpoch <= 366 * 40
        else { return [] }
        let profile = profile(entry)
        // Crypto and currencies trade continuously: no auction opens or closes their day.
        guard profile.kind != .crypto, profile.kind != .forex else { return [] }
        let calendar = profile.market.calendar
        var out: [DailyAuctions] = []
        var date = from
        while date <= through {
            defer { date = date.adding(days: 1) }
            guard let day = day(profile, on: date), let schedule = calendar.schedule(on: date),
                let opened = day.halted.firstIndex(of: false), let last = day.bars.last
            else { continue }
            let first = day.bars[opened]
            func share(_ salt: UInt64, _ low: Double, _ high: Double) -> Quantity {
                let u = CounterRandom.uniform(
                    CounterRandom.hash(profile.path.key, salt, UInt64(bitPattern: Int64(day.dayIndex))))
                let total = day.volume.reduce(0, +)
                return Quantize.shares(total * (low + (high - low) * u), lot: profile.lot)
            }
            // The opening cross prints at the open; the closing cross at the close (A-shares: 15:00 after the
            // 14:57 call auction) — or, when the simulated day trades past the exchange's close (an always-open
            // clock), once its last minute is over: its price is that minute's close, which is not known before.
            // (A session that opens halted opens with its reopening print.)
            let opening = DailyAuctions.Print(
                time: opened == 0 ? schedule.open : first.time, price: first.open, size: share(0xA0C1, 0.005, 0.02))
            let closing = DailyAuctions.Print(
                time: max(schedule.close, last.time.adding(seconds: 60)), price: last.close,
                size: share(0xA0C2, 0.02, 0.08))
            guard opening.time <= now else { break }
            out.append(DailyAuctions(date: date, opening: opening, closing: closing.time <= now ? closing : nil))
        }
        return out
    }

    // MARK: Indices and movers

    public func indexQuote(_ index: MarketIndex, at time: Timestamp) -> IndexQuote? {
        guard let q = quote(profile(index), at: time) else { return nil }
        return IndexQuote(index: index, time: time, value: q.last, previousClose: q.previousClose)
    }

    /// The market overview: SSE Composite, SZSE Component, NASDAQ, Dow Jones, S&P 500.
    /// An index's bars, from the same kind of path as its quotes.
    public func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) -> [PriceBar] {
        bars(profile(index), timeframe: timeframe, from: from, to: to)
    }

    public func overview(at time: Timestamp) -> [IndexQuote] {
        MarketIndex.allCases.compactMap { indexQuote($0, at: time) }
    }

    /// Top gainers, losers or most active of a market's primary listings at a time.
    public func movers(_ market: Market, kind: MoverKind, at time: Timestamp, limit: Int = 20) -> [Mover] {
        let grid = grid(market)
        let (date, elapsed) = grid.session(at: time)
        var rows: [(score: Double, index: Int)] = []
        rows.reserveCapacity(8000)
        for (i, entry) in directory.entries.enumerated()
        where entry.instrument.market == market && entry.isMoverCandidate {
            let p = profile(entry)
            let dayIndex = grid.dayIndex(date)
            let previous = p.path.logLevel(day: grid.dayIndex(grid.previousTradingDay(before: date)), fraction: 1)
            let done = Double(elapsed.minutes) + elapsed.fraction
            let n = Double(grid.minuteCount(on: date))
            let f = grid.fraction(done / max(n, 1))
            let now = p.path.logLevel(day: dayIndex, fraction: f)
            let score: Double
            switch kind {
            case .gainers: score = -(now - previous)
            case .losers: score = now - previous
            case .active: score = -p.baseVolume * p.path.activity(day: dayIndex).squareRoot() * exp(now)
            }
            rows.append((score, i))
        }
        // Rank on the latent path, then report exact quotes (limits applied) for a generous shortlist.
        let shortlist = rows.sorted { $0.score < $1.score }.prefix(max(limit * 3, limit))
        let movers: [Mover] = shortlist.compactMap { row in
            let entry = directory.entries[row.index]
            guard let q = quote(profile(entry), at: time) else { return nil }
            return Mover(
                symbol: entry.symbol, name: entry.name, last: q.last, change: q.change,
                changePercent: q.changePercent, volume: q.volume)
        }
        return Array(Mover.ranked(movers, kind).prefix(limit))
    }
}

extension DirectoryEntry {
    /// Primary-venue common stocks and ETFs (no OTC, no preferreds, warrants or units).
    var isMoverCandidate: Bool {
        instrument.exchange != .otc && instrument.board != .bShare && symbol.allSatisfy { $0.isLetter || $0.isNumber }
    }
}

/// Day outlines (daily bars) by symbol and day, up to `capacity` days (500 symbols × 5 years fit); past it the
/// symbols cached first are dropped.
struct DailyBarCache: Sendable {
    private var days: [String: [Int: DayOutline]] = [:]
    private var symbols: [String] = []
    private var count = 0
    static let capacity = 700_000

    func get(_ symbol: String, day: Int) -> DayOutline? { days[symbol]?[day] }

    mutating func put(_ symbol: String, day: Int, _ outline: DayOutline) {
        put(symbol, [(day, outline)])
    }

    mutating func put(_ symbol: String, _ outlines: [(day: Int, outline: DayOutline)]) {
        if days[symbol] == nil {
            symbols.append(symbol)
            days[symbol] = [:]
        }
        for (day, outline) in outlines where days[symbol]?.updateValue(outline, forKey: day) == nil { count += 1 }
        while count > Self.capacity, symbols.count > 1 {
            let oldest = symbols.removeFirst()
            count -= days.removeValue(forKey: oldest)?.count ?? 0
        }
    }
}

/// A bounded cache of computed days, bounded by their minutes (what a day's memory grows with: ~170 bytes a minute
/// in its arrays and bars); the oldest days are dropped until half the room is free when full. Counting days let
/// 8,192 of them stay, ~2 GB of always-open 1,440-minute days once one client subscribed to 5,571 symbols (issue 55).
/// Days nobody reads go too: `shed()` drops those not read since the last time it ran, so the memory a departed
/// client's symbols took comes back (`MarketMemoryService` runs it every two minutes).
struct DayCache: Sendable {
    struct Key: Hashable, Sendable {
        var symbol: String
        var day: Int
    }

    private struct Entry {
        var day: SimulatedDay
        /// The sweep during which it was last read or made.
        var seen: Int
    }

    private var days: [Key: Entry] = [:]
    private var order: [Key] = []
    private(set) var minutes = 0
    private var sweep = 0
    /// About 340 MB of days: 5,000 US sessions, or 1,380 always-open days — a day for each of the 1,000 symbols one
    /// market-data connection may follow, in either clock (measured: 1,000 always-open symbols held ~245 MB).
    static let minuteCapacity = 2_000_000

    var count: Int { days.count }

    mutating func get(_ key: Key) -> SimulatedDay? {
        guard let i = days.index(forKey: key) else { return nil }
        days.values[i].seen = sweep
        return days.values[i].day
    }

    mutating func put(_ key: Key, _ day: SimulatedDay) {
        if let old = days.updateValue(Entry(day: day, seen: sweep), forKey: key) {
            minutes -= old.day.minuteStarts.count
        } else {
            order.append(key)
        }
        minutes += day.minuteStarts.count
        guard minutes > Self.minuteCapacity else { return }
        var dropped = 0
        while minutes > Self.minuteCapacity / 2, dropped < order.count {
            minutes -= days.removeValue(forKey: order[dropped])?.day.minuteStarts.count ?? 0
            dropped += 1
        }
        order.removeFirst(dropped)
    }

    /// Drops the days not read since the previous call; returns how many minutes went.
    mutating func shed() -> Int {
        let before = minutes
        let idle = sweep
        sweep += 1
        days = days.filter { $0.value.seen >= idle }
        order.removeAll { days[$0] == nil }
        minutes = days.values.reduce(0) { $0 + $1.day.minuteStarts.count }
        return before - minutes
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
