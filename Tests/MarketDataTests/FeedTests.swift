import Foundation
import MarketData
import Synchronization
import Testing
import TradingCore

/// Answers requests from recorded responses, in order per URL prefix, and records what was asked.
final class RecordedTransport: HTTPTransport {
    let responses: Mutex<[(prefix: String, response: Result<HTTPResponse, FeedError>)]>
    let requests = Mutex<[HTTPRequest]>([])

    init(_ responses: [(String, Result<HTTPResponse, FeedError>)]) {
        self.responses = Mutex(responses.map { (prefix: $0.0, response: $0.1) })
    }

    func get(_ request: HTTPRequest, provider: String) async throws(FeedError) -> HTTPResponse {
        requests.withLock { $0.append(request) }
        let next = responses.withLock { list -> Result<HTTPResponse, FeedError>? in
            guard let i = list.firstIndex(where: { request.url.hasPrefix($0.prefix) }) else { return nil }
            return list.remove(at: i).response
        }
        guard let next else { throw .transport(provider: provider, detail: "no recorded response for \(request.url)") }
        return try next.get()
    }
}

private func ok(_ body: String, type: String = "application/json") -> Result<HTTPResponse, FeedError> {
    .success(HTTPResponse(status: 200, headers: ["content-type": type], body: Array(body.utf8)))
}

@Suite("Feeds: key rotation, rate limits, caching, stale data, configuration")
struct FeedTests {
    static let quoteBody =
        #"{"c":189.84,"d":-1.35,"dp":-0.7061,"h":191.05,"l":189.2,"o":190.36,"pc":191.19,"t":1701205200}"#

    @Test("Finnhub keys rotate; a rate-limited key rests and the next key answers")
    func keyRotation() async throws {
        let transport = RecordedTransport([
            (
                "https://finnhub.io/api/v1/quote",
                .success(HTTPResponse(status: 429, body: Array(#"{"error":"API limit reached."}"#.utf8)))
            ),
            ("https://finnhub.io/api/v1/quote", ok(Self.quoteBody)),
            ("https://finnhub.io/api/v1/quote", ok(Self.quoteBody)),
        ])
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2023, 11, 28), hour: 12, in: .newYork)))
        let feed = FinnhubFeed(keys: ["k1", "k2"], transport: transport, clock: clock)
        let q = try await feed.quote("AAPL")
        #expect(q.last == FixedDecimal("189.84"))
        _ = try await feed.quote("AAPL")
        let keys = transport.requests.withLock { $0.map { $0.headers["X-Finnhub-Token"] ?? "" } }
        #expect(keys == ["k1", "k2", "k2"]) // k1 rests for a minute after its 429
    }

    @Test("each key is held to its calls per minute")
    func rateLimit() async throws {
        let transport = RecordedTransport((0..<3).map { _ in ("https://finnhub.io", ok(Self.quoteBody)) })
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2023, 11, 28), hour: 12, in: .newYork)))
        let feed = FinnhubFeed(keys: ["k1"], transport: transport, clock: clock, callsPerMinute: 2)
        _ = try await feed.quote("AAPL")
        _ = try await feed.quote("AAPL")
        await #expect(throws: FeedError.rateLimited(provider: "Finnhub", retryAfterSeconds: 60)) {
            try await feed.quote("AAPL")
        }
        clock.advance(by: 61 * Duration64.second)
        #expect(try await feed.quote("AAPL").last == FixedDecimal("189.84"))
    }

    @Test("on a cluster each node takes its share of a key's calls per minute, so the nodes together stay within it")
    func sharedRateLimit() async throws {
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2023, 11, 28), hour: 12, in: .newYork)))
        for nodes in [1, 2, 3, 7] {
            let transport = RecordedTransport((0..<60).map { _ in ("https://finnhub.io", ok(Self.quoteBody)) })
            // Behind a cache and the market router, as `serve` builds it; a fresh symbol each call misses the cache.
            let feed: any MarketDataFeed = MarketRoutedFeed(
                us: CachingFeed(FinnhubFeed(keys: ["k1"], transport: transport, clock: clock), clock: clock),
                cn: SimulatedFeed(
                    market: SimulatedMarket(directory: try SymbolDirectory.bundled(), configuration: .init(seed: 1)),
                    clock: clock), directory: try SymbolDirectory.bundled())
            feed.shareRateLimits(among: nodes)
            var answered = 0
            for symbol in ["AAPL", "MSFT", "KO", "PEP", "IBM", "INTC", "AMD", "NVDA"] + (0..<60).map({ "T\($0)" }) {
                if (try? await feed.quote(symbol)) != nil { answered += 1 }
            }
            #expect(answered == 60 / nodes, "\(nodes) nodes: \(answered) calls this minute on one of them")
            clock.advance(by: 61 * Duration64.second)
        }
    }

    @Test(
        "with a real US provider, currency pairs still come from the simulated market unless PAPERTRADE_FEED_FOREX names a provider, and no request is sent for them"
    )
    func currencyPairsStaySimulated() async throws {
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2026, 11, 18), hour: 10, in: .newYork)))
        let configuration = try MarketDataConfiguration.load(
            environment: ["PAPERTRADE_FEED_US": "finnhub", "FINNHUB_API_KEYS": "k1"])
        let transport = RecordedTransport([])
        let feed = configuration.makeFeed(directory: try SymbolDirectory.bundled(), clock: clock, transport: transport)
        let quote = try await feed.quote("USD.CNH")
        #expect(quote.phase == .continuous && quote.bids.best != nil && quote.asks.best != nil)
        #expect(await feed.latestQuotes(["EUR.USD", "USD.JPY"]).count == 2)
        #expect(feed.name.contains("(currencies)"))
    }

    @Test("no key, no request: missing credentials are reported")
    func missingKeys() async {
        let feed = FinnhubFeed(keys: [], transport: RecordedTransport([]), clock: MarketClock(.realtime))
        await #expect(throws: FeedError.missingCredentials(provider: "Finnhub")) { try await feed.quote("AAPL") }
    }

    @Test("cached quotes are reused within the TTL; a failing provider yields the last quote marked stale with its age")
    func staleData() async throws {
        let transport = RecordedTransport([
            ("https://finnhub.io", ok(Self.quoteBody)),
            ("https://finnhub.io", .failure(.transport(provider: "Finnhub", detail: "connection refused"))),
        ])
        let start = Timestamp(seconds: 1_701_205_200)
        let clock = MarketClock(.manual(start: start))
        let feed = CachingFeed(
            FinnhubFeed(keys: ["k"], transport: transport, clock: clock), clock: clock, quoteTTLSeconds: 5)
        _ = try await feed.quote("AAPL")
        clock.advance(by: 2 * Duration64.second)
        _ = try await feed.quote("AAPL") // cached: no second request
        #expect(transport.requests.withLock { $0.count } == 1)
        clock.advance(by: 60 * Duration64.second)
        do {
            _ = try await feed.quote("AAPL")
            Issue.record("expected the provider failure to surface")
        } catch {
            guard case .unavailable(let provider, _, let last, let age) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(provider == "Finnhub")
            #expect(last?.last == FixedDecimal("189.84"))
            #expect(age == 62)
        }
    }

    @Test("Sina feed sends the Referer and decodes GB18030 quotes")
    func sinaFeed() async throws {
        let line =
            #"var hq_str_sh600519="贵州茅台,1761.000,1763.000,1769.040,1774.880,1756.000,1769.000,1769.040,2042961,3604003960.000,100,1769.000,200,1768.990,300,1768.500,100,1768.000,400,1767.000,1200,1769.040,100,1769.050,300,1769.500,200,1770.000,100,1771.000,2023-11-28,15:00:00,00";"#
        let body = Array(line.data(using: String.Encoding(rawValue: 0x8000_0632))!)
        let transport = RecordedTransport([
            (
                "https://hq.sinajs.cn/list=sh600519",
                .success(
                    HTTPResponse(
                        status: 200, headers: ["content-type": "application/javascript; charset=GB18030"], body: body))
            )
        ])
        let feed = SinaFeed(transport: transport, directory: try SymbolDirectory.bundled())
        let q = try await feed.quote("600519")
        #expect(q.last == FixedDecimal("1769.04"))
        #expect(transport.requests.withLock { $0.first?.headers["Referer"] } == "https://finance.sina.com.cn")
    }

    @Test("configuration: simulated by default; providers by environment or file; clear errors")
    func configuration() throws {
        let defaults = try MarketDataConfiguration.load(environment: [:])
        #expect(defaults.us == .simulated && defaults.cn == .simulated)
        let env = try MarketDataConfiguration.load(environment: [
            "PAPERTRADE_FEED_US": "finnhub", "FINNHUB_API_KEYS": "a, b",
            "PAPERTRADE_FEED_CN": "sina", "HOME": "/root",
        ])
        #expect(env.us == .finnhub && env.finnhubKeys == ["a", "b"] && env.cn == .sina)
        #expect(throws: MarketDataConfiguration.ConfigurationError.self) {
            try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED_US": "finnhub"])
        }
        #expect(throws: MarketDataConfiguration.ConfigurationError.self) {
            try MarketDataConfiguration.load(environment: ["PAPERTRADE_FEED": "bloomberg"])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-\(UUID()).conf").path
        try "# market data\nPAPERTRADE_FEED_US=yahoo\nPAPERTRADE_QUOTE_TTL=30\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try MarketDataConfiguration.load(environment: ["PAPERTRADE_QUOTE_TTL": "10"], configFile: file)
        #expect(fromFile.us == .yahoo)
        #expect(fromFile.quoteTTLSeconds == 10) // the environment wins
        let feed = defaults.makeFeed(directory: try SymbolDirectory.bundled(), clock: MarketClock(.realtime))
        #expect(feed.name == "Simulated market")
    }

    @Test(
        "overview and movers come from the feed of each market: a provider without them says so, never simulated data")
    func overviewAndMovers() async throws {
        let directory = try SymbolDirectory.bundled()
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .newYork)))
        let simulated = SimulatedFeed(market: SimulatedMarket(directory: directory), clock: clock)
        #expect(try await simulated.indices().count == MarketIndex.allCases.count)
        #expect(try await simulated.movers(.us, kind: .gainers, limit: 5).count == 5)

        let sina = SinaFeed(transport: RecordedTransport([]), directory: directory)
        let routed = MarketRoutedFeed(us: simulated, cn: CachingFeed(sina, clock: clock), directory: directory)
        let indices = try await routed.indices()
        #expect(
            !indices.isEmpty && indices.allSatisfy { $0.index.market == .us }, "the US indices, none invented for China"
        )
        #expect(try await routed.movers(.us, kind: .active, limit: 3).count == 3)
        await #expect(throws: FeedError.unsupported(provider: sina.name, feature: "market movers")) {
            try await routed.movers(.cn, kind: .gainers, limit: 3)
        }
    }

    @Test("the simulated feed answers quotes, bars, search, profile and peers offline")
    func simulatedFeed() async throws {
        let directory = try SymbolDirectory.bundled()
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .newYork)))
        let feed = SimulatedFeed(market: SimulatedMarket(directory: directory), clock: clock)
        #expect(try await feed.quote("AAPL").time == clock.now())
        await #expect(throws: FeedError.unknownSymbol("NOPE")) { try await feed.quote("NOPE") }
        let bars = try await feed.bars(
            "AAPL", timeframe: .minutes(5), from: Timestamp(CivilDate(2026, 11, 20), in: .newYork),
            to: Timestamp(CivilDate(2026, 11, 21), in: .newYork))
        #expect(bars.count == 30) // 09:30–12:00, never past the clock
        #expect(try await feed.search("appl", market: nil, limit: 3).first?.symbol == "AAPL")
        #expect(try await feed.profile("AAPL").industry == "Technology Hardware, Storage & Peripherals")
        #expect(try await feed.peers("ADBE").contains("CRM")) // both GICS Application Software
        // The simulated market's news are its corporate actions' announcements, never later than the clock.
        let payer = try #require(
            ["AAPL", "MSFT", "KO", "JPM", "IBM", "SPY", "QQQ"].first { symbol in
                feed.market.corporateActions(symbol, from: CivilDate(2026, 1, 1), through: CivilDate(2026, 11, 20))
                    .contains { $0.kind == .cashDividend }
            })
        let name = try #require(directory.entry(payer)?.name)
        let news = try await feed.news(payer, from: CivilDate(2026, 1, 1), to: CivilDate(2026, 11, 30))
        #expect(!news.isEmpty)
        #expect(news.allSatisfy { $0.source == "papertrade simulated market" && $0.headline.hasPrefix(name) })
        #expect(news.allSatisfy { $0.time <= Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .newYork) })
    }
}

@Suite("Real providers serve the market overview")
struct ProviderIndexTests {
    @Test("Sina: the three A-share indices from one short-quote request")
    func sinaIndices() async throws {
        let text =
            "var hq_str_s_sh000001=\"上证指数,3021.9849,-8.4125,-0.28,2713893,27567418\";\n"
            + "var hq_str_s_sz399001=\"深证成指,9476.23,12.50,0.13,312345678,38765432\";\n"
            + "var hq_str_s_sh000300=\"沪深300,3482.33,-10.80,-0.31,112233445,22334455\";\n"
        let body = Array(text.data(using: String.Encoding(rawValue: 0x8000_0632))!)
        let transport = RecordedTransport([
            (
                "https://hq.sinajs.cn/list=s_sh000001,s_sz399001,s_sh000300",
                .success(HTTPResponse(status: 200, headers: ["content-type": "application/javascript"], body: body))
            )
        ])
        let indices = try await SinaFeed(transport: transport, directory: try SymbolDirectory.bundled()).indices()
        #expect(indices.map(\.index) == [.sseComposite, .szseComponent, .csi300])
        #expect(indices[0].value == FixedDecimal("3021.9849"))
        #expect(indices[0].previousClose == FixedDecimal("3030.3974"))
        #expect(indices[1].changePercent == FixedDecimal("0.13"))
        #expect(indices[2].value == FixedDecimal("3482.33") && indices[2].previousClose == FixedDecimal("3493.13"))
        #expect(transport.requests.withLock { $0.first?.headers["Referer"] } == "https://finance.sina.com.cn")
    }

    @Test("Yahoo: the four US indices from their charts, the ^ escaped in the path")
    func yahooIndices() async throws {
        func chart(_ symbol: String, _ price: String, _ previous: String) -> Result<HTTPResponse, FeedError> {
            let body =
                #"{"chart":{"result":[{"meta":{"currency":"USD","symbol":"\#(symbol)","regularMarketPrice":\#(price),"regularMarketTime":1701205200,"chartPreviousClose":\#(previous),"exchangeTimezoneName":"America/New_York"},"timestamp":[],"indicators":{"quote":[{}]}}],"error":null}}"#
            return .success(
                HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8)))
        }
        let base = "https://query2.finance.yahoo.com/v8/finance/chart/"
        let transport = RecordedTransport([
            (base + "%5EIXIC", chart("^IXIC", "14258.49", "14241.02")),
            (base + "%5ENDX", chart("^NDX", "15947.87", "15936.43")),
            (base + "%5EDJI", chart("^DJI", "35416.98", "35333.47")),
            (base + "%5EGSPC", chart("^GSPC", "4554.89", "4550.43")),
        ])
        let indices = try await YahooFeed(transport: transport).indices()
        #expect(indices.map(\.index) == [.nasdaqComposite, .nasdaq100, .dowJones, .sp500])
        #expect(indices[1].value == FixedDecimal("15947.87"))
        #expect(indices[3].value == FixedDecimal("4554.89"))
        #expect(indices[3].change == FixedDecimal("4.46"))
        #expect(indices[0].time == Timestamp(seconds: 1_701_205_200))
    }
}
