import BrokerageModel
import Foundation
import JSON
import Testing
import TradingCore

@testable import Storage

/// The journal's encoder must write what Foundation's `JSONEncoder` would (as a JSON tree) and read back with
/// `JSONDecoder` to the same value — a stored order or account that decoded differently would be silent
/// corruption.
@Suite("Streaming JSON encoder")
struct StreamingJSONEncoderTests {
    static let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    /// The same JSON tree as Foundation's encoder produces.
    func sameTree(_ value: some Encodable) throws -> Bool {
        let ours = try StreamingJSONEncoder.encode(value)
        let theirs = try JSONEncoder().encode(value)
        func canonical(_ data: Data) throws -> Data {
            let tree = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .fragmentsAllowed])
        }
        return try canonical(Data(ours.utf8)) == canonical(theirs)
    }

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try StreamingJSONEncoder.encode(value).utf8))
    }

    /// An engine after a day's work: fills, fees, a bracket with held legs, a trailing stop, a cancel.
    func busyEngine() throws -> (TradingEngine, AccountID) {
        var engine = TradingEngine()
        let aapl = engine.register(.usEquity("AAPL", name: "Apple \"Inc\"\n"))
        let id = AccountID(high: 1, low: 2)
        try engine.openAccount(id, market: .us, startingCash: 100_000)
        engine.apply(.quote(aapl, at: Self.t0, bid: 99, bidSize: 1_000, ask: 100, askSize: 1_000))
        _ = try engine.submit(OrderRequest(symbol: "AAPL", side: .buy, qty: 10), account: id, at: Self.t0)
        _ = try engine.submit(
            OrderRequest(
                symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 5,
                limitPrice: 90, orderClass: .bracket, takeProfit: .init(limitPrice: 120),
                stopLoss: .init(stopPrice: 80)), account: id, at: Self.t0.adding(seconds: 1))
        _ = try engine.submit(
            OrderRequest(
                symbol: "AAPL", side: .sell, type: .trailingStop, timeInForce: .gtc, qty: 2,
                trailPercent: 5), account: id, at: Self.t0.adding(seconds: 2))
        let canceled = try engine.submit(
            OrderRequest(
                symbol: "AAPL", side: .buy, type: .limit, qty: 1, limitPrice: 50,
                clientOrderID: "tab\there"), account: id, at: Self.t0.adding(seconds: 3))
        _ = try engine.cancel(canceled.id, account: id, at: Self.t0.adding(seconds: 4))
        return (engine, id)
    }

    @Test("orders, ledger entries, accounts and the random state encode as Foundation does and decode back equal")
    func engineValues() throws {
        let (engine, id) = try busyEngine()
        var orders: [Order] = []
        var entries: [LedgerEntry] = []
        for event in engine.outbox {
            switch event {
            case .order(let u): orders.append(u.order)
            case .ledger(let e): entries.append(e)
            }
        }
        #expect(orders.count >= 6)
        #expect(orders.contains { $0.parentID != nil })
        #expect(!entries.isEmpty)
        for order in orders {
            #expect(try sameTree(order))
            #expect(try roundTrip(order) == order)
        }
        for entry in entries {
            #expect(try sameTree(entry))
            #expect(try roundTrip(entry) == entry)
        }
        let account = try #require(engine.account(id))
        #expect(!account.positions.isEmpty)
        #expect(try sameTree(account))
        #expect(try roundTrip(account) == account)
        #expect(try roundTrip(engine.randomState) == engine.randomState)
    }

    @Test("an order update's hand-written JSON (a cluster's live event) is byte for byte the encoder's, fills too")
    func storedUpdateJSON() throws {
        let (engine, _) = try busyEngine()
        let updates = engine.outbox.compactMap { event -> OrderUpdate? in
            if case .order(let update) = event { return update } else { return nil }
        }
        #expect(updates.contains { $0.fill != nil } && updates.contains { $0.fill == nil })
        #expect(Set(updates.map(\.event)).count >= 3, "new, fill and canceled at least")
        for update in updates {
            #expect(try update.storedJSON() == (try StreamingJSONEncoder.encode(update)))
            #expect(
                try update.storedJSON(orderJSON: update.order.storedJSON()) == (try StreamingJSONEncoder.encode(update))
            )
            #expect(try Coding.decode(OrderUpdate.self, update.storedJSON()) == update)
        }
    }

    @Test("an order's hand-written stored JSON is byte for byte the encoder's, in every state and with every field set")
    func storedOrderJSON() throws {
        let (engine, _) = try busyEngine()
        var orders = engine.outbox.compactMap { event -> Order? in
            if case .order(let update) = event { return update.order } else { return nil }
        }
        // One order with every optional field set: a field added to `Order` but not to `storedJSON()` shows here.
        var full = try #require(orders.first)
        full.notional = FixedDecimal("1.234")
        full.limitPrice = 101
        full.stopPrice = 99
        full.trailPrice = 2
        full.trailPercent = 5
        full.hwm = 103
        full.filledAt = Self.t0.adding(seconds: 10)
        full.expiredAt = Self.t0.adding(seconds: 11)
        full.canceledAt = Self.t0.adding(seconds: 12)
        full.failedAt = Self.t0.adding(seconds: -13)
        full.replacedAt = Self.t0.adding(seconds: 14)
        full.expiresAt = Self.t0.adding(seconds: 15)
        full.replacedBy = OrderID(high: 7, low: 8)
        full.replaces = OrderID(high: 9, low: 10)
        full.legs = [OrderID(high: 11, low: 12), OrderID(high: 13, low: 14)]
        full.parentID = OrderID(high: 15, low: 16)
        full.reason = "quote \" backslash \\ newline \n control \u{01} 中文"
        full.clientOrderID = "client \"id\"\t😀"
        full.note = "why: \"earnings\", 中文\n"
        let unset = Mirror(reflecting: full).children.filter { child in
            let value = Mirror(reflecting: child.value)
            return value.displayStyle == .optional && value.children.isEmpty
        }
        #expect(unset.isEmpty, "fields left nil in the test order: \(unset.compactMap(\.label))")
        orders.append(full)
        #expect(orders.count >= 7)
        for order in orders {
            #expect(order.storedJSON() == (try StreamingJSONEncoder.encode(order)))
            #expect(try Coding.decode(Order.self, order.storedJSON()) == order)
        }
    }
}

@Suite("Stored formats")
struct StoredFormatTests {
    @Test("timestamps and instrument ids are stored as bare integers; the older object forms still decode")
    func compactForms() throws {
        let t = Timestamp(nanoseconds: 1_795_298_586_815_041_690)
        #expect(try StreamingJSONEncoder.encode(t) == "1795298586815041690")
        #expect(try StreamingJSONEncoder.encode(InstrumentID(12)) == "12")
        let legacy = #"{"t":{"nanoseconds":1795298586815041690},"i":{"index":12}}"#
        struct Row: Codable {
            var t: Timestamp
            var i: InstrumentID
        }
        let row = try JSONDecoder().decode(Row.self, from: Data(legacy.utf8))
        #expect(row.t == t && row.i == InstrumentID(12))
    }

    @Test("order ids print in the canonical 8-4-4-4-12 form and parse back")
    func identifiers() throws {
        let id = Identifier(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(id.description == "01234567-89ab-cdef-fedc-ba9876543210")
        #expect(Identifier(id.description) == id)
        #expect(Identifier(high: 0, low: 1).description == "00000000-0000-0000-0000-000000000001")
    }

    @Test("new ids are version-7 UUIDs that sort by the time they were made")
    func timeOrderedIdentifiers() {
        var rng = SeededGenerator(seed: 1)
        let t = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        let ids = (0..<100).map {
            Identifier.timeOrdered(at: t.adding(nanoseconds: Int64($0) * 1_000_000), using: &rng)
        }
        #expect(ids == ids.sorted())
        #expect(ids.map(\.description) == ids.map(\.description).sorted())
        #expect(ids.allSatisfy { Array($0.description)[14] == "7" && "89ab".contains(Array($0.description)[19]) })
        #expect(Set(ids).count == 100)
        // Milliseconds since 1970 are readable from the first 48 bits.
        #expect(Int64(ids[0].high >> 16) == t.nanoseconds / 1_000_000)
    }

    @Test("ids made one after another only increase: within one clock tick, after the clock went back, across a carry")
    func monotonicIdentifiers() {
        var rng = SeededGenerator(seed: 2)
        let t = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        func isVersion7(_ id: Identifier) -> Bool { id.high & 0xF000 == 0x7000 && id.low >> 62 == 0b10 }
        var previous: Identifier?
        var ids: [Identifier] = []
        // 1,000 ids in the same nanosecond, then 1,000 with the clock 5 ms behind.
        for n in 0..<2_000 {
            let id = Identifier.timeOrdered(
                at: n < 1_000 ? t : t.adding(nanoseconds: -5_000_000), after: previous, using: &rng)
            ids.append(id)
            previous = id
        }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0.description < $1.description })
        #expect(ids.allSatisfy(isVersion7))
        // Sub-millisecond precision: 0.5 ms later is a later id even without `after`.
        let a = Identifier.timeOrdered(at: t, using: &rng)
        let b = Identifier.timeOrdered(at: t.adding(nanoseconds: 500_000), using: &rng)
        #expect(a.high >> 16 == b.high >> 16 && a.high < b.high)
        // The random part full: the step carries into the fraction, and a full fraction into the milliseconds.
        let full = Identifier(high: 0x0000_0000_0001_7ABC, low: 0xBFFF_FFFF_FFFF_FFFF)
        let carried = Identifier.timeOrdered(at: Timestamp(nanoseconds: 0), after: full, using: &rng)
        #expect(carried > full && carried.high == 0x0000_0000_0001_7ABD && isVersion7(carried))
        let fullFraction = Identifier(high: 0x0000_0000_0001_7FFF, low: 0xBFFF_FFFF_FFFF_FFFF)
        let next = Identifier.timeOrdered(at: Timestamp(nanoseconds: 0), after: fullFraction, using: &rng)
        #expect(next > fullFraction && next.high == 0x0000_0000_0002_7000 && isVersion7(next))
    }
}
