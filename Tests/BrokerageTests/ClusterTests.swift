import BrokerageModel
import Foundation
import MarketData
import Storage
import Synchronization
import Testing
import TradingCore

@testable import Brokerage

@Suite("Shard assignment over live nodes")
struct ShardAssignmentTests {
    @Test("every node gets ⌊64/n⌋ or ⌈64/n⌉ shards, the same answer whatever order the nodes are listed in")
    func even() {
        for n in 1...7 {
            let nodes = (1...n).map { "node-\($0)" }
            let assignment = ShardAssignment.assign(shards: 64, nodes: nodes)
            #expect(assignment.count == 64, "every shard has an owner with \(n) nodes")
            let counts = Dictionary(grouping: assignment.values, by: { $0 }).mapValues(\.count)
            for node in nodes {
                #expect(
                    [64 / n, (64 + n - 1) / n].contains(counts[node] ?? 0), "\(node) of \(n): \(counts[node] ?? 0)")
            }
            #expect(ShardAssignment.assign(shards: 64, nodes: nodes.reversed()) == assignment)
        }
    }

    @Test("a node joining or leaving moves about the shards it must, not the whole map")
    func stable() {
        let three = ShardAssignment.assign(shards: 64, nodes: ["a", "b", "c"])
        let four = ShardAssignment.assign(shards: 64, nodes: ["a", "b", "c", "d"])
        let moved = (0..<64).filter { three[$0] != four[$0] }.count
        // "d" must get 16; moving all 64 (or most) would reload every shard in the cluster.
        #expect(moved >= 16 && moved <= 26, "\(moved) shards moved when a fourth node joined")
        let two = ShardAssignment.assign(shards: 64, nodes: ["a", "b"])
        let lost = (0..<64).filter { three[$0] != two[$0] }.count
        #expect(lost >= 21 && lost <= 30, "\(lost) shards moved when a node of three left")
    }
}

/// Two nodes of one cluster on a real PostgreSQL, each a brokerage with its `ClusterNode`, whose passes the test
/// runs by hand (no timers). Leases last an hour of the lease clock, which the nodes of a test share and only the
/// test moves (`LeaseClock`): a lease lapses when the test says so, never because a busy machine was slow between two
/// passes (issue 54: b's leases lapsed while the test ended a game on a, at a TTL of 10 s of wall time).
@Suite(
    "A cluster of nodes on one PostgreSQL",
    .enabled(if: ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] != nil))
struct ClusterTests {
    struct Node {
        let brokerage: Brokerage
        let node: ClusterNode
    }

    static func database() async throws -> String {
        let admin = ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] ?? ""
        let name = "c_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Storage.createPostgresDatabase(name, adminURL: admin)
        return admin.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }

    /// How long a lease holds on the lease clock: far beyond any test's wall time.
    static let ttl = 3_600 * Duration64.second

    static func node(_ name: String, url: String, clock: MarketClock, leases: LeaseClock) async throws -> Node {
        let symbols = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions))
        let brokerage = try await Brokerage.open(
            .postgres(url: url), feed: SimulatedFeed(market: market, clock: clock), directory: symbols, clock: clock,
            clusterNode: name, leaseClock: leases)
        var settings = ClusterSettings(name: name, url: "http://\(name).invalid:8080")
        settings.leaseTTL = ttl
        return Node(brokerage: brokerage, node: ClusterNode(settings: settings, brokerage: brokerage))
    }

    /// Two nodes, a and b, on a fresh database (sharing a manual market clock and the lease clock).
    static func pair() async throws -> (Node, Node) {
        let url = try await database()
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let leases = LeaseClock()
        return (
            try await node("a", url: url, clock: clock, leases: leases),
            try await node("b", url: url, clock: clock, leases: leases)
        )
    }

    /// a joins and takes everything, b joins, a hands half back and b takes it: 32 shards each.
    static func split(_ a: Node, _ b: Node) async throws {
        try await a.node.join()
        await a.node.pass()
        try await b.node.join()
        await b.node.pass()
        await a.node.pass()
        await b.node.pass()
        #expect(a.node.servedShards == 32 && b.node.servedShards == 32)
    }

    static func buy(_ brokerage: Brokerage, _ account: AccountID, id: String, limit: Price = 1)
        async throws(BrokerageError) -> Order
    {
        try await brokerage.submit(
            OrderRequest(
                symbol: "KO", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: limit,
                clientOrderID: ClientOrderID(id)), account: account)
    }

    @Test(
        "two nodes split the shards 32/32; each refuses the other's accounts with .elsewhere; a paused node's shards move and its late commit is fenced"
    )
    func twoNodes() async throws {
        let url = try await Self.database()
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let leases = LeaseClock()
        let a = try await Self.node("a", url: url, clock: clock, leases: leases)
        let b = try await Self.node("b", url: url, clock: clock, leases: leases)
        defer {
            Task {
                await a.brokerage.shutdown()
                await b.brokerage.shutdown()
            }
        }
        // a, alone at first, takes everything; b joins; a hands half back, b takes it.
        try await a.node.join()
        await a.node.pass()
        #expect(a.node.servedShards == 64)
        #expect(a.node.isReady)
        try await b.node.join()
        await b.node.pass()
        #expect(b.node.servedShards == 0, "b takes nothing while a holds live leases")
        #expect(!b.node.isReady)
        await a.node.pass()
        await b.node.pass()
        #expect(a.node.servedShards == 32 && b.node.servedShards == 32)
        #expect(a.node.isReady && b.node.isReady)

        // An account opened on a lives in one of a's shards; b refuses it, naming a.
        let user = try await a.brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "u", passwordHash: "-")
        let account = try await a.brokerage.openAccount(userID: user.id, market: .us, cash: 10_000, name: "x")
        _ = try await Self.buy(a.brokerage, account.id, id: "first")
        do {
            _ = try await Self.buy(b.brokerage, account.id, id: "via-b")
            Issue.record("b placed an order on a shard it does not serve")
        } catch {
            guard case .elsewhere(_, let owner, let nodeURL) = error else {
                Issue.record("expected .elsewhere, got \(error)")
                return
            }
            #expect(owner == "a" && nodeURL == "http://a.invalid:8080")
        }
        // Listings read storage on a node that does not serve every shard: b lists the user's account too.
        #expect(await b.brokerage.accounts(of: user.id).map(\.id) == [account.id])

        // a stops (no more passes, as if paused): once its leases expire, b takes every shard, loading a's orders.
        leases.advance(by: Self.ttl + Duration64.second)
        await b.node.pass()
        #expect(b.node.servedShards == 64)
        let seen = try await b.brokerage.orders(account: account.id, OrderQuery())
        #expect(seen.map(\.clientOrderID.text) == ["first"], "b loaded the order a placed, from the journal")

        // a wakes up still believing it serves the shard: its commit is refused by the fence, not acknowledged.
        let servedByA = a.node.servedShards
        do {
            _ = try await Self.buy(a.brokerage, account.id, id: "zombie")
            Issue.record("a paused node's commit was acknowledged after another node took its shard")
        } catch {
            guard case .elsewhere = error else {
                Issue.record("expected .elsewhere from the fence, got \(error)")
                return
            }
        }
        // From that refusal on, a serves the shard no more, before any pass: its memory holds the refused order, which
        // a read must not show and a retry must not be told is taken ("client_order_id must be unique").
        do {
            let shown = try await a.brokerage.order(clientOrderID: ClientOrderID("zombie"), account: account.id)
            Issue.record("a still served the fenced shard: it showed the refused order \(shown.clientOrderID.text)")
        } catch {
            guard case .elsewhere = error else {
                Issue.record("expected .elsewhere, got \(error)")
                return
            }
        }
        do {
            _ = try await Self.buy(a.brokerage, account.id, id: "zombie")
            Issue.record("a retry on the fenced node was acknowledged")
        } catch {
            guard case .elsewhere = error else {
                Issue.record("expected .elsewhere for the retry, got \(error)")
                return
            }
        }
        #expect(a.node.servedShards == servedByA - 1, "the fenced shard is no longer counted as served")
        _ = try await Self.buy(b.brokerage, account.id, id: "second")
        let stored = try await b.brokerage.orders(account: account.id, OrderQuery())
        #expect(Set(stored.map(\.clientOrderID.text)) == ["first", "second"], "nothing of a's after the takeover")

        // a's next pass finds its leases gone and drops every shard (b renews first, as its timer would have).
        await b.node.pass()
        await a.node.pass()
        #expect(a.node.servedShards == 0)
        let view = try await b.brokerage.clusterView()
        #expect(view.leases.allSatisfy { $0.owner == "b" && $0.epoch >= 2 })
    }

    @Test(
        "a node taking over a departed node's shards stays ready (HAProxy's check), serving what it has meanwhile; a joining node is not ready until it serves its share"
    )
    func readinessThroughATakeover() async throws {
        let url = try await Self.database()
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let leases = LeaseClock()
        let a = try await Self.node("a", url: url, clock: clock, leases: leases)
        let b = try await Self.node("b", url: url, clock: clock, leases: leases)
        defer {
            Task {
                await a.brokerage.shutdown()
                await b.brokerage.shutdown()
            }
        }
        try await a.node.join()
        await a.node.pass()
        try await b.node.join()
        await b.node.pass()
        #expect(!b.node.isReady, "b joined but serves none of its half yet")
        await a.node.pass()
        await b.node.pass()
        #expect(a.node.isReady && b.node.isReady)

        // b is gone from the membership while its leases still hold (as between a dead node's last heartbeat and
        // its leases' expiry, or a leaving node's steps): a is assigned all 64 and can take none of b's 32 yet.
        try await b.brokerage.repositories.cluster.leaveCluster(node: "b")
        await a.node.pass()
        #expect(a.node.servedShards == 32, "b's leases still hold")
        #expect(a.node.isReady, "a answers on: were it unready, HAProxy would have no node left to send requests to")

        // b hands its shards back; a takes them.
        await b.node.leave()
        #expect(!b.node.isReady)
        await a.node.pass()
        #expect(a.node.servedShards == 64 && a.node.isReady)
    }

    @Test(
        "a client listening on one node hears every order update and notification of an account another node serves, before and after its shard moves here, none twice"
    )
    func liveEventsAcrossNodes() async throws {
        let (a, b) = try await Self.pair()
        defer {
            Task {
                await a.brokerage.shutdown()
                await b.brokerage.shutdown()
            }
        }
        try await Self.split(a, b)
        let user = try await a.brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "u", passwordHash: "-")
        let account = try await a.brokerage.openAccount(userID: user.id, market: .us, cash: 10_000, name: "x")

        // One listener on each node; b's relay is run by hand (its reads follow PostgreSQL's signal when served).
        let onA = Heard(a.brokerage.orderUpdates(account: account.id))
        let onB = Heard(b.brokerage.orderUpdates(account: account.id))
        let notifiedOnB = Heard(b.brokerage.notifications.live(user: user.id))
        let relay = LiveEventRelay(node: "b", brokerage: b.brokerage, logger: b.node.logger)
        var marks = try await b.brokerage.repositories.liveEvents.liveEventMarks()

        // A marketable buy on a (new, fill, and a fill notification) and a resting one canceled.
        _ = try await Self.buy(a.brokerage, account.id, id: "filled", limit: 1_000)
        let resting = try await Self.buy(a.brokerage, account.id, id: "resting")
        _ = try await a.brokerage.cancel(resting.id, account: account.id)
        let onAFirst = await onA.wait(for: 4)
        #expect(onAFirst.map(\.event) == [.new, .fill, .new, .canceled])
        #expect(await onB.wait(for: 1, within: .milliseconds(300)).isEmpty, "nothing on b before its relay reads")
        await relay.read(&marks)
        #expect(await onB.wait(for: 4) == onAFirst, "b's client hears a's events as a's own client does")
        #expect(await notifiedOnB.wait(for: 1).map(\.kind) == ["fill"])

        // The shard moves to b (a leaves gracefully): b's own events reach its client from its writer, and the
        // relay, reading the table that now holds both nodes' events, publishes none of them again.
        await a.node.leave()
        await b.node.pass()
        #expect(b.node.servedShards == 64)
        let second = try await Self.buy(b.brokerage, account.id, id: "second")
        _ = try await b.brokerage.cancel(second.id, account: account.id)
        await relay.read(&marks)
        await relay.read(&marks)
        _ = await onB.wait(for: 6)
        // A seventh would be one published twice; give it a moment to show up.
        let all = await onB.wait(for: 7, within: .milliseconds(500))
        #expect(all.count == 6, "each event once: \(all.map { "\($0.order.clientOrderID.text) \($0.event)" })")
        #expect(all.dropFirst(4).map(\.order.clientOrderID.text) == ["second", "second"])
    }

    @Test(
        "a class team disbanded on the node that does not serve its account: the serving node's next pass stops telling its members"
    )
    func teamDisbandedOnTheOtherNode() async throws {
        let (a, b) = try await Self.pair()
        defer {
            Task {
                await a.brokerage.shutdown()
                await b.brokerage.shutdown()
            }
        }
        try await Self.split(a, b)

        let teacher = try await a.brokerage.users.createUser(
            id: UserID(UUID().uuidString), username: "teacher", passwordHash: "-")
        var settings = GameSettings(startingCash: 100_000)
        settings.rules.shortSelling = false
        let made = try await a.brokerage.classes.create(
            teacher: teacher.id, name: "Period 3", market: .us, settings: settings)
        let roster = try RosterImport.parse("username,display_name\nann,Ann\nben,Ben\n")
        _ = try await a.brokerage.classes.enroll(
            made.record.id, by: teacher.id, roster, passwordHashes: ["-", "-"])
        let team = try await a.brokerage.classes.formTeam(
            made.record.id, by: teacher.id, name: "Bulls", members: ["ann", "ben"])
        // Whichever node serves the team's account, the other one disbands the team.
        let (serving, other) = await a.brokerage.router.shard(of: team.account) != nil ? (a, b) : (b, a)
        let shard = try #require(await serving.brokerage.router.shard(of: team.account))
        let members = team.members.map(\.userID)
        #expect(await shard.recipients(of: team.account) == members)
        try await other.brokerage.classes.disbandTeam(made.record.id, by: teacher.id, name: "Bulls")
        #expect(await shard.recipients(of: team.account) == members, "(the serving node has not looked yet)")
        await serving.node.pass()
        #expect(await shard.recipients(of: team.account) == [members[0]], "the owner alone hears of it")
    }

    @Test(
        "a game whose players live on two nodes: both nodes show the same leaderboard; ended on one, every player is closed (the other node's by its pass), the final standings are that leaderboard, and each player is told once"
    )
    func gameAcrossNodes() async throws {
        let url = try await Self.database()
        let clock = MarketClock(.manual(start: BrokerageFixture.morning))
        let leases = LeaseClock()
        let a = try await Self.node("a", url: url, clock: clock, leases: leases)
        let b = try await Self.node("b", url: url, clock: clock, leases: leases)
        defer {
            Task {
                await a.brokerage.shutdown()
                await b.brokerage.shutdown()
            }
        }
        try await a.node.join()
        await a.node.pass()
        try await b.node.join()
        await b.node.pass()
        await a.node.pass()
        await b.node.pass()
        var users: [UserID] = []
        for u in 0..<7 {
            users.append(
                try await a.brokerage.users.createUser(
                    id: UserID(UUID().uuidString), username: "g\(u)", passwordHash: "-"
                ).id
            )
        }
        let game = try await a.brokerage.games.create(
            owner: users[0], name: "Across", market: .us,
            settings: GameSettings(
                startingCash: 10_000,
                rules: GameRules(endsAt: BrokerageFixture.morning.adding(seconds: 3_600), shortSelling: false)))
        await b.node.pass() // b's book learns the game
        // Three players join through a (their accounts open in a's shards), three through b; each buys its own
        // number of shares and leaves an order resting.
        var players: [(node: Node, account: AccountID, user: UserID)] = []
        for u in 1...6 {
            let node = u <= 3 ? a : b
            let player = try await node.brokerage.games.join(game.id, user: users[u], name: "p\(u)", code: nil)
            players.append((node, player.accountID, users[u]))
            _ = try await node.brokerage.submit(
                OrderRequest(
                    symbol: "KO", side: .buy, type: .limit, timeInForce: .gtc, qty: Quantity(u * 3), limitPrice: 120,
                    clientOrderID: ClientOrderID("buy-\(u)")), account: player.accountID)
            _ = try await Self.buy(node.brokerage, player.accountID, id: "resting-\(u)")
        }
        await a.node.pass()
        await b.node.pass()
        let onA = try await a.brokerage.games.leaderboard(game.id, user: users[0])
        let onB = try await b.brokerage.games.leaderboard(game.id, user: users[0])
        #expect(onA.standings.count == 6)
        #expect(onA.standings == onB.standings, "the same leaderboard on both nodes")

        // The owner ends it on a, at the same instant; b's passes run meanwhile, as its timer would.
        let passes = Task {
            while !Task.isCancelled {
                await b.node.pass()
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let ended = try await a.brokerage.games.end(game.id, by: users[0])
        passes.cancel()
        #expect(ended.final == onA.standings, "the final standings are the leaderboard every node showed")
        await b.node.pass()
        await a.node.pass()
        var all = OrderQuery()
        all.status = .all
        for player in players {
            let orders = try await player.node.brokerage.orders(account: player.account, all)
            #expect(!orders.contains { $0.status.isOpen }, "the resting order was canceled")
            do {
                _ = try await Self.buy(player.node.brokerage, player.account, id: "late")
                Issue.record("a closed game account took an order")
            } catch {
                guard case .rejected = error else {
                    Issue.record("expected the game's refusal, got \(error)")
                    continue
                }
            }
            let told = try await player.node.brokerage.notifications.recent(user: player.user).items
            #expect(told.filter { $0.kind == "game_ended" }.count == 1, "each player is told once")
        }
    }

    /// What a stream delivered so far, collected in the background.
    final class Heard<T: Sendable>: Sendable {
        final class Items: Sendable {
            let list = Mutex<[T]>([])
        }
        private let items = Items()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<T>) {
            let items = self.items
            task = Task { for await item in stream { items.list.withLock { $0.append(item) } } }
        }

        deinit { task.cancel() }

        /// Everything delivered once there are `count` items, or when `within` has passed (by default a deadline
        /// only a hang reaches: a busy machine delivers late, not never).
        func wait(for count: Int, within: Duration = .seconds(60)) async -> [T] {
            let deadline = ContinuousClock.now + within
            while items.list.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return items.list.withLock { $0 }
        }
    }
}
