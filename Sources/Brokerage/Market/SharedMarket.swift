import MarketData
import Synchronization
import TradingCore

/// What is per instrument and shared by every shard: the quote most recently fetched for each symbol (orders in a
/// burst, on any shard, share one), the day's opening and closing auction prices, and indices' settled closes. The
/// shards keep only what their own engines have been told (which reference and auctions they applied).
///
/// The market pump (`Brokerage.pumpMarket`) asks each shard what it holds something for, fetches each of those
/// instruments' quotes here once, and hands each update only to the shards that asked for it.
///
/// Shared state behind locks rather than an actor: an order placement looks up the cached quote without a hop to
/// another executor (the lock is held for a dictionary lookup; feeds are called outside it).
final class SharedMarket: Sendable {
    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    /// The last quote fetched per symbol, and when.
    private let quotes = Mutex<[String: (fetched: Timestamp, quote: MarketQuote)]>([:])
    /// How long a fetched quote serves further orders: 5 ms.
    static let refreshReuse: Int64 = 5_000_000
    /// The day's auctions per symbol, once known.
    private let auctions = Mutex<[AuctionKey: MarketEvent.Kind]>([:])
    /// Indices' settled daily bars (performance benchmarks; see `dailyIndexBars`).
    private let indexCloses = Mutex<[MarketIndex: IndexCloses]>([:])

    /// The option chains (their contracts and quotes), one for every shard.
    let options: OptionMarket

    init(feed: any MarketDataFeed, directory: SymbolDirectory, clock: MarketClock) {
        self.feed = feed
        self.directory = directory
        self.clock = clock
        // One seed for the options' own randomness (skews, sizes) on every node, whatever the stock market's seed.
        options = OptionMarket(feed: feed, directory: directory, clock: clock, seed: 0)
    }

    /// The instrument a symbol names: a listed stock, ETF or fund from the directory, or an option contract on an
    /// optionable underlying (listed or not: what is held or restored must be found again). nil for anything else.
    func instrument(_ symbol: String) -> Instrument? {
        if let entry = directory.entry(symbol) { return entry.instrument }
        return OptionContract.multiplier(ofSymbol: symbol) != nil ? options.instrument(symbol) : nil
    }

    /// `instrument(symbol)`, and adjusted option contracts too (their deliverable is found in the chain that lists
    /// them): what positions and orders being restored name.
    func resolvedInstrument(_ symbol: String) async -> Instrument? {
        if let known = instrument(symbol) { return known }
        return OptionContract.multiplier(ofSymbol: symbol) != nil ? await options.resolvedInstrument(symbol) : nil
    }

    /// What a new order's symbol names.
    enum Tradable {
        /// A directory entry, or an option contract listed on today's chain.
        case instrument(Instrument)
        /// A contract that expired on `date`.
        case expired(Instrument, on: CivilDate)
        case unknown
    }

    /// The instrument a new order names: a directory entry, or an option contract listed on the chain.
    func tradable(_ symbol: String) async -> Tradable {
        if let entry = directory.entry(symbol) { return .instrument(entry.instrument) }
        guard OptionContract.multiplier(ofSymbol: symbol) != nil, let found = await options.contract(symbol),
            let optionClass = options.optionClass(found.contract.underlying)
        else { return .unknown }
        let instrument = optionClass.instrument(found.contract)
        return found.active ? .instrument(instrument) : .expired(instrument, on: found.contract.expiration)
    }

    /// The symbol's quote: with `reuse`, one fetched less than `refreshReuse` ago serves again (a burst of orders on
    /// any shard shares it); otherwise a fresh one. Throws what the feed threw. An option contract is quoted from its
    /// chain.
    func quote(_ symbol: String, reuse: Bool) async throws(FeedError) -> MarketQuote {
        let started = clock.now()
        if reuse, let cached = quotes.withLock({ $0[symbol] }),
            started.nanoseconds - cached.fetched.nanoseconds < Self.refreshReuse, cached.fetched <= started
        {
            return cached.quote
        }
        let quote: MarketQuote
        if OptionContract.multiplier(ofSymbol: symbol) != nil {
            guard let option = try await options.quote(symbol) else { throw .unknownSymbol(symbol) }
            quote = option
        } else {
            quote = try await feed.quote(symbol)
        }
        quotes.withLock { $0[symbol] = (started, quote) }
        return quote
    }

    /// A symbol's bars: a stock's from the feed, an option contract's from its chain (the underlying's bars repriced
    /// through each day's model).
    func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        if OptionContract.multiplier(ofSymbol: symbol) != nil {
            return try await options.bars(symbol, timeframe: timeframe, from: from, to: to)
        }
        return try await feed.bars(symbol, timeframe: timeframe, from: from, to: to)
    }

    private struct AuctionKey: Hashable {
        var symbol: String
        var date: CivilDate
        var isOpen: Bool
    }

    /// The opening auction of `symbol` on `today` (its session's open price and the day's volume so far), once it
    /// has happened; nil before, or when the feed has no session for that day.
    func openingAuction(_ symbol: String, on today: CivilDate, at open: Timestamp) async -> MarketEvent.Kind? {
        let key = AuctionKey(symbol: symbol, date: today, isOpen: true)
        if let known = auctions.withLock({ $0[key] }) { return known }
        guard let quote = try? await feed.quote(symbol), quote.tradingDate == today, let price = quote.open else {
            return nil
        }
        let kind = MarketEvent.Kind.auction(.open, price: price, volume: quote.volume)
        return remember(kind, for: key)
    }

    /// The closing auction of `symbol` on `today`: the day's close and volume, once the session has closed.
    func closingAuction(_ symbol: String, on today: CivilDate, zone: ExchangeTimeZone, at now: Timestamp) async
        -> MarketEvent.Kind?
    {
        let key = AuctionKey(symbol: symbol, date: today, isOpen: false)
        if let known = auctions.withLock({ $0[key] }) { return known }
        let kind: MarketEvent.Kind
        if let bar = (try? await feed.bars(symbol, timeframe: .day, from: Timestamp(today, in: zone), to: now))?.last {
            kind = .auction(.close, price: bar.close, volume: bar.volume)
        } else if let quote = try? await feed.quote(symbol) {
            kind = .auction(.close, price: quote.last, volume: quote.volume)
        } else {
            return nil
        }
        return remember(kind, for: key)
    }

    /// Keeps an auction's price (the first answer wins: every shard applies the same one); past dates are
    /// forgotten once many are kept.
    private func remember(_ kind: MarketEvent.Kind, for key: AuctionKey) -> MarketEvent.Kind {
        auctions.withLock { known in
            if let first = known[key] { return first }
            if known.count > 100_000 { known = known.filter { $0.key.date >= key.date } }
            known[key] = kind
            return kind
        }
    }

    /// An index's daily bars, the settled ones (before today) kept in memory: five years of S&P 500 closes cost the
    /// simulator about 5 ms a request, more than the rest of a performance report. A request reaching before the
    /// cached range fetches it whole again; today's bar is always fetched.
    func dailyIndexBars(_ index: MarketIndex, from: Timestamp, to end: Timestamp) async -> [PriceBar] {
        let zone = index.market.calendar.zone
        let settled = Timestamp(zone.localTime(of: clock.now()).date, in: zone)
        if let cached = indexCloses.withLock({ $0[index] }), cached.from <= from,
            cached.through >= Swift.min(settled, end)
        {
            var bars = cached.bars.filter { $0.time >= from && $0.time <= end }
            if end > settled {
                bars += ((try? await feed.indexBars(index, timeframe: .day, from: settled, to: end)) ?? [])
                    .filter { $0.time >= settled }
            }
            return bars
        }
        let bars = (try? await feed.indexBars(index, timeframe: .day, from: from, to: end)) ?? []
        if !bars.isEmpty {
            let closes = IndexCloses(
                from: from, through: Swift.min(settled, end), bars: bars.filter { $0.time < settled })
            indexCloses.withLock { $0[index] = closes }
        }
        return bars
    }
}

/// Settled daily bars of an index from `from` through `through` (`SharedMarket.dailyIndexBars`).
struct IndexCloses: Sendable {
    var from: Timestamp
    var through: Timestamp
    var bars: [PriceBar]
}
