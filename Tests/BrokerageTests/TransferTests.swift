import BrokerageModel
import Foundation
import MarketData
import Storage
import Testing
import TradingCore

@testable import Brokerage

/// Money moved between a user's accounts (`Transfers`): converted at USD.CNH's live bid or ask, both ledgers
/// reconciling to the cent, refusals that move nothing, and a credit made exactly once — also when the process dies
/// between the debit and the credit.
@Suite("Transfers between a user's accounts")
struct TransferTests {
    /// The fixture's user with a second, A-share account (on another shard: new accounts go to the emptiest).
    static func withYuanAccount(
        at time: Timestamp = BrokerageFixture.morning,
        _ body: (BrokerageFixture, AccountID) async throws -> Void
    ) async throws {
        let f = try await BrokerageFixture.make(at: time)
        do {
            let cn = try await f.brokerage.openAccount(userID: f.userID, market: .cn, cash: 500_000, name: "A股")
            try await body(f, cn.id)
        } catch {
            await f.brokerage.shutdown()
            throw error
        }
        await f.brokerage.shutdown()
    }

    /// The account's cash as the engine holds it, and as its ledger folds.
    static func cash(_ f: BrokerageFixture, _ id: AccountID) async throws -> (live: FixedDecimal, ledger: FixedDecimal)
    {
        let account = try await f.brokerage.account(id)
        let entries = try await f.brokerage.activities(id, limit: 10_000, ascending: true)
        return (account.cash, LedgerReplay(startingCash: account.startingCash, entries: entries).cash)
    }

    @Test(
        "dollars to yuan and back through the brokerage: both ledgers move by exactly the amounts, at USD.CNH's bid then ask (odd lots wider), at several hours of the forex day",
        arguments: [
            (Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork), "30000.00"),
            (Timestamp(CivilDate(2026, 11, 18), hour: 3, in: .newYork), "125.37"),
            (Timestamp(CivilDate(2026, 11, 16), hour: 18, in: .newYork), "99999.99"),
            (Timestamp(CivilDate(2026, 11, 15), hour: 19, minute: 30, in: .newYork), "25000.00"),
        ])
    func conversion(at time: Timestamp, amount text: String) async throws {
        try await Self.withYuanAccount(at: time) { f, cn in
            let amount = try #require(FixedDecimal(text))
            let usdBefore = try await Self.cash(f, f.account), cnyBefore = try await Self.cash(f, cn)
            let quote = try await f.brokerage.market.quote("USD.CNH", reuse: false)
            let bid = try #require(quote.bids.best?.price), ask = try #require(quote.asks.best?.price)
            let t = try await f.brokerage.transfers.transfer(
                user: f.userID, from: f.account, to: cn, amount: amount, currency: .usd
            ).record
            #expect(t.status == .completed && t.completedAt != nil)
            #expect(t.from.amount == amount && t.from.currency == .usd && t.to.currency == .cny)
            #expect(t.pricing.pair == "USD.CNH")
            // Dollars sold for yuan at the bid — or, under USD 25,000, the odd-lot venue's wider bid.
            let odd = amount < 25_000
            #expect(t.pricing.oddLot == odd)
            if odd {
                #expect(t.pricing.pairPrice! < bid)
            } else {
                #expect(t.pricing.pairPrice == bid)
            }
            #expect(t.to.amount == amount.multiplied(by: t.pricing.pairPrice!, places: 2, rule: .down))
            let usdAfter = try await Self.cash(f, f.account), cnyAfter = try await Self.cash(f, cn)
            #expect(usdAfter.live == usdBefore.live - amount && usdAfter.ledger == usdAfter.live)
            #expect(cnyAfter.live == cnyBefore.live + t.to.amount && cnyAfter.ledger == cnyAfter.live)
            // Each side's ledger names the transfer, the other account, its amount and the rate.
            let debit = try #require(try await f.brokerage.activities(f.account, limit: 1).first)
            let credit = try #require(try await f.brokerage.activities(cn, limit: 1).first)
            guard case .transfer(let out) = debit.kind, case .transfer(let into) = credit.kind else {
                Issue.record("no transfer entries: \(debit.kind) / \(credit.kind)")
                return
            }
            #expect(out.transferID == t.id && out.direction == .out && out.counterparty == cn)
            #expect(out.counterpartyAmount == t.to.amount && out.counterpartyCurrency == .cny)
            #expect(into.direction == .in && into.counterparty == f.account && into.counterpartyAmount == amount)
            #expect(debit.cashChange == -amount && credit.cashChange == t.to.amount)
            // And back: the yuan buy dollars at the ask.
            let back = try await f.brokerage.transfers.transfer(
                user: f.userID, from: cn, to: f.account, amount: t.to.amount, currency: .cny
            ).record
            #expect(back.status == .completed && back.to.currency == .usd)
            #expect(back.pricing.pairPrice! >= ask)
            let lost = amount - back.to.amount
            #expect(lost.isPositive, "a round trip costs the spreads")
            let usdEnd = try await Self.cash(f, f.account), cnyEnd = try await Self.cash(f, cn)
            #expect(usdEnd.live == usdBefore.live - lost && usdEnd.ledger == usdEnd.live)
            #expect(cnyEnd.live == cnyBefore.live && cnyEnd.ledger == cnyEnd.live)
            // The user's list, newest first; one of them by id.
            let list = try await f.brokerage.transfers.list(user: f.userID, limit: 10)
            #expect(Set(list.map(\.id)) == [t.id, back.id] && list.allSatisfy { $0.status == .completed })
            #expect(try await f.brokerage.transfers.transfer(t.id, user: f.userID).to.amount == t.to.amount)
        }
    }

    @Test(
        "refusals move nothing: the same account, another user's, past the buying power, a third currency, a fraction of a cent, a conversion at the weekend"
    )
    func refusals() async throws {
        let saturday = Timestamp(CivilDate(2026, 11, 21), hour: 12, in: .newYork)
        for time in [BrokerageFixture.morning, saturday] {
            try await Self.withYuanAccount(at: time) { f, cn in
                let stranger = try await f.brokerage.users.createUser(
                    id: UserID(UUID().uuidString), username: "other", passwordHash: "-")
                let theirs = try await f.brokerage.openAccount(userID: stranger.id, market: .us, cash: 1_000, name: "x")
                let before = (try await Self.cash(f, f.account).live, try await Self.cash(f, cn).live)
                let t = f.brokerage.transfers
                func refused(_ from: AccountID, _ to: AccountID, _ amount: String, _ currency: Currency?) async
                    -> BrokerageError?
                {
                    do {
                        _ = try await t.transfer(
                            user: f.userID, from: from, to: to, amount: FixedDecimal(amount)!, currency: currency)
                        return nil
                    } catch { return error }
                }
                #expect(
                    await refused(f.account, f.account, "10", nil).map { if case .invalid = $0 { true } else { false } }
                        == true)
                #expect(
                    await refused(f.account, theirs.id, "10", nil).map {
                        if case .notFound = $0 { true } else { false }
                    } == true)
                #expect(
                    await refused(theirs.id, f.account, "10", nil).map {
                        if case .notFound = $0 { true } else { false }
                    } == true)
                #expect(
                    await refused(f.account, cn, "10", .eur).map { if case .invalid = $0 { true } else { false } }
                        == true)
                #expect(
                    await refused(f.account, cn, "10.001", .usd).map { if case .invalid = $0 { true } else { false } }
                        == true)
                #expect(
                    await refused(f.account, cn, "-5", .usd).map { if case .invalid = $0 { true } else { false } }
                        == true)
                let over = await refused(f.account, cn, "100000.01", .usd)
                if time == saturday {
                    // At the weekend the forex market is closed: the conversion is refused before the balance is looked at.
                    guard case .rejected(let r) = over else {
                        Issue.record("\(String(describing: over))")
                        return
                    }
                    #expect(r.reason == .marketClosed && r.message.contains("Sunday 17:00"))
                } else {
                    guard case .rejected(let r) = over else {
                        Issue.record("\(String(describing: over))")
                        return
                    }
                    #expect(r.reason == .insufficientBuyingPower)
                }
                let after = (try await Self.cash(f, f.account).live, try await Self.cash(f, cn).live)
                #expect(after.0 == before.0 && after.1 == before.1)
                #expect(try await t.list(user: f.userID, limit: 10).isEmpty)
                // Between two dollar accounts no conversion is needed: open at the weekend too.
                let second = try await f.brokerage.openAccount(userID: f.userID, market: .us, cash: 0, name: "savings")
                let moved = try await t.transfer(
                    user: f.userID, from: f.account, to: second.id, amount: 1_234, currency: nil
                ).record
                #expect(moved.status == .completed && moved.to.amount == 1_234 && moved.pricing == .none)
                #expect(try await Self.cash(f, second.id).live == 1_234)
            }
        }
    }

    @Test(
        "a process that dies between the debit and the credit: the transfer is credited once when the server comes back, however many passes and concurrent credits look at it"
    )
    func exactlyOnceAcrossACrash() async throws {
        let f = try await BrokerageFixture.make()
        let cn = try await f.brokerage.openAccount(userID: f.userID, market: .cn, cash: 0, name: "A股")
        let quote = try await f.brokerage.transfers.quote(
            user: f.userID, from: f.account, to: cn.id, amount: 40_000, currency: .usd)
        let record = TransferRecord(
            id: TransferID(Identifier.random(using: &SeededGenerator.testing)), userID: f.userID,
            from: TransferSide(account: f.account, name: "test", amount: quote.fromAmount, currency: .usd),
            to: TransferSide(account: cn.id, name: "A股", amount: quote.toAmount, currency: .cny),
            toShard: cn.shard.index, pricing: quote.pricing, status: .pending, createdAt: quote.time)
        // The debit commits; the process "dies" before the credit.
        #expect(try await f.brokerage.router.route(f.account).debitTransfer(record).made)
        await f.brokerage.shutdown()

        let clock = f.clock
        let symbols = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
        let again = try await Brokerage.open(
            .sqlite(path: f.path), feed: SimulatedFeed(market: market, clock: clock), directory: symbols, clock: clock)
        #expect(try await again.transfers.transfer(record.id, user: f.userID).status == .pending)
        #expect(try await again.account(cn.id).cash == 0)
        // Several settlement passes and credits at once: exactly one credits it.
        let credited = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { await again.transfers.creditPending() } }
            group.addTask { (try? await again.router.route(cn.id).creditTransfer(record)) == true ? 1 : 0 }
            return await group.reduce(0, +)
        }
        #expect(credited == 1)
        #expect(await again.transfers.creditPending() == 0)
        #expect(try await again.account(cn.id).cash == quote.toAmount)
        #expect(try await again.account(f.account).cash == 100_000 - 40_000)
        let stored = try await again.transfers.transfer(record.id, user: f.userID)
        #expect(stored.status == .completed)
        let entries = try await again.activities(cn.id, limit: 100)
        #expect(entries.filter { if case .transfer = $0.kind { true } else { false } }.count == 1)
        await again.shutdown()
    }
}

extension TransferTests {
    @Test(
        "a client's transfer id makes a retry safe: retried, even eight at once, one transfer is made and answered to every retry; the same id for another transfer is a conflict"
    )
    func clientTransferID() async throws {
        try await Self.withYuanAccount { f, cn in
            let t = f.brokerage.transfers
            let before = try await Self.cash(f, f.account).live
            let first = try await t.transfer(
                user: f.userID, from: f.account, to: cn, amount: 30_000, currency: .usd,
                clientTransferID: "rent-2026-11")
            #expect(first.made && first.record.clientTransferID == "rent-2026-11")
            let again = try await t.transfer(
                user: f.userID, from: f.account, to: cn, amount: 30_000, currency: .usd,
                clientTransferID: "rent-2026-11")
            #expect(!again.made && again.record.id == first.record.id && again.record.status == .completed)
            // Eight retries of a new id at once: one makes it; each other finds it made or being made.
            let answers = await withTaskGroup(of: Result<(TransferRecord, Bool), BrokerageError>.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            let r = try await t.transfer(
                                user: f.userID, from: f.account, to: cn, amount: 1_000, currency: .usd,
                                clientTransferID: "savings")
                            return .success((r.record, r.made))
                        } catch let error as BrokerageError { return .failure(error) } catch {
                            return .failure(.unavailable("\(error)"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let made = answers.compactMap { if case .success(let r) = $0, r.1 { r.0 } else { nil } }
            #expect(made.count == 1)
            for answer in answers {
                switch answer {
                case .success(let r): #expect(r.0.id == made.first?.id)
                case .failure(let e):
                    guard case .conflict = e else {
                        Issue.record("\(e)")
                        continue
                    }
                }
            }
            #expect(try await Self.cash(f, f.account).live == before - 31_000)
            #expect(try await t.list(user: f.userID, limit: 10).count == 2)
            // The same id for another amount or account: refused, nothing moves.
            do {
                _ = try await t.transfer(
                    user: f.userID, from: f.account, to: cn, amount: 999, currency: .usd, clientTransferID: "savings")
                Issue.record("a reused id made another transfer")
            } catch let error as BrokerageError {
                guard case .conflict = error else {
                    Issue.record("\(error)")
                    return
                }
            }
            #expect(try await Self.cash(f, f.account).live == before - 31_000)
        }
    }
}

extension SeededGenerator {
    nonisolated(unsafe) static var testing = SeededGenerator(seed: 0x7EA5)
}
