import BrokerageModel
import Foundation
import MarketData
import Synchronization
import Testing
import TradingCore

@testable import Brokerage

/// Answers every chart request for a Yahoo currency symbol with that rate, stamped at the clock's now (as Yahoo's
/// `regularMarketTime` is the latest tick's), and counts the requests.
final class YahooRatesTransport: HTTPTransport {
    let rates: [String: String]
    let clock: MarketClock
    let requests = Mutex<[String]>([])

    init(_ rates: [String: String], clock: MarketClock) {
        self.rates = rates
        self.clock = clock
    }

    func get(_ request: HTTPRequest, provider: String) async throws(FeedError) -> HTTPResponse {
        requests.withLock { $0.append(request.url) }
        guard let symbol = request.url.split(separator: "/").last?.split(separator: "?").first.map(String.init),
            let rate = rates[symbol]
        else {
            let body = #"{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found"}}}"#
            return HTTPResponse(status: 404, body: Array(body.utf8))
        }
        let t = clock.now().seconds
        let body =
            #"{"chart":{"result":[{"meta":{"symbol":"\#(symbol)","regularMarketTime":\#(t),"regularMarketPrice":\#(rate),"chartPreviousClose":\#(rate)},"timestamp":[\#(t - 300)],"indicators":{"quote":[{"open":[\#(rate)],"high":[\#(rate)],"low":[\#(rate)],"close":[\#(rate)],"volume":[0]}]}}],"error":null}}"#
        return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }
}

@Suite("Real providers through the brokerage: currency pairs on Yahoo's rates, stocks on a last price")
struct RealRatesTests {
    static func d(_ text: String) -> FixedDecimal { FixedDecimal(text) ?? .zero }

    @Test(
        "an order on EUR.USD and a conversion to yuan fill at IDEALPRO's book around Yahoo's rate, not the simulated market's"
    )
    func ordersAndTransfersOnRealRates() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-rates-\(UUID())").path
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let symbols = try SymbolDirectory.bundled()
        // Rates far from the simulated market's, so a fill at the simulated price could not pass for them.
        let transport = YahooRatesTransport(
            ["EURUSD=X": "1.2500100002", "CNH=X": "7.0000099997"], clock: clock)
        let configuration = try MarketDataConfiguration.load(
            environment: ["PAPERTRADE_FEED_FOREX": "yahoo", "PAPERTRADE_QUOTE_TTL": "0"])
        let feed = configuration.makeFeed(directory: symbols, clock: clock, transport: transport)
        let brokerage = try await Brokerage.open(
            .sqlite(path: directory + "/papertrade.sqlite"), feed: feed, directory: symbols, clock: clock)
        let user = try await brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "fx", passwordHash: "-")
        let usd = try await brokerage.openAccount(userID: user.id, market: .us, cash: 100_000, name: "dollars")
        let cny = try await brokerage.openAccount(userID: user.id, market: .cn, cash: 0, name: "元")

        // EUR.USD: Yahoo's 1.25001 with the pair's two-tenths-of-a-pip spread: bid 1.25000, ask 1.25002.
        let quote = try await brokerage.market.quote("EUR.USD", reuse: false)
        #expect(quote.bids.best?.price == FixedDecimal("1.25") && quote.asks.best?.price == FixedDecimal("1.25002"))
        let bought = try await brokerage.submit(
            OrderRequest(symbol: "EUR.USD", side: .buy, type: .market, timeInForce: .gtc, qty: 10_000),
            account: usd.id)
        #expect(bought.status == .filled && bought.filledAvgPrice == FixedDecimal("1.25002"))
        #expect(try await brokerage.account(usd.id).cash == 100_000 - Self.d("12500.20"))
        let euros = try await brokerage.account(usd.id).balances[.eur]
        #expect(euros?.amount == 10_000 && euros?.cost == FixedDecimal("12500.20"))
        // Selling them back at the bid loses exactly the spread.
        let sold = try await brokerage.submit(
            OrderRequest(symbol: "EUR.USD", side: .sell, type: .market, timeInForce: .gtc, qty: 10_000),
            account: usd.id)
        #expect(sold.status == .filled && sold.filledAvgPrice == FixedDecimal("1.25"))
        #expect(try await brokerage.account(usd.id).cash == 100_000 - Self.d("0.20"))

        // Dollars to the yuan account at USD.CNH's bid around Yahoo's 7.00001 (IDEALPRO size: no odd-lot widening).
        let cnh = try await brokerage.market.quote("USD.CNH", reuse: false)
        let bid = try #require(cnh.bids.best?.price)
        #expect(bid <= Self.d("7.00001") && bid > Self.d("6.9999"))
        let moved = try await brokerage.transfers.transfer(
            user: user.id, from: usd.id, to: cny.id, amount: 30_000, currency: .usd
        ).record
        #expect(moved.status == .completed && moved.pricing.pair == "USD.CNH")
        #expect(moved.to.amount == bid.multiplied(by: 30_000, places: 2, rule: .down))
        #expect(try await brokerage.account(cny.id).cash == moved.to.amount)

        // Yahoo was asked for the pairs, and for nothing else.
        let asked = transport.requests.withLock { $0 }
        #expect(asked.contains { $0.contains("/EURUSD=X?") } && asked.contains { $0.contains("/CNH=X?") })
        #expect(asked.allSatisfy { $0.contains("=X?") })
        await brokerage.shutdown()
    }
}

extension RealRatesTests {
    /// Finnhub's `/quote` for AAPL at the clock's now.
    final class FinnhubQuoteTransport: HTTPTransport {
        let clock: MarketClock
        init(clock: MarketClock) { self.clock = clock }
        func get(_ request: HTTPRequest, provider: String) async throws(FeedError) -> HTTPResponse {
            let body =
                request.url.contains("/quote?symbol=AAPL")
                ? #"{"c":271.49,"d":1.2,"dp":0.44,"h":272.1,"l":269.8,"o":270.0,"pc":270.29,"t":\#(clock.now().seconds)}"#
                : #"{"error":"not recorded"}"#
            return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
        }
    }

    @Test(
        "a US stock quoted by a provider that gives a last price and no book (Yahoo's chart, Finnhub's quote) fills at that price",
        arguments: ["yahoo", "finnhub"])
    func stockWithoutBook(provider: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-rates-\(UUID())").path
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let symbols = try SymbolDirectory.bundled()
        let transport: any HTTPTransport =
            provider == "yahoo"
            ? YahooRatesTransport(["AAPL": "271.4900054931641"], clock: clock) : FinnhubQuoteTransport(clock: clock)
        let configuration = try MarketDataConfiguration.load(
            environment: ["PAPERTRADE_FEED_US": provider, "FINNHUB_API_KEY": "k", "PAPERTRADE_QUOTE_TTL": "0"])
        let feed = configuration.makeFeed(directory: symbols, clock: clock, transport: transport)
        let brokerage = try await Brokerage.open(
            .sqlite(path: directory + "/papertrade.sqlite"), feed: feed, directory: symbols, clock: clock)
        let user = try await brokerage.users.createUser(id: UserID(UUID().uuidString), username: "y", passwordHash: "-")
        let usd = try await brokerage.openAccount(userID: user.id, market: .us, cash: 100_000, name: "dollars")
        do {
            // Before: refused ("no market price for AAPL yet") — the engine saw a quote with no bids or offers.
            let bought = try await brokerage.submit(
                OrderRequest(symbol: "AAPL", side: .buy, type: .market, timeInForce: .day, qty: 10), account: usd.id)
            #expect(bought.status == .filled && bought.filledAvgPrice == Self.d("271.49"), "\(bought.status)")
            // A limit below the last price waits; one at it fills.
            let low = try await brokerage.submit(
                OrderRequest(symbol: "AAPL", side: .sell, type: .limit, timeInForce: .day, qty: 5, limitPrice: 280),
                account: usd.id)
            #expect(low.status == .new || low.status == .accepted)
            let sold = try await brokerage.submit(
                OrderRequest(
                    symbol: "AAPL", side: .sell, type: .limit, timeInForce: .day, qty: 5, limitPrice: Self.d("271.49")),
                account: usd.id)
            #expect(sold.status == .filled)
            let quote = try await brokerage.market.quote("AAPL", reuse: false)
            #expect(quote.bids.isEmpty && quote.asks.isEmpty, "the quote shows no book the provider did not give")
        } catch {
            Issue.record("\(error)")
        }
        await brokerage.shutdown()
    }
}
