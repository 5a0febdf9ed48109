// Memory per account and per order, in process: prints figures, asserts nothing.
//
//   swift run -c release MemoryBench [orders per round (default 20000)]
//
// A brokerage on SQLite (the always-open clock, one shard owner) with the heap measured by glibc's `mallinfo2` (bytes
// in use: what the process holds for data, not what the allocator keeps free) after each step:
//   accounts   — 1,000 users with a US account each: bytes per account.
//   open       — a round of resting limit orders left open: bytes per open order (data: the book holds them).
//   canceled   — the same orders canceled: what an order leaves behind once it is closed.
//   churn      — four rounds of orders placed and canceled at once, then four of market orders that fill: the growth
//                per order from round to round. Issue 62's question: does memory follow what is open, or everything
//                ever placed? (It should level off after the first round of each kind: the books, the order tables
//                and the journal's buffers reach their size; what remains is `ClosedClientOrderIDs`' few seconds.)
import Brokerage
import Foundation
import HeapInfo
import MarketData
import TradingCore

let perRound = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000

/// Bytes the program has allocated and not freed (glibc's mallinfo2: chunks in use in every arena, mmapped blocks).
func heapBytes() -> Int { Int(papertrade_heap().in_use) }

func line(_ what: String, _ before: Int, _ after: Int, per count: Int, unit: String) {
    let delta = after - before
    print(
        "  \(what.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%+9.1f", Double(delta) / 1_048_576)) MB"
            + "  \(String(format: "%8.0f", Double(delta) / Double(max(1, count)))) B per \(unit)"
            + "   (heap \(String(format: "%.1f", Double(after) / 1_048_576)) MB)")
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-memory-bench-\(UUID())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let symbols = try SymbolDirectory.bundled()
let clock = MarketClock(.alwaysOpen)
let market = SimulatedMarket(
    directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
let brokerage = try await Brokerage.open(
    .sqlite(path: directory.path + "/papertrade.sqlite"), feed: SimulatedFeed(market: market, clock: clock),
    directory: symbols, clock: clock, shardOwners: 1)
print("memory in use (glibc mallinfo2), \(perRound) orders a round")

// Accounts.
var accounts: [AccountID] = []
let warm = try await brokerage.users.createUser(id: UserID(UUID().uuidString), username: "warm", passwordHash: "-")
accounts.append(try await brokerage.openAccount(userID: warm.id, market: .us, cash: 1_000_000_000, name: "warm").id)
var before = heapBytes()
for n in 0..<1_000 {
    let user = try await brokerage.users.createUser(id: UserID(UUID().uuidString), username: "u\(n)", passwordHash: "-")
    accounts.append(try await brokerage.openAccount(userID: user.id, market: .us, cash: 1_000_000, name: "a").id)
}
line("1,000 users with an account", before, heapBytes(), per: 1_000, unit: "account")

let everyAccount = accounts

/// Places `count` orders over the accounts, 64 at a time; `cancel` cancels each at once.
func round(_ count: Int, type: OrderType, cancel: Bool) async -> [(OrderID, AccountID)] {
    await withTaskGroup(of: [(OrderID, AccountID)].self) { group in
        for lane in 0..<64 {
            group.addTask {
                var placed: [(OrderID, AccountID)] = []
                for n in stride(from: lane, to: count, by: 64) {
                    let account = everyAccount[n % everyAccount.count]
                    let request = OrderRequest(
                        symbol: ["AAPL", "MSFT", "KO", "IBM"][n % 4], side: .buy, type: type, timeInForce: .day,
                        qty: 1, limitPrice: type == .limit ? 1 : nil)
                    guard let order = try? await brokerage.submit(request, account: account) else { continue }
                    if cancel { _ = try? await brokerage.cancel(order.id, account: account) }
                    placed.append((order.id, account))
                }
                return placed
            }
        }
        var all: [(OrderID, AccountID)] = []
        for await part in group { all += part }
        return all
    }
}

// Open orders, then the same canceled.
_ = await round(2_000, type: .limit, cancel: true) // (warms the books, the journal and the statements)
before = heapBytes()
let open = await round(perRound, type: .limit, cancel: false)
let withOpen = heapBytes()
line("\(open.count) resting limit orders", before, withOpen, per: open.count, unit: "open order")
await withTaskGroup(of: Void.self) { group in
    for lane in 0..<64 {
        group.addTask {
            for (id, account) in open[lane...].enumerated().filter({ $0.offset % 64 == 0 }).map(\.element) {
                _ = try? await brokerage.cancel(id, account: account)
            }
        }
    }
}
line("the same canceled", before, heapBytes(), per: open.count, unit: "order placed")

// Churn: each round's growth is measured from the end of the round before (a round's own start can catch the heap
// low, between a commit's buffers).
var last = heapBytes()
let rounds: [(OrderType, Bool)] =
    Array(repeating: (.limit, true), count: 4) + Array(repeating: (.market, false), count: 4)
for (n, (type, cancel)) in rounds.enumerated() {
    let placed = await round(perRound, type: type, cancel: cancel)
    let now = heapBytes()
    line(
        "round \(n + 1): \(placed.count) \(type == .limit ? "placed and canceled" : "market, filled")", last, now,
        per: placed.count, unit: "order")
    last = now
}
await brokerage.shutdown()
