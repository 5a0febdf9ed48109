import BrokerageModel
import Foundation
import MarketData
import Storage
import TradingCore

@testable import Brokerage

/// A brokerage on a fresh SQLite file, driven directly (no HTTP): a manual clock inside the US session, the
/// simulated market, one user with a USD account.
struct BrokerageFixture {
    let brokerage: Brokerage
    let path: String
    let clock: MarketClock
    let userID: UserID
    let account: AccountID

    static let morning = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    static func make(at time: Timestamp = morning, cash: FixedDecimal = 100_000) async throws -> BrokerageFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-brokerage-\(UUID())")
            .path
        let path = directory + "/papertrade.sqlite"
        let clock = MarketClock(.manual(start: time))
        let symbols = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
        let brokerage = try await Brokerage.open(
            .sqlite(path: path), feed: SimulatedFeed(market: market, clock: clock),
            directory: symbols, clock: clock)
        let user = try await brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "trader", passwordHash: "-")
        let account = try await brokerage.openAccount(userID: user.id, market: .us, cash: cash, name: "test")
        return BrokerageFixture(brokerage: brokerage, path: path, clock: clock, userID: user.id, account: account.id)
    }

    /// Runs a test on a fresh brokerage and always closes its database.
    static func with(cash: FixedDecimal = 100_000, _ body: (BrokerageFixture) async throws -> Void) async throws {
        let f = try await make(cash: cash)
        do {
            try await body(f)
        } catch {
            await f.brokerage.shutdown()
            throw error
        }
        await f.brokerage.shutdown()
    }

    /// The brokerage started again on the same database (the first shut down): what a restart finds.
    func reopen() async throws -> Brokerage {
        let symbols = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
        return try await Brokerage.open(
            .sqlite(path: path), feed: SimulatedFeed(market: market, clock: clock), directory: symbols, clock: clock)
    }

    /// A second connection to the same database: what it reads is committed, not just in the brokerage's memory.
    func independentStorage() async throws -> Storage {
        try await Storage.open(.sqlite(path: path))
    }

    /// The account as the engine holds it.
    func state() async -> Account? { try? await brokerage.account(account) }
}
