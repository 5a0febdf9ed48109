// Shard benchmark: prints figures, asserts nothing.
//
//   swift run -c release ShardBench [seconds per run]      (or bash scripts/bench.sh)
//
// Order commands per second through the brokerage front with 1, 2, 4 and 8 shard owners over the 64 virtual shards:
// 64 accounts (one per shard), 64 concurrent clients, each placing a resting limit order and canceling it, over and
// over. Two runs per owner count:
//   engine   — routing and the shards' engine steps, each step acknowledged at once by a journal writer that keeps
//              nothing: what the shards themselves sustain. Expect it to grow with the owners up to the cores.
//   durable  — the same with the group-commit journal on SQLite: every command acknowledged only once durable, as
//              through the HTTP surfaces. It flattens at what one SQLite writer commits, whatever the owners.
import Brokerage
import Foundation
import MarketData
import TradingCore

/// Acknowledges every step at once and keeps nothing: the engine's own throughput, without the writer.
struct AcknowledgingJournal: JournalWriter {
    func enqueue(_ journal: Journal, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) throws {
        completion(.success(()))
    }
}

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 4
let wall = ContinuousClock()
let symbols = try SymbolDirectory.bundled()
let cores = ProcessInfo.processInfo.activeProcessorCount
print("order commands/s through the brokerage, 64 accounts × 1 client each, \(cores) cores, \(Int(seconds)) s a run")

enum Mode: String, CaseIterable { case engine, durable }

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

for mode in Mode.allCases {
    for owners in [1, 2, 4, 8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "papertrade-shard-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = MarketClock(.alwaysOpen)
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
        var checkpoints = CheckpointPolicy()
        checkpoints.preallocateWAL = true
        let brokerage = try await Brokerage.open(
            .sqlite(path: directory.path + "/papertrade.sqlite"), checkpoints: checkpoints,
            feed: SimulatedFeed(market: market, clock: clock), directory: symbols, clock: clock, shardOwners: owners,
            journal: mode == .engine ? AcknowledgingJournal() : nil)
        let user = try await brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "bench", passwordHash: "-")
        var accounts: [AccountID] = []
        for n in 0..<64 {
            accounts.append(
                try await brokerage.openAccount(userID: user.id, market: .us, cash: 10_000_000, name: "bench \(n)").id)
        }
        let deadline = wall.now + .milliseconds(Int(seconds * 1000))
        let started = wall.now
        let latencies = await withTaskGroup(of: [Double].self) { group in
            for (n, account) in accounts.enumerated() {
                group.addTask {
                    var latencies: [Double] = []
                    let symbol = ["AAPL", "MSFT", "KO", "IBM"][n % 4]
                    while wall.now < deadline {
                        let t0 = wall.now
                        guard
                            let order = try? await brokerage.submit(
                                OrderRequest(
                                    symbol: symbol, side: .buy, type: .limit, timeInForce: .day, qty: 1, limitPrice: 1),
                                account: account)
                        else { continue }
                        let t1 = wall.now
                        _ = try? await brokerage.cancel(order.id, account: account)
                        let t2 = wall.now
                        latencies += [milliseconds(t1 - t0), milliseconds(t2 - t1)]
                    }
                    return latencies
                }
            }
            var all: [Double] = []
            for await part in group { all += part }
            return all.sorted()
        }
        let elapsed = milliseconds(wall.now - started) / 1000
        await brokerage.shutdown()
        let p = { (q: Double) in
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))]
        }
        print(
            "  \(mode.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(owners) owner\(owners == 1 ? " " : "s"): \(String(format: "%9.0f", Double(latencies.count) / elapsed)) commands/s"
                + "   p50 \(String(format: "%6.2f", p(0.5))) ms   p99 \(String(format: "%6.2f", p(0.99))) ms")
    }
}
