import Foundation
import MarketData
import Testing
import TradingCore

/// Alpaca's crypto data as a provider, against answers in the shapes Alpaca's documentation gives for
/// `/v1beta3/crypto/us` (crypto pricing data: latest order books with `p`/`s` levels and nanosecond times; snapshots;
/// paged bars). Keys are optional: without them no key headers are sent.
@Suite("Alpaca's crypto data as a provider")
struct AlpacaCryptoFeedTests {
    static let snapshots = #"""
        {"snapshots": {"BTC/USD": {
          "latestTrade": {"t": "2026-11-21T13:31:44.912Z", "p": 91234.5, "s": 0.0125, "i": 5102833, "tks": "B"},
          "latestQuote": {"t": "2026-11-21T13:31:44.932988033Z", "bp": 91230.1, "bs": 0.26, "ap": 91240.2, "as": 0.31},
          "minuteBar": {"t": "2026-11-21T13:30:00Z", "o": 91200, "h": 91250, "l": 91190, "c": 91234.5, "v": 1.2, "n": 40, "vw": 91220},
          "dailyBar": {"t": "2026-11-21T00:00:00Z", "o": 90500, "h": 91800, "l": 90100, "c": 91234.5, "v": 312.5, "n": 9120, "vw": 91010.5},
          "prevDailyBar": {"t": "2026-11-20T00:00:00Z", "o": 89900, "h": 90900, "l": 89500, "c": 90400, "v": 401.25, "n": 11050, "vw": 90210}
        }, "NOPE/USD": {"latestTrade": null}}}
        """#
    static let orderbooks = #"""
        {"orderbooks": {"BTC/USD": {
          "a": [{"p": 91240.2, "s": 0.31}, {"p": 91239.494, "s": 0.2632414}, {"p": 91260, "s": 1.5}],
          "b": [{"p": 91211.78083, "s": 0.26265668}, {"p": 91230.1, "s": 0.26}],
          "t": "2026-11-21T13:31:44.932988033Z"
        }}}
        """#

    static func ok(_ body: String) -> Result<HTTPResponse, FeedError> {
        .success(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8)))
    }

    @Test("a pair's quote: the last trade, the UTC day's bar, yesterday's close and the book best first")
    func quote() async throws {
        let transport = RecordedTransport([
            ("https://data.alpaca.markets/v1beta3/crypto/us/snapshots?symbols=BTC%2FUSD", Self.ok(Self.snapshots)),
            ("https://data.alpaca.markets/v1beta3/crypto/us/latest/orderbooks", Self.ok(Self.orderbooks)),
        ])
        let feed = AlpacaCryptoFeed(transport: transport)
        let q = try await feed.quote("BTC/USD")
        #expect(q.last == FixedDecimal("91234.5") && q.previousClose == 90400)
        #expect(q.open == 90500 && q.high == 91800 && q.low == 90100 && q.volume == FixedDecimal("312.5"))
        #expect(q.changePercent == FixedDecimal("0.92"))
        #expect(q.bids.best?.price == FixedDecimal("91230.1") && q.bids[1].price == FixedDecimal("91211.78083"))
        #expect(q.asks.best?.price == FixedDecimal("91239.494") && q.asks.count == 3)
        #expect(q.phase == .continuous && q.tradingDate == CivilDate(2026, 11, 21))
        #expect(q.lastTradeTime == RFC3339.parse("2026-11-21T13:31:44.912Z"))
        // No keys: Alpaca's crypto data needs none, and none are sent.
        #expect(transport.requests.withLock { $0.allSatisfy { $0.headers.isEmpty } })
    }

    @Test("bars follow next_page_token; keys, when configured, go in Alpaca's headers")
    func pagedBars() async throws {
        let page1 = #"""
            {"bars": {"BTC/USD": [{"t": "2026-11-20T00:00:00Z", "o": 89900, "h": 90900, "l": 89500, "c": 90400, "v": 401.25, "n": 11050, "vw": 90210}]},
             "next_page_token": "QlRDL1VTRHwy"}
            """#
        let page2 = #"""
            {"bars": {"BTC/USD": [{"t": "2026-11-21T00:00:00Z", "o": 90500, "h": 91800, "l": 90100, "c": 91234.5, "v": 312.5, "n": 9120, "vw": 91010.5}]},
             "next_page_token": null}
            """#
        let transport = RecordedTransport([
            ("https://data.alpaca.markets/v1beta3/crypto/us/bars?symbols=BTC%2FUSD&timeframe=1Day", Self.ok(page1)),
            ("https://data.alpaca.markets/v1beta3/crypto/us/bars?symbols=BTC%2FUSD&timeframe=1Day", Self.ok(page2)),
        ])
        let feed = AlpacaCryptoFeed(keyID: "AK1", secret: "S1", transport: transport)
        let bars = try await feed.bars(
            "BTC/USD", timeframe: .day, from: Timestamp(CivilDate(2026, 11, 20), in: .utc),
            to: Timestamp(CivilDate(2026, 11, 22), in: .utc))
        #expect(bars.map(\.close) == [90400, FixedDecimal("91234.5")])
        let requests = transport.requests.withLock { $0 }
        #expect(requests.count == 2 && requests[1].url.hasSuffix("&page_token=QlRDL1VTRHwy"))
        #expect(requests.allSatisfy { $0.headers == ["APCA-API-KEY-ID": "AK1", "APCA-API-SECRET-KEY": "S1"] })
    }

    @Test("Alpaca's refusals become feed errors; a malformed book is said to be one")
    func failures() async throws {
        let limited = RecordedTransport([
            (
                "https://data.alpaca.markets/v1beta3/crypto/us/snapshots",
                .success(HTTPResponse(status: 429, body: Array(#"{"message":"too many requests."}"#.utf8)))
            )
        ])
        await #expect(throws: FeedError.rateLimited(provider: "Alpaca", retryAfterSeconds: nil)) {
            try await AlpacaCryptoFeed(transport: limited).quote("BTC/USD")
        }
        #expect(throws: FeedError.self) {
            try AlpacaDataParser.cryptoOrderbooks(Array(#"{"orderbooks": {"BTC/USD": {"b": [{"p": 1}]}}}"#.utf8))
        }
        // A pair Alpaca has no trade for is unknown.
        let unknown = RecordedTransport([
            ("https://data.alpaca.markets/v1beta3/crypto/us/snapshots", Self.ok(Self.snapshots)),
            ("https://data.alpaca.markets/v1beta3/crypto/us/latest/orderbooks", Self.ok(#"{"orderbooks": {}}"#)),
        ])
        await #expect(throws: FeedError.unknownSymbol("NOPE/USD")) {
            try await AlpacaCryptoFeed(transport: unknown).quote("NOPE/USD")
        }
    }

    @Test("PAPERTRADE_FEED_CRYPTO=alpaca sends the pairs to Alpaca and the stocks to their own feed")
    func routed() async throws {
        let configuration = try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED_CRYPTO": "alpaca"])
        #expect(configuration.crypto == .alpaca && configuration.us == .simulated)
        #expect(throws: MarketDataConfiguration.ConfigurationError.self) {
            try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED_CRYPTO": "finnhub"])
        }
        let transport = RecordedTransport([
            ("https://data.alpaca.markets/v1beta3/crypto/us/snapshots", Self.ok(Self.snapshots)),
            ("https://data.alpaca.markets/v1beta3/crypto/us/latest/orderbooks", Self.ok(Self.orderbooks)),
        ])
        let directory = try SymbolDirectory.bundled()
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2026, 11, 21), hour: 14, in: .utc)))
        let feed = configuration.makeFeed(directory: directory, clock: clock, transport: transport)
        #expect(feed.name.contains("Alpaca Crypto Data (crypto)"))
        let quotes = await feed.latestQuotes(["BTC/USD", "AAPL"])
        #expect(quotes["BTC/USD"]?.last == FixedDecimal("91234.5"))
        #expect(quotes["AAPL"]?.last.isPositive == true, "the simulated market's")
        #expect(transport.requests.withLock { $0.count } == 2)
    }
}
