import BrokerageModel
import Foundation
import MarketData
import Testing
import TradingCore

@testable import Brokerage

@Suite("Class teams' notifications")
struct TeamNoticeTests {
    static let buy = OrderRequest(symbol: "AAPL", side: .buy, type: .market, timeInForce: .day, qty: 1)

    /// How many fill notifications of `account` each of `users` has.
    static func fills(_ brokerage: Brokerage, of account: AccountID, users: [UserID]) async throws -> [Int] {
        var counts: [Int] = []
        for user in users {
            let told = try await brokerage.notifications.recent(user: user).items
            counts.append(told.count { $0.kind == "fill" && $0.accountID == account })
        }
        return counts
    }

    @Test(
        "every member of a team is told of its account's fills, also after a restart (the shard reads the members from the roster); disbanded, only the owner is"
    )
    func membersAreToldAfterARestart() async throws {
        let f = try await BrokerageFixture.make()
        let (classID, team, members): (ClassID, ClassTeam, [UserID])
        do {
            let classes = f.brokerage.classes
            var settings = GameSettings(startingCash: 100_000)
            settings.rules.shortSelling = false // (a cash account's game)
            let made = try await classes.create(
                teacher: f.userID, name: "Period 3", market: .us, settings: settings)
            let roster = try RosterImport.parse("username,display_name\nann,Ann\nben,Ben\ncyd,Cyd\n")
            let students = try await classes.enroll(
                made.record.id, by: f.userID, roster, passwordHashes: Array(repeating: "-", count: 3))
            classID = made.record.id
            members = students.map(\.userID)
            team = try await classes.formTeam(classID, by: f.userID, name: "Bulls", members: ["ann", "ben", "cyd"])
            #expect(try await f.brokerage.submit(Self.buy, account: team.account).status == .filled)
            #expect(try await Self.fills(f.brokerage, of: team.account, users: members) == [1, 1, 1])
        } catch {
            await f.brokerage.shutdown()
            throw error
        }
        await f.brokerage.shutdown()

        let restarted = try await f.reopen()
        do {
            #expect(try await restarted.submit(Self.buy, account: team.account).status == .filled)
            #expect(try await Self.fills(restarted, of: team.account, users: members) == [2, 2, 2])
            // Disbanded, the account's news is its owner's alone.
            try await restarted.classes.disbandTeam(classID, by: f.userID, name: "Bulls")
            let owner = try #require(team.members.first?.userID)
            let shard = try #require(await restarted.router.shard(of: team.account))
            #expect(await shard.recipients(of: team.account) == [owner])
        } catch {
            await restarted.shutdown()
            throw error
        }
        await restarted.shutdown()
    }
}
