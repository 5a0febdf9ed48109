import Testing
import TradingCore

@Suite("Order table")
struct OrderTableTests {
    @Test("a copied engine keeps its own orders: filling an order in one copy leaves the other's open")
    func valueSemantics() throws {
        var f = Fixture()
        let t = Fixture.usMorning
        let order = try f.engine.submit(OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .day, qty: 10,
                                                     limitPrice: 150), account: f.us, at: t)
        let before = f.engine
        f.quote(f.aapl, bid: "149.90", ask: "149.95", at: t.adding(seconds: 1))
        #expect(f.engine.orders[order.id]?.status == .filled)
        #expect(before.orders[order.id]?.status == .new, "the copy taken before the fill still has the open order")
        #expect(before.orders[order.id]?.filledQty == .zero)

        var other = before
        _ = try other.cancel(order.id, account: f.us, at: t.adding(seconds: 2))
        #expect(other.orders[order.id]?.status == .canceled)
        #expect(before.orders[order.id]?.status == .new)
        #expect(f.engine.orders[order.id]?.status == .filled)
    }

    @Test("thousands of orders: every one is found with its own fields")
    func many() throws {
        var f = Fixture(usCash: 10_000_000)
        var ids: [OrderID] = []
        for n in 1...5_000 {
            let o = try f.engine.submit(OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: FixedDecimal(n % 97 + 1),
                                                     limitPrice: 1), account: f.us, at: Fixture.usMorning)
            ids.append(o.id)
        }
        #expect(f.engine.orders.count == 5_000)
        for (i, id) in ids.enumerated() { #expect(f.engine.orders[id]?.qty == FixedDecimal((i + 1) % 97 + 1)) }
    }
}
