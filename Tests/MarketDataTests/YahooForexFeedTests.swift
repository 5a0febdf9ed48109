import Foundation
import MarketData
import Testing
import TradingCore

/// Real exchange rates from Yahoo Finance's charts (`PAPERTRADE_FEED_FOREX=yahoo`), against answers in the shape
/// query2.finance.yahoo.com gives for `EURUSD=X` and `JPY=X` (binary-float rates, zero volumes): rounded to the
/// pair's tick, on the forex week, with IDEALPRO's spread around the rate as the book.
@Suite("Yahoo's exchange rates as the currency pairs' provider")
struct YahooForexFeedTests {
    /// Friday 20 November 2026, 15:00 UTC (10:00 in New York): the forex week is open.
    static let friday = Timestamp(CivilDate(2026, 11, 20), hour: 15, in: .utc)

    static func chart(symbol: String, rate: String, previous: String, closes: [String]) -> String {
        let t = friday.seconds
        let times = closes.indices.map { String(t - Int64(300 * (closes.count - $0))) }.joined(separator: ",")
        let list = closes.joined(separator: ",")
        let zeros = closes.map { _ in "0" }.joined(separator: ",")
        return #"{"chart":{"result":[{"meta":{"currency":"USD","symbol":""# + symbol
            + #"","exchangeName":"CCY","instrumentType":"CURRENCY","regularMarketTime":\#(t),"regularMarketPrice":"#
            + rate + #","chartPreviousClose":"# + previous
            + #","regularMarketDayHigh":1.0871000289916992,"regularMarketDayLow":1.0790300369262695},"timestamp":["#
            + times + #"],"indicators":{"quote":[{"open":["# + list + #"],"high":["# + list + #"],"low":["# + list
            + #"],"close":["# + list + #"],"volume":["# + zeros + #"]}]}}],"error":null}}"#
    }

    static func ok(_ body: String) -> Result<HTTPResponse, FeedError> {
        .success(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8)))
    }

    static let euro = chart(
        symbol: "EURUSD=X", rate: "1.0834500789642334", previous: "1.0812000036239624",
        closes: ["1.0830099582672119", "1.0834500789642334"])

    @Test("EUR.USD: Yahoo's rate to the tenth of a pip, the day's range, the forex week's phase and IDEALPRO's book")
    func euro() async throws {
        let transport = RecordedTransport([
            ("https://query2.finance.yahoo.com/v8/finance/chart/EURUSD=X?range=1d&interval=5m", Self.ok(Self.euro))
        ])
        let feed = YahooForexFeed(transport: transport, directory: try SymbolDirectory.bundled())
        let q = try await feed.quote("EUR.USD")
        #expect(q.symbol == "EUR.USD" && q.last == FixedDecimal("1.08345"))
        #expect(q.previousClose == FixedDecimal("1.0812") && q.open == FixedDecimal("1.08301"))
        #expect(q.high == FixedDecimal("1.0871") && q.low == FixedDecimal("1.07903"))
        #expect(q.phase == .continuous && q.tradingDate == CivilDate(2026, 11, 20))
        // EUR.USD's spread on IDEALPRO is two tenths of a pip: a tenth either side of the rate.
        #expect(q.bids.best?.price == FixedDecimal("1.08344") && q.asks.best?.price == FixedDecimal("1.08346"))
        #expect(q.bids.count == 5 && q.asks.count == 5)
        #expect(q.bids[4].price == FixedDecimal("1.0834") && q.asks[4].price == FixedDecimal("1.0835"))
        #expect(q.asks.best?.size == 1_000_000 && q.asks[4].size == 5_000_000)
        #expect(transport.requests.withLock { $0.first?.headers["User-Agent"]?.hasPrefix("Mozilla") == true })
    }

    @Test(
        "USD.JPY is Yahoo's JPY=X, to a thousandth of a yen; a pair whose base is the dollar asks for it by its quote")
    func yen() async throws {
        #expect(YahooForexFeed.yahooSymbol(CurrencyPair(base: .usd, quote: .jpy)) == "JPY=X")
        #expect(YahooForexFeed.yahooSymbol(CurrencyPair(base: .gbp, quote: .usd)) == "GBPUSD=X")
        #expect(YahooForexFeed.yahooSymbol(CurrencyPair(base: .usd, quote: .cnh)) == "CNH=X")
        let body = Self.chart(
            symbol: "JPY=X", rate: "154.82400512695312", previous: "155.1999969482422",
            closes: ["154.9", "154.82400512695312"])
        let transport = RecordedTransport([
            ("https://query2.finance.yahoo.com/v8/finance/chart/JPY=X?range=1d", Self.ok(body))
        ])
        let q = try await YahooForexFeed(transport: transport, directory: try SymbolDirectory.bundled()).quote(
            "USD.JPY")
        #expect(q.last == FixedDecimal("154.824") && q.previousClose == FixedDecimal("155.2"))
        let bid = try #require(q.bids.best?.price)
        let ask = try #require(q.asks.best?.price)
        #expect((ask - bid).isPositive && (ask - bid).isMultiple(of: FixedDecimal(units: 1, exponent: 3)))
        #expect(bid <= q.last && ask >= q.last)
    }

    @Test("bars: the chart's period and interval, prices to the tick; a stock or unknown symbol is not a pair")
    func bars() async throws {
        let from = Self.friday.adding(seconds: -600)
        let transport = RecordedTransport([
            (
                "https://query2.finance.yahoo.com/v8/finance/chart/EURUSD=X?period1=\(from.seconds)&period2=\(Self.friday.seconds)&interval=5m",
                Self.ok(Self.euro)
            )
        ])
        let feed = YahooForexFeed(transport: transport, directory: try SymbolDirectory.bundled())
        let bars = try await feed.bars("EUR.USD", timeframe: .minutes(5), from: from, to: Self.friday)
        #expect(bars.map(\.close) == [FixedDecimal("1.08301"), FixedDecimal("1.08345")])
        #expect(bars.last?.time == Self.friday.adding(seconds: -300))
        await #expect(throws: FeedError.unknownSymbol("AAPL")) { try await feed.quote("AAPL") }
        await #expect(throws: FeedError.unknownSymbol("XXX.USD")) { try await feed.quote("XXX.USD") }
        await #expect(throws: FeedError.self) {
            try await feed.bars("EUR.USD", timeframe: .minutes(3), from: from, to: Self.friday)
        }
    }

    @Test("PAPERTRADE_FEED_FOREX=yahoo sends the currency pairs to Yahoo and everything else to its own feed")
    func routed() async throws {
        let configuration = try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED_FOREX": "yahoo"])
        #expect(configuration.forex == .yahoo && configuration.us == .simulated && configuration.crypto == .simulated)
        #expect(throws: MarketDataConfiguration.ConfigurationError.self) {
            try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED_FOREX": "alpaca"])
        }
        let transport = RecordedTransport([
            ("https://query2.finance.yahoo.com/v8/finance/chart/EURUSD=X", Self.ok(Self.euro))
        ])
        let clock = MarketClock(.manual(start: Self.friday))
        let feed = configuration.makeFeed(
            directory: try SymbolDirectory.bundled(), clock: clock, transport: transport)
        #expect(feed.name.contains("Yahoo Finance (rates) (currencies)"))
        let quotes = await feed.latestQuotes(["EUR.USD", "AAPL", "BTC/USD"])
        #expect(quotes["EUR.USD"]?.last == FixedDecimal("1.08345"))
        #expect(quotes["AAPL"]?.last.isPositive == true && quotes["BTC/USD"]?.last.isPositive == true)
        #expect(transport.requests.withLock { $0.count } == 1)
    }
}
