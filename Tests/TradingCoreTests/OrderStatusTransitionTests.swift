import Testing
import TradingCore

@Suite("Order status transitions")
struct OrderStatusTransitionTests {
    static let events: [OrderUpdate.Event] = [
        .new, .fill, .canceled, .expired, .replaced, .rejected, .partialFill,
        .doneForDay, .pendingNew, .held,
    ]

    @Test("a terminal status never changes again", arguments: OrderStatus.allCases.filter(\.isTerminal))
    func terminal(status: OrderStatus) {
        #expect(Self.events.compactMap { status.after($0) }.isEmpty)
    }

    @Test("the engine's lifecycle: new → partially filled → filled; held → new; any open order can be canceled")
    func lifecycle() {
        #expect(OrderStatus.new.after(.partialFill) == .partiallyFilled)
        #expect(OrderStatus.partiallyFilled.after(.partialFill) == .partiallyFilled)
        #expect(OrderStatus.partiallyFilled.after(.fill) == .filled)
        #expect(OrderStatus.new.after(.fill) == .filled)
        #expect(OrderStatus.held.after(.new) == .new)
        for status in OrderStatus.allCases where status.isOpen {
            #expect(status.after(.canceled) == .canceled, "\(status) can be canceled")
        }
    }

    @Test("what cannot happen: a held exit leg does not fill; a working order does not go back to held or pending")
    func refused() {
        #expect(OrderStatus.held.after(.fill) == nil)
        #expect(OrderStatus.held.after(.partialFill) == nil)
        #expect(OrderStatus.new.after(.held) == nil)
        #expect(OrderStatus.new.after(.pendingNew) == nil)
        #expect(OrderStatus.partiallyFilled.after(.new) == nil)
        #expect(OrderStatus.pendingNew.after(.fill) == nil, "an order the venue has not acknowledged cannot fill")
    }

    @Test(
        "the engine moves statuses only along the table: a bracket's legs wait held, then work, then one cancels the other"
    )
    func engineFollowsTable() throws {
        var f = Fixture()
        let t = Fixture.usMorning
        f.quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        let request = OrderRequest(
            symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 10,
            limitPrice: d("100.00"), orderClass: .bracket,
            takeProfit: .init(limitPrice: d("110.00")),
            stopLoss: .init(stopPrice: d("90.00")))
        _ = try f.engine.submit(request, account: f.us, at: t)
        f.quote(f.aapl, bid: "110.00", ask: "110.01", size: 100, at: t.adding(seconds: 60))
        var statuses: [OrderID: OrderStatus] = [:]
        var seen: [OrderStatus] = []
        for case .order(let update) in f.engine.outbox {
            let id = update.order.id
            if let previous = statuses[id] {
                #expect(
                    previous.after(update.event) == update.order.status,
                    "\(previous) on \(update.event) gave \(update.order.status)")
            } else {
                #expect([.new, .held].contains(update.order.status), "an order starts new or held")
            }
            statuses[id] = update.order.status
            seen.append(update.order.status)
        }
        #expect(Set(statuses.values) == [.filled, .canceled], "entry and take-profit filled, the stop loss canceled")
        #expect(seen.contains(.held))
    }
}
