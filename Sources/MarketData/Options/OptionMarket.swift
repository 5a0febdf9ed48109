import Foundation
import Synchronization
import TradingCore

/// The listed options of the market's underlyings, priced off whatever feed runs the stocks: which underlyings are
/// optionable, the contracts listed on a day, and any contract's snapshot now. Every answer is a function of the
/// feed's history up to the clock's now (nothing from the future) and of the seed, so every node lists the same
/// contracts and quotes the same prices.
///
/// A chain's day — its history, surface and contracts — is made once and kept (a few hundred kB for the busiest
/// underlying); the snapshot of a contract is computed when asked, from the underlying's quote of that instant.
public final class OptionMarket: Sendable {
    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    let seed: UInt64
    private let days: Mutex<[DayKey: ChainDay]>

    struct DayKey: Hashable {
        var underlying: String
        var date: CivilDate
    }

    /// One underlying's listing on one trading day.
    public struct ChainDay: Sendable {
        public var optionClass: OptionClass
        public var model: OptionQuoteModel
        /// Every contract listed that day, in chain order.
        public var contracts: [OptionContract]
        /// The same, by OCC symbol (an adjusted contract's deliverable is not in its symbol).
        let listed: [String: OptionContract]

        public var history: UnderlyingHistory { model.history }
    }

    /// The ETFs with listed options (besides every S&P 500 member): the index trackers and the most traded sector,
    /// bond and commodity funds.
    static let optionableETFs: Set<String> = [
        "SPY", "QQQ", "IWM", "DIA", "VOO", "IVV", "VTI", "EEM", "EFA", "GLD", "SLV", "TLT", "HYG", "LQD", "XLF", "XLE",
        "XLK", "XLV", "XLI", "XLY", "XLP", "XLU", "XLB", "SMH", "ARKK", "KRE", "XBI", "GDX", "USO", "FXI",
    ]

    public init(feed: any MarketDataFeed, directory: SymbolDirectory, clock: MarketClock, seed: UInt64) {
        self.feed = feed
        self.directory = directory
        self.clock = clock
        self.seed = seed
        days = Mutex([:])
    }

    /// The option class of an underlying, or nil when it has no listed options (A-shares, indices, small caps).
    public func optionClass(_ underlying: String) -> OptionClass? {
        directory.entry(underlying).flatMap(Self.optionClass(of:))
    }

    /// The option class of a directory entry: every S&P 500 member and the ETFs of `optionableETFs`.
    public static func optionClass(of entry: DirectoryEntry) -> OptionClass? {
        guard entry.instrument.market == .us else { return nil }
        let instrument = entry.instrument
        switch instrument.kind {
        case .stock where !entry.sector.isEmpty:
            return OptionClass(underlying: instrument.symbol, isETF: false)
        case .etf where optionableETFs.contains(instrument.symbol):
            return OptionClass(underlying: instrument.symbol, isETF: true)
        default:
            return nil
        }
    }

    /// Every optionable underlying, sorted.
    public var underlyings: [String] {
        directory.entries.compactMap { optionClass($0.symbol)?.underlying }.sorted()
    }

    /// The trading day whose chain is listed now: today's until the regular close, then the next trading day's —
    /// contracts stop trading at the close, so from then on the listing no longer shows those that expired today
    /// as active (Alpaca's late-close contracts stayed `active` after expiring, its users' issue 262).
    public func today() -> CivilDate {
        let calendar = TradingCalendar.xnys
        let now = clock.now()
        let date = calendar.zone.localTime(of: now).date
        if let day = calendar.schedule(on: date), now < day.close { return date }
        return calendar.nextTradingDay(after: date)
    }

    /// The chain of an underlying on a trading day (today or earlier), made from the feed's closes before it.
    public func chain(_ underlying: String, on date: CivilDate? = nil) async throws(FeedError) -> ChainDay {
        guard let optionClass = optionClass(underlying) else { throw .unknownSymbol(underlying) }
        let date = date ?? today()
        let key = DayKey(underlying: optionClass.underlying, date: date)
        if let cached = days.withLock({ $0[key] }) { return cached }
        let history = try await history(optionClass.underlying, on: date)
        let seed = seed
        let day = await ComputeLane.run {
            let surface = OptionQuoteModel.surface(for: history, optionClass: optionClass, seed: seed)
            let model = OptionQuoteModel(
                optionClass: optionClass, surface: surface, history: history, rate: OptionQuoteModel.riskFreeRate,
                seed: seed)
            let contracts = optionClass.contracts(history: history)
            return ChainDay(
                optionClass: optionClass, model: model, contracts: contracts,
                listed: Dictionary(contracts.map { ($0.occSymbol, $0) }) { first, _ in first })
        }
        days.withLock { cache in
            // Keep the cache to recent days of each underlying: drop anything older than a week.
            if cache.count > 4096 { cache = cache.filter { $0.key.date.daysSinceEpoch >= date.daysSinceEpoch - 7 } }
            cache[key] = day
        }
        return day
    }

    /// The calendar days of closes a chain's history reads: four years (LEAPS are listed up to 40 months ahead).
    public static let historyDays = 4 * 366

    /// Closes for `historyDays` before `date`, the dividend yield, the average volume and the sessions that carry
    /// earnings reports.
    func history(_ symbol: String, on date: CivilDate) async throws(FeedError) -> UnderlyingHistory {
        let zone = ExchangeTimeZone.newYork
        let start = Timestamp(date.adding(days: -Self.historyDays), in: zone)
        let end = min(Timestamp(date, in: zone), clock.now())
        let bars = end > start ? try await feed.bars(symbol, timeframe: .day, from: start, to: end) : []
        var closes: [UnderlyingHistory.DailyClose] = []
        closes.reserveCapacity(bars.count)
        var volumes: [Double] = []
        for bar in bars {
            let day = zone.localTime(of: bar.time).date
            guard day < date else { continue }
            closes.append(.init(date: day, close: Quantize.level(bar.close)))
            volumes.append(Quantize.level(bar.volume))
        }
        // Splits up to the day (their ex-dates may be today): closes and dividends before each are put in today's
        // shares.
        // (Eight years of actions: an adjusted root's digit counts the adjustments in the four years before it.)
        let actionsFrom = date.adding(days: -Self.historyDays)
        let longer =
            (try? await feed.corporateActions(symbol, from: date.adding(days: -8 * 366), through: date)) ?? []
        let actions = longer.filter { $0.exDate >= actionsFrom }
        let splits = Self.splits(of: symbol, longer, from: actionsFrom)
        func sharesToday(on day: CivilDate) -> Double {
            splits.reduce(1.0) { $1.exDate > day ? $0 * $1.ratio : $0 }
        }
        if !splits.isEmpty {
            for n in closes.indices { closes[n].close /= sharesToday(on: closes[n].date) }
            for n in volumes.indices { volumes[n] *= sharesToday(on: closes[n].date) }
        }
        let recent = volumes.suffix(20)
        let averageVolume = recent.isEmpty ? 0 : recent.reduce(0, +) / Double(recent.count)
        var dividends = 0.0
        for action in actions
        where action.kind == .cashDividend && action.exDate >= date.adding(days: -365) && action.exDate < date {
            dividends += Quantize.level(action.cash) / sharesToday(on: action.exDate.adding(days: -1))
        }
        let last = closes.last?.close ?? 0
        var history = UnderlyingHistory(
            symbol: symbol, date: date, closes: closes, dividendYield: last > 0 ? dividends / last : 0,
            averageVolume: averageVolume)
        history.splits = splits
        // Report sessions from two years back to the longest expiry (a feed without a calendar has none).
        if let reports = try? await feed.earningsCalendar(
            from: date.adding(days: -2 * 366), through: date.adding(days: 40 * 31), symbols: [symbol])
        {
            let calendar = TradingCalendar.xnys
            history.earningsSessions = reports.filter { $0.symbol == symbol }.map { report in
                report.time == .afterClose ? calendar.nextTradingDay(after: report.date) : report.date
            }.sorted()
        }
        return history
    }

    /// A listed contract by OCC symbol (any case, padded or not) with whether it still trades; nil for a symbol
    /// that is malformed or was never listed (a strike off the grid, an expiration the class never had).
    public func contract(_ symbol: String) async -> (contract: OptionContract, active: Bool)? {
        guard let parsed = OptionContract(occSymbol: symbol), let optionClass = optionClass(parsed.underlying),
            parsed.underlying == optionClass.underlying
        else { return nil }
        let today = today()
        // An expired contract is looked up in the chain of its last day, a live one in today's.
        let day = parsed.expiration < today ? parsed.expiration : today
        guard let chain = try? await chain(parsed.underlying, on: day), let listed = chain.listed[parsed.occSymbol]
        else { return nil }
        return (listed, parsed.expiration >= today)
    }

    /// The instant option quotes stand at, how much of the session has passed (0…1) and when the last prints
    /// happened: now and the current minute during the session; outside it, the last close — quotes do not move
    /// and time value does not decay until the next open. A market that never closes (the always-open clock) is
    /// always in session.
    func marketInstant() -> (time: Timestamp, elapsed: Double, print: Timestamp) {
        let now = clock.now()
        let minute = Timestamp(seconds: now.seconds - now.seconds % 60)
        if clock.sessions == .alwaysOpen {
            let local = ExchangeTimeZone.newYork.localTime(of: now)
            return (now, Double(local.secondOfDay) / 86_400, minute)
        }
        let calendar = TradingCalendar.xnys
        let date = calendar.zone.localTime(of: now).date
        if let day = calendar.schedule(on: date), now >= day.open {
            if now < day.close {
                let elapsed =
                    Double(now.nanoseconds - day.open.nanoseconds)
                    / Double(day.close.nanoseconds - day.open.nanoseconds)
                return (now, elapsed, minute)
            }
            return (day.close, 1, day.close)
        }
        let previous = calendar.previousTradingDay(before: date)
        let close = calendar.schedule(on: previous)?.close ?? Timestamp(previous, hour: 16, in: .newYork)
        return (close, 0, close)
    }

    /// The splits from `from` on, of the share-changing actions of eight years (`actions`), each with the adjusted
    /// roots it gives contracts, the OCC way. A split that is not a whole number moves the standard contracts to a
    /// new root; any split moves the contracts of every adjusted root that may still have some (one created in the
    /// three years before: no contract lives longer) to another new root. A new root is the underlying and a digit,
    /// one more than the roots created in the four years before it (`OptionAdjustment.adjustedRoot`).
    static func splits(of symbol: String, _ actions: [CorporateAction], from: CivilDate) -> [UnderlyingHistory.Split] {
        // Every root created (its digit counts), and those whose contracts have not moved on since.
        var created: [CivilDate] = []
        var live: [(date: CivilDate, root: String, deliverable: Int)] = []
        var out: [UnderlyingHistory.Split] = []
        func newRoot(on date: CivilDate) -> String {
            let recent = created.filter { $0 >= date.adding(days: -4 * 366) }
            created.append(date)
            return OptionAdjustment.adjustedRoot(underlying: symbol, ordinal: recent.count + 1)
        }
        for action in actions.sorted(by: { $0.exDate < $1.exDate }) where action.kind.changesShares {
            let ratio = Quantize.level(action.newRate) / Quantize.level(action.oldRate)
            guard ratio.isFinite, ratio > 0 else { continue }
            var split = UnderlyingHistory.Split(
                exDate: action.exDate, ratio: ratio, wholeFactor: OptionAdjustment.wholeSplitFactor(action))
            let alive = live.filter { $0.date < action.exDate && $0.date >= action.exDate.adding(days: -3 * 366) }
            live = []
            for family in alive {
                let exact = FixedDecimal(family.deliverable).multiplied(by: action.newRate)
                    .divided(by: action.oldRate, places: 6, rule: .down)
                guard let shares = exact?.rounded(places: 0, rule: .down).integerPart, shares > 0 else {
                    if let exact {
                        split.cashSettled.append(
                            .init(root: family.root, deliverable: family.deliverable, shares: exact))
                    }
                    continue
                }
                let root = newRoot(on: action.exDate)
                split.readjusted.append(.init(from: family.root, root: root, deliverable: shares))
                live.append((action.exDate, root, shares))
            }
            if let deliverable = OptionAdjustment.adjustedDeliverable(action) {
                let root = newRoot(on: action.exDate)
                split.deliverable = deliverable
                split.adjustedRoot = root
                live.append((action.exDate, root, deliverable))
            }
            if action.exDate >= from { out.append(split) }
        }
        return out
    }

    /// Snapshots of contracts of one chain day, with the underlying at its price now (at its close on expiry day for
    /// contracts that have expired).
    public func snapshots(_ contracts: [OptionContract], of chain: ChainDay) async throws(FeedError) -> [OptionSnapshot]
    {
        let instant = marketInstant()
        let quote = try await feed.quote(chain.optionClass.underlying)
        // After the close the chain is the next day's, which has not traded yet.
        let elapsed =
            chain.history.date == TradingCalendar.xnys.zone.localTime(of: instant.time).date ? instant.elapsed : 0
        let spotLevel = OptionQuoteModel.level(quote.last)
        @Sendable func snapshot(_ contract: OptionContract, _ known: OptionQuoteModel.ExpirationFacts) -> OptionSnapshot
        {
            let expiry = known.expiry
            if instant.time >= expiry {
                let close = chain.history.close(before: contract.expiration.adding(days: 1)).map {
                    Quantize.price($0, tick: .usEquity)
                }
                return chain.model.snapshot(
                    contract, spot: close ?? quote.last, time: expiry, sessionElapsed: 1, lastPrint: expiry,
                    facts: known)
            }
            return chain.model.snapshot(
                contract, spot: quote.last, time: instant.time, sessionElapsed: elapsed, lastPrint: instant.print,
                facts: known, spotLevel: spotLevel)
        }
        // What an expiration's contracts share is worked out once per run of them (a chain lists them by
        // expiration), not looked up per contract.
        @Sendable func price(_ part: ArraySlice<OptionContract>) -> [OptionSnapshot] {
            var out: [OptionSnapshot] = []
            out.reserveCapacity(part.count)
            var facts: OptionQuoteModel.ExpirationFacts?
            for contract in part {
                if facts?.expiration != contract.expiration { facts = chain.model.facts(contract.expiration) }
                if let facts { out.append(snapshot(contract, facts)) }
            }
            return out
        }
        // A page or a chain goes to the compute lane; the one contract an order or a position asks for is priced
        // here (the hop would cost more than the pricing).
        guard contracts.count > 16 else { return price(contracts[...]) }
        return await ComputeLane.run { Self.map(contracts, price) }
    }

    /// A whole chain at once (SPY's is ~11,000 contracts, ~10 ms on one core) is priced on every core; a page of a
    /// thousand or fewer on the calling task. Each contract's snapshot depends on nothing but its inputs, so the
    /// result is the same either way.
    static func map(
        _ contracts: [OptionContract], _ price: @escaping @Sendable (ArraySlice<OptionContract>) -> [OptionSnapshot]
    ) -> [OptionSnapshot] {
        let cores = min(ProcessInfo.processInfo.activeProcessorCount, 8)
        guard contracts.count >= parallelFrom, cores > 1 else { return price(contracts[...]) }
        let parts = Mutex([(Int, [OptionSnapshot])]())
        let size = (contracts.count + cores - 1) / cores
        ComputeLane.parallel(cores) { part in
            let range = min(part * size, contracts.count)..<min((part + 1) * size, contracts.count)
            let priced = price(contracts[range])
            parts.withLock { $0.append((part, priced)) }
        }
        return parts.withLock { $0 }.sorted { $0.0 < $1.0 }.flatMap(\.1)
    }

    /// Lists this long or longer are priced in parallel (`map`).
    static let parallelFrom = 2_048

    /// One contract's snapshot now; nil when it was never listed.
    public func snapshot(_ symbol: String) async throws(FeedError) -> OptionSnapshot? {
        guard let found = await contract(symbol) else { return nil }
        let today = today()
        // An expired contract's chain is the next day's (its history then includes the expiration day's close).
        let day =
            found.active ? today : TradingCalendar.xnys.nextTradingDay(after: found.contract.expiration)
        let chain = try await chain(found.contract.underlying, on: min(day, today))
        return try await snapshots([found.contract], of: chain).first
    }
}

extension OptionMarket {
    /// Which contracts a listing asks for: Alpaca's contract filters.
    public struct ContractQuery: Sendable {
        /// Underlyings to list (all optionable ones when empty).
        public var underlyings: [String] = []
        /// Contracts still trading (true) or expired (false).
        public var active = true
        public var expirationFrom: CivilDate?
        public var expirationThrough: CivilDate?
        public var root: String?
        public var right: OptionRight?
        public var style: OptionStyle?
        public var strikeFrom: Price?
        public var strikeThrough: Price?

        public init() {}

        func matches(_ c: OptionContract) -> Bool {
            if let from = expirationFrom, c.expiration < from { return false }
            if let through = expirationThrough, c.expiration > through { return false }
            if let root, c.root != root { return false }
            if let right, c.right != right { return false }
            if let style, c.style != style { return false }
            if let from = strikeFrom, c.strike < from { return false }
            if let through = strikeThrough, c.strike > through { return false }
            return true
        }
    }

    /// Where a listing continues: the index of the underlying (in the sorted list the query names), of the chain
    /// day within it (expired contracts are listed from one chain day per expiration) and how many of that day's
    /// matching contracts the pages before took. Written in page tokens as "underlying.day.skip".
    public struct ContractCursor: Sendable, Hashable, CustomStringConvertible {
        public var underlying: Int
        public var day: Int
        public var skip: Int

        public init(underlying: Int = 0, day: Int = 0, skip: Int = 0) {
            self.underlying = underlying
            self.day = day
            self.skip = skip
        }

        public init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 3, let u = parts[0], let d = parts[1], let s = parts[2], u >= 0, d >= 0, s >= 0
            else { return nil }
            self.init(underlying: u, day: d, skip: s)
        }

        public var description: String { "\(underlying).\(day).\(skip)" }
    }

    /// The contracts a query matches, in chain order (underlying, expiration, strike, call first), from `cursor`: at
    /// most `limit`, and the cursor of the next page (nil at the end). One page makes at most `chainBudget` chain
    /// days (at least one) — a listing of every underlying that matches little would otherwise make all 500 chains
    /// in one request — so a page may hold fewer than `limit` contracts and still have a next page, as Alpaca's
    /// paging allows; every page moves on by at least one chain day, so following the tokens always ends.
    /// Underlyings none of whose listed expirations fall in the query's range are passed over without making their
    /// chains. Expired contracts are listed from the chain of their last day, for at most the 62 days before today.
    public func contracts(_ query: ContractQuery, from cursor: ContractCursor, limit: Int, chainBudget: Int = 24)
        async throws(FeedError) -> (page: [(contract: OptionContract, chain: ChainDay)], next: ContractCursor?)
    {
        let names =
            query.underlyings.isEmpty ? self.underlyings : query.underlyings.compactMap { optionClass($0)?.underlying }
        let underlyings = Set(names).sorted()
        var page: [(contract: OptionContract, chain: ChainDay)] = []
        var budget = max(chainBudget, 1)
        let today = today()
        var position = cursor
        while position.underlying < underlyings.count {
            let underlying = underlyings[position.underlying]
            var days: [CivilDate] = []
            if let optionClass = optionClass(underlying) {
                if query.active {
                    let listed = optionClass.expirations.listed(on: today).contains { expiration in
                        (query.expirationFrom.map { expiration >= $0 } ?? true)
                            && (query.expirationThrough.map { expiration <= $0 } ?? true)
                    }
                    days = listed ? [today] : []
                } else {
                    let from = max(query.expirationFrom ?? today.adding(days: -62), today.adding(days: -62))
                    let through = min(query.expirationThrough ?? today, today.adding(days: -1))
                    days = from <= through ? TradingCalendar.xnys.tradingDays(from: from, through: through) : []
                    days = days.filter { optionClass.expirations.kind(of: $0) != nil }
                }
            }
            while position.day < days.count {
                let day = days[position.day]
                if self.days.withLock({ $0[DayKey(underlying: underlying, date: day)] }) == nil {
                    if budget == 0 { return (page, position) }
                    budget -= 1
                }
                let chain = try await chain(underlying, on: day)
                var matched = 0
                for c in chain.contracts where query.matches(c) && (query.active || c.expiration == day) {
                    matched += 1
                    if matched <= position.skip { continue }
                    if page.count == limit {
                        position.skip = matched - 1
                        return (page, position)
                    }
                    page.append((c, chain))
                }
                position.day += 1
                position.skip = 0
            }
            position = ContractCursor(underlying: position.underlying + 1)
        }
        return (page, nil)
    }

    /// Contracts at the previous session's close: their closing value (`last`) and the open interest of that day.
    /// Contracts first listed today have no close (nil).
    public func previousClose(_ contract: OptionContract, of chain: ChainDay) -> OptionSnapshot? {
        guard let close = chain.history.closes.last,
            let listed = chain.optionClass.expirations.listingDate(of: contract.expiration), listed <= close.date
        else { return nil }
        let time = TradingCalendar.xnys.schedule(on: close.date)?.close ?? Timestamp(close.date, hour: 16, in: .newYork)
        return chain.model.snapshot(
            contract, spot: Quantize.price(close.close, tick: .usEquity), time: time, sessionElapsed: 1, lastPrint: time
        )
    }
}

extension OptionMarket {
    /// A contract's bars: the underlying's bars of the same timeframe repriced through the chain's model of each
    /// day (open at the underlying's open, close at its close, high and low where the underlying's extremes make
    /// the option dearest and cheapest), with the contract's volume of the day spread over the session; bars with
    /// no contract traded are left out, as they are on a real tape. Only while the contract is listed, and never
    /// past the clock's now.
    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        if timeframe == .week || timeframe == .month {
            // Weeks (from Monday) and months of the contract's daily bars.
            let days = try await bars(symbol, timeframe: .day, from: from, to: to)
            var out: [PriceBar] = []
            var pending: [PriceBar] = []
            var pendingKey = Int.min
            for bar in days {
                let date = ExchangeTimeZone.newYork.localTime(of: bar.time).date
                let key = timeframe == .week ? (date.daysSinceEpoch + 3) / 7 : date.year * 12 + date.month
                if key != pendingKey, let combined = BarAggregation.combine(pending) {
                    out.append(combined)
                    pending.removeAll()
                }
                pendingKey = key
                pending.append(bar)
            }
            if let combined = BarAggregation.combine(pending) { out.append(combined) }
            return out
        }
        guard let found = await contract(symbol), let optionClass = optionClass(found.contract.underlying) else {
            return []
        }
        let contract = found.contract
        let zone = ExchangeTimeZone.newYork
        guard let listed = optionClass.expirations.listingDate(of: contract.expiration) else { return [] }
        let start = max(from, Timestamp(listed, in: zone))
        let end = min(to, clock.now(), OptionQuoteModel.expiry(contract))
        guard start < end else { return [] }
        let underlyingBars = try await feed.bars(contract.underlying, timeframe: timeframe, from: start, to: end)
        guard !underlyingBars.isEmpty else { return [] }
        // One history for the whole range; each day's model sees only the closes before that day.
        let lastDay = zone.localTime(of: underlyingBars[underlyingBars.count - 1].time).date
        let full = try await history(contract.underlying, on: TradingCalendar.xnys.nextTradingDay(after: lastDay))
        var models: [CivilDate: OptionQuoteModel] = [:]
        func model(on day: CivilDate) -> OptionQuoteModel {
            if let known = models[day] { return known }
            var history = full
            history.date = day
            history.closes = full.closes.filter { $0.date < day }
            let surface = OptionQuoteModel.surface(for: history, optionClass: optionClass, seed: seed)
            let made = OptionQuoteModel(
                optionClass: optionClass, surface: surface, history: history, rate: OptionQuoteModel.riskFreeRate,
                seed: seed)
            models[day] = made
            return made
        }
        let calendar = TradingCalendar.xnys
        // A split since the listing made the expiration's symbols name other contracts (a $100 call on a $400 stock
        // before a 4:1 split, an at-the-money one after): the contract's tape starts at the last split's ex-date.
        let tapeStart = full.splits.last { $0.exDate > listed && $0.exDate <= contract.expiration }?.exDate
        var out: [PriceBar] = []
        for (n, bar) in underlyingBars.enumerated() {
            let day = zone.localTime(of: bar.time).date
            if let tapeStart, day < tapeStart { continue }
            guard let session = calendar.schedule(on: day) else { continue }
            let m = model(on: day)
            let opens = max(bar.time, session.open)
            let next = n + 1 < underlyingBars.count ? underlyingBars[n + 1].time : session.close
            let closes = timeframe.isIntraday ? min(next, session.close, end) : min(session.close, end)
            func value(_ spot: Price, _ time: Timestamp) -> OptionSnapshot {
                m.snapshot(contract, spot: spot, time: time, sessionElapsed: 1, lastPrint: time)
            }
            let open = value(bar.open, opens)
            let close = value(bar.close, closes)
            let rich = value(contract.right == .call ? bar.high : bar.low, opens)
            let cheap = value(contract.right == .call ? bar.low : bar.high, closes)
            // The day's contracts traded, spread over the session by the bar's share of it.
            let share =
                Double(closes.nanoseconds - opens.nanoseconds)
                / Double(max(session.close.nanoseconds - session.open.nanoseconds, 1))
            let volume = Int((Double(close.volume) * min(max(share, 0), 1)).rounded())
            guard volume > 0 else { continue }
            let prices = [open, close, rich, cheap].map { $0.last ?? $0.theoreticalValue }
            let high = prices.max() ?? close.theoreticalValue
            let low = prices.min() ?? close.theoreticalValue
            let vwap = (prices.reduce(.zero, +)).divided(by: FixedDecimal(4), places: 2, rule: .halfUp) ?? prices[1]
            out.append(
                PriceBar(
                    time: bar.time, open: prices[0], high: high, low: low, close: prices[1],
                    volume: FixedDecimal(volume), tradeCount: max(1, volume / 5), vwap: vwap,
                    turnover: vwap.times(volume * contract.multiplier)))
        }
        return out
    }
}

extension OptionMarket {
    /// One side of a contract's book: the quoted bid (`.buy`) or ask (`.sell`) and its size on top, then four levels
    /// a tick apart each further from the money, as the other exchanges' market makers stand behind the best quote.
    /// Deeper levels show more contracts (drawn each minute, the same on every node), so a market order larger than
    /// the quoted size walks the book to a worse price instead of waiting a minute for the rest. No bids below zero.
    func depth(_ snapshot: OptionSnapshot, side: OrderSide) -> BookSide {
        let top = side == .buy ? snapshot.bid : snapshot.ask
        guard top.isPositive else { return .empty }
        let topSize = side == .buy ? snapshot.bidSize : snapshot.askSize
        let optionClass = optionClass(snapshot.contract.underlying)
        let minute = UInt64(max(snapshot.time.seconds / 60, 0))
        let key = CounterRandom.hash(CounterRandom.key(snapshot.contract.occSymbol), minute, side == .buy ? 5 : 6)
        var levels: [(Price, Quantity)] = [(top, FixedDecimal(max(topSize, 1)))]
        var price = top
        for level in 1..<BookSide.capacity {
            let tick = optionClass?.tick(at: price) ?? OptionQuoteModel.cent
            price = side == .buy ? price - tick : price + tick
            guard price.isPositive else { break }
            let draw = CounterRandom.uniform(CounterRandom.hash(key, UInt64(level)))
            levels.append((price, FixedDecimal(1 + Int(draw * Double(max(topSize, 5) * (level + 1))))))
        }
        return BookSide(levels)
    }

    /// The instrument the engine trades for an OCC symbol whose underlying lists options, without asking whether the
    /// contract is listed (positions and orders being restored name contracts that were); nil for anything else.
    public func instrument(_ symbol: String) -> Instrument? {
        guard let contract = OptionContract(occSymbol: symbol), let optionClass = optionClass(contract.underlying),
            contract.root == optionClass.underlying
        else { return nil }
        return optionClass.instrument(contract)
    }

    /// The instrument for an OCC symbol, adjusted contracts included: their deliverable comes from the chain that
    /// lists them (today's, or their last day's). nil for anything else.
    public func resolvedInstrument(_ symbol: String) async -> Instrument? {
        if let standard = instrument(symbol) { return standard }
        guard let found = await contract(symbol), let optionClass = optionClass(found.contract.underlying) else {
            return nil
        }
        return optionClass.instrument(found.contract)
    }

    /// A contract's market as the engine trades against it: its snapshot's bid and ask (with their sizes) at the top
    /// of a five-level book (see `depth`), the last print (the model's value before the first), the previous close,
    /// the day's volume. The
    /// phase is the underlying's regular session (options do not trade in extended hours); after expiry it is closed.
    /// While the underlying is halted its options are too (the options exchanges halt them with it): the quote carries
    /// the underlying's halt and no bids or offers, so nothing fills until the reopening. nil when the contract was
    /// never listed.
    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote? {
        guard let snapshot = try await snapshot(symbol) else { return nil }
        let underlying = try await feed.quote(snapshot.contract.underlying)
        let last = snapshot.last ?? snapshot.previousClose ?? snapshot.theoreticalValue
        let open = !snapshot.expired && underlying.phase.isRegularTrading
        let halt = open ? underlying.halt : nil
        return MarketQuote(
            symbol: snapshot.contract.occSymbol, time: snapshot.time, last: last, open: nil, high: nil, low: nil,
            previousClose: snapshot.previousClose ?? last, volume: FixedDecimal(snapshot.volume), turnover: .zero,
            bids: halt == nil ? depth(snapshot, side: .buy) : .empty,
            asks: halt == nil ? depth(snapshot, side: .sell) : .empty,
            limitUp: nil, limitDown: nil, phase: open ? .continuous : .closed, tradingDate: underlying.tradingDate,
            lastTradeTime: snapshot.lastTime, halt: halt)
    }
}
