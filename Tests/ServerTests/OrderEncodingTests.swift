import JSON
import MarketData
import Testing
import TradingCore

@testable import Server

@Suite("Alpaca order JSON")
struct OrderEncodingTests {
    @Test("the placement answer's byte writer writes exactly the JSON value's bytes, with every field set or unset")
    func byteWriterMatchesValue() throws {
        var engine = TradingEngine()
        let aapl = engine.register(.usEquity("AAPL", name: "Apple"))
        let account = AccountID(high: 1, low: 2)
        try engine.openAccount(account, market: .us, startingCash: 100_000)
        let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        engine.apply(.quote(aapl, at: t0, bid: 99, bidSize: 1_000, ask: 100, askSize: 1_000))
        let market = try engine.submit(OrderRequest(symbol: "AAPL", side: .buy, qty: 3), account: account, at: t0)
        let resting = try engine.submit(
            OrderRequest(
                symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1,
                limitPrice: 50, clientOrderID: "quote \" and \\ 中文"), account: account, at: t0)
        var orders = [try #require(engine.order(market.id)), try #require(engine.order(resting.id))]
        var full = orders[1]
        full.notional = try FixedDecimal(parsing: "12.5")
        full.stopPrice = 49
        full.trailPrice = 2
        full.trailPercent = 5
        full.hwm = 51
        full.filledQty = 1
        full.filledValue = try FixedDecimal(parsing: "49.123456789")
        full.filledAt = t0.adding(seconds: 1)
        full.expiredAt = t0.adding(seconds: 2)
        full.canceledAt = t0.adding(seconds: 3)
        full.failedAt = t0.adding(seconds: 4)
        full.replacedAt = t0.adding(nanoseconds: 5)
        full.expiresAt = t0.adding(seconds: 6)
        full.replacedBy = OrderID(high: 3, low: 4)
        full.replaces = OrderID(high: .max, low: 0)
        full.reason = "insufficient\nfunds"
        full.positionIntent = .sellToOpen
        full.note = "a \"journal\" note"
        orders.append(full)
        for order in orders {
            #expect(
                String(decoding: AlpacaEncoding.orderBytes(order), as: UTF8.self)
                    == AlpacaEncoding.order(order).serialized)
        }
        // Every field the JSON value has, the writer has, and they are all set in `full` except the always-null ones.
        let value = try #require(AlpacaEncoding.order(full).object)
        let alwaysNull: Set = ["legs", "source", "subtag", "ratio_qty"]
        #expect(value.filter { $0.value == .null }.keys.sorted() == alwaysNull.sorted())
    }
}
