import TradingCore

/// Real exchange rates for the currency pairs (`PAPERTRADE_FEED_FOREX=yahoo`): Yahoo Finance's charts of
/// `EURUSD=X` (a pair whose base is the dollar is `JPY=X`, Yahoo's name for USD/JPY), rounded to the pair's tick,
/// on the forex week's calendar. Yahoo gives a rate, not IDEALPRO's book, so the quote carries the book IB's
/// interbank venue shows around it: the pair's usual spread (`ForexCalibration.spreadTicks`, the simulated market's
/// figure) centred on the rate, and five levels of a million to five million of the base currency. Orders and
/// conversions fill against that book as they do against the simulated one.
public struct YahooForexFeed: MarketDataFeed {
    let yahoo: YahooFeed
    let directory: SymbolDirectory

    public var name: String { "Yahoo Finance (rates)" }
    public var attributionURL: String? { yahoo.attributionURL }

    public init(transport: any HTTPTransport, directory: SymbolDirectory) {
        yahoo = YahooFeed(transport: transport)
        self.directory = directory
    }

    /// Yahoo's symbol for a pair: `EURUSD=X`, or the quote currency alone when the dollar is the base (`JPY=X`).
    public static func yahooSymbol(_ pair: CurrencyPair) -> String {
        pair.base == .usd ? "\(pair.quote.rawValue)=X" : "\(pair.base.rawValue)\(pair.quote.rawValue)=X"
    }

    func pair(_ symbol: String) throws(FeedError) -> (Instrument, String) {
        guard let instrument = directory.entry(symbol)?.instrument, let pair = instrument.currencyPair else {
            throw .unknownSymbol(symbol)
        }
        return (instrument, Self.yahooSymbol(pair))
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        let (instrument, remote) = try pair(symbol)
        let chart = try YahooParser.chart(
            try await yahoo.get(yahoo.baseURL + "/v8/finance/chart/\(remote)?range=1d&interval=5m"), symbol: symbol,
            tick: instrument.tick, calendar: instrument.calendar)
        guard var quote = chart.quote else {
            throw .malformed(provider: yahoo.name, detail: "chart without a rate for \(remote)")
        }
        if quote.open == nil { quote.open = chart.bars.first?.open }
        (quote.bids, quote.asks) = Self.book(around: quote.last, instrument: instrument)
        quote.lastPriceOnly = false
        return quote
    }

    /// IDEALPRO's book as it stands around `rate`: the pair's spread in ticks, the bid at the rate less half of it
    /// (rounded down to the tick), each further level a tick away, sizes of one to five million of the base currency.
    static func book(around rate: Price, instrument: Instrument) -> (bids: BookSide, asks: BookSide) {
        let tick = instrument.tick.tick(at: rate)
        let spread = max(
            ForexCalibration.pairs[instrument.symbol]?.spreadTicks ?? ForexCalibration.minor.spreadTicks, 1)
        let half = tick.times(spread).divided(by: 2, rule: .halfEven) ?? tick
        let bid = instrument.tick.round(rate - half, .down)
        let ask = bid + tick.times(spread)
        let levels = 0..<BookSide.capacity
        let size = { (level: Int) in FixedDecimal(1_000_000).times(level + 1) }
        return (
            BookSide(
                levels.compactMap { level in
                    let price = bid - tick.times(level)
                    return price.isPositive ? (price, size(level)) : nil
                }),
            BookSide(levels.map { (ask + tick.times($0), size($0)) })
        )
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        let (instrument, remote) = try pair(symbol)
        let url = try yahoo.barsURL(remote, timeframe: timeframe, from: from, to: to)
        return try YahooParser.chart(
            try await yahoo.get(url), symbol: symbol, tick: instrument.tick, calendar: instrument.calendar
        ).bars
    }

    /// Pairs are found in the directory (the router sends searches to the stock feeds).
    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] { [] }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        throw .unsupported(provider: name, feature: "company profiles")
    }
}
