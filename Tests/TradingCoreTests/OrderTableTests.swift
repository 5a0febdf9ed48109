import Foundation
import Testing
import TradingCore

@Suite("Order table")
struct OrderTableTests {
    @Test("a copied engine keeps its own orders: filling an order in one copy leaves the other's open")
    func valueSemantics() throws {
        var f = Fixture()
        let t = Fixture.usMorning
        let order = try f.engine.submit(
            OrderRequest(
                symbol: "AAPL", side: .buy, type: .limit, timeInForce: .day, qty: 10,
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

    @Test("an order is a value: an event's copy keeps the order as it was when published")
    func orderValueSemantics() throws {
        var f = Fixture()
        let t = Fixture.usMorning
        let placed = try f.engine.submit(
            OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .day, qty: 10, limitPrice: 150),
            account: f.us, at: t)
        f.quote(f.aapl, bid: "149.90", ask: "149.95", at: t.adding(seconds: 1))
        let updates = f.engine.outbox.compactMap { if case .order(let u) = $0 { u } else { nil } }
        #expect(updates.map(\.event) == [.new, .fill])
        #expect(updates[0].order.status == .new && updates[0].order.filledQty == .zero)
        #expect(updates[1].order.status == .filled && updates[1].order.filledQty == 10)
        #expect(placed.status == .new, "the order submit returned is not changed by the later fill")

        var copy = updates[1].order
        copy.reason = "changed in the copy"
        #expect(f.engine.orders[placed.id]?.reason == nil && updates[1].order.reason == nil)
        #expect(copy != updates[1].order && updates[1].order == f.engine.orders[placed.id])
    }

    @Test(
        "an account is a value too: a copy taken before a fill keeps its balances; changing a copy changes nothing else"
    )
    func accountValueSemantics() throws {
        var f = Fixture()
        let t = Fixture.usMorning
        let before = try #require(f.engine.account(f.us))
        f.quote(f.aapl, bid: "149.90", ask: "149.95", at: t)
        _ = try f.engine.submit(
            OrderRequest(symbol: "AAPL", side: .buy, type: .market, timeInForce: .day, qty: 10), account: f.us, at: t)
        let after = try #require(f.engine.account(f.us))
        #expect(before.cash == 100_000 && before.positions.isEmpty)
        #expect(after.cash == d("98500.50") && after.positions[f.aapl]?.qty == 10)

        var copy = after
        copy.cash = 1
        copy.positions[f.aapl]?.qty = 99
        #expect(f.engine.account(f.us) == after && f.engine.account(f.us)?.cash == d("98500.50"))
        #expect(f.engine.account(f.us)?.positions[f.aapl]?.qty == 10 && copy != after)
        // The stored form is the fields, as before the accounts were copy-on-write.
        let decoded = try JSONDecoder().decode(Account.self, from: JSONEncoder().encode(after))
        #expect(decoded == after && decoded.hashValue == after.hashValue)
    }

    @Test("thousands of orders: every one is found with its own fields")
    func many() throws {
        var f = Fixture(usCash: 10_000_000)
        var ids: [OrderID] = []
        for n in 1...5_000 {
            let o = try f.engine.submit(
                OrderRequest(
                    symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: FixedDecimal(n % 97 + 1),
                    limitPrice: 1), account: f.us, at: Fixture.usMorning)
            ids.append(o.id)
        }
        #expect(f.engine.orders.count == 5_000)
        for (i, id) in ids.enumerated() { #expect(f.engine.orders[id]?.qty == FixedDecimal((i + 1) % 97 + 1)) }
    }
}

@Suite("Sharded dictionary")
struct ShardedDictionaryTests {
    @Test("behaves as a dictionary: insert, overwrite, remove, count; equality ignores insertion order")
    func asDictionary() {
        var sharded = ShardedDictionary<String, Int>()
        var plain: [String: Int] = [:]
        var generator = SeededGenerator(seed: 7)
        for n in 0..<20_000 {
            let key = "client-\(generator.next() % 5_000)"
            if n % 5 == 0 {
                sharded[key] = nil
                plain[key] = nil
            } else {
                sharded[key] = n
                plain[key] = n
            }
        }
        #expect(sharded.count == plain.count)
        #expect(plain.allSatisfy { sharded[$0.key] == $0.value })
        #expect(sharded["absent"] == nil)
        #expect(Dictionary(uniqueKeysWithValues: sharded.entries.map { ($0.key, $0.value) }) == plain)
        var reversed = ShardedDictionary<String, Int>()
        for (key, value) in plain.sorted(by: { $0.key > $1.key }) { reversed[key] = value }
        #expect(reversed == sharded)
        #expect(reversed.hashValue == sharded.hashValue)
        reversed["client-1"] = -1
        #expect(reversed != sharded)
        // Emptied (shards made) and never filled (none made) are the same value.
        var emptied: ShardedDictionary<String, Int> = ["a": 1]
        emptied["a"] = nil
        #expect(emptied == [:] && emptied.hashValue == ShardedDictionary<String, Int>().hashValue)
        #expect(emptied != ["a": 1] && ["a": 1] != ShardedDictionary<String, Int>())
    }

    @Test("spreads order ids and client order ids over its shards")
    func spread() {
        var generator = SeededGenerator(seed: 11)
        var orderShards = Set<Int>()
        var clientShards = Set<Int>()
        for n in 0..<2_000 {
            orderShards.insert(
                Identifier.timeOrdered(at: Timestamp(nanoseconds: Int64(n)), using: &generator).shard & 63)
            clientShards.insert("order-\(n)".shard & 63)
        }
        #expect(orderShards.count == 64)
        #expect(clientShards.count == 64)
    }
}

struct ShardedSetTests {
    @Test("behaves as a set: insert, contains, remove, count, iteration sees every element once")
    func asSet() {
        var rng = SeededGenerator(seed: 3)
        var sharded = ShardedSet<OrderID>()
        let absent = sharded.remove(OrderID(high: 1, low: 1))
        #expect(sharded.isEmpty && !sharded.contains(OrderID(high: 1, low: 1)) && absent == nil)
        var plain = Set<OrderID>()
        for _ in 0..<5_000 {
            let id = OrderID(.random(using: &rng))
            let inserted = sharded.insert(id)
            #expect(inserted)
            plain.insert(id)
        }
        let again = sharded.insert(plain.first!)
        #expect(!again)
        #expect(sharded.count == 5_000 && Set(sharded) == plain && Array(sharded).count == 5_000)
        for id in plain.prefix(1_000) {
            let removed = sharded.remove(id)
            #expect(removed == id)
        }
        #expect(sharded.count == 4_000 && plain.prefix(1_000).allSatisfy { !sharded.contains($0) })
        #expect(plain.dropFirst(1_000).allSatisfy { sharded.contains($0) })
    }
}
