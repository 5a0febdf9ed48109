import Brokerage
import Foundation
import Synchronization
import Testing
import TradingCore

@testable import Server

/// The watch that ends streams with their credentials: a revoked key's waiters are released (and only they), a
/// closed session's too, and a cancelled waiter leaves nothing behind. (A key revoked by another process, at the next
/// look-again: tests/e2e/test_stream_revocation.py.)
@Suite struct CredentialWatchTests {
    @Test func aRevokedKeyReleasesItsWaitersOnlyAndCancelledOnesLeaveNothing() async throws {
        try await ServerFixture.with { f in
            let access = f.services.access
            let watch = CredentialWatch(users: access.users, recheck: .seconds(60), tick: .milliseconds(20))
            let other = try await access.createKey(account: f.accountID)
            let released = Counter()
            var waiters: [Task<Void, Never>] = []
            for key in [f.keyID, f.keyID, f.keyID, other.keyID] {
                waiters.append(
                    Task {
                        await watch.ended(.apiKey(key))
                        if !Task.isCancelled { released.add() }
                    })
            }
            // A waiter cancelled before it waits, and one cancelled while it waits.
            let early = Task { await watch.ended(.apiKey(other.keyID)) }
            early.cancel()
            await early.value
            try await waitUntil { watch.waitingCount == 4 }
            let late = Task { await watch.ended(.apiKey(other.keyID)) }
            try await waitUntil { watch.waitingCount == 5 }
            late.cancel()
            await late.value
            #expect(watch.waitingCount == 4)

            try await access.revokeKey(f.keyID, of: f.accountID)
            for waiter in waiters.prefix(3) { await waiter.value }
            #expect(released.value == 3, "the revoked key's three streams end (within a tick: this process revoked it)")
            #expect(watch.waitingCount == 1, "the other key's stream still waits")

            // A session closed here ends its stream too.
            let hash = String(repeating: "ab", count: 32)
            try await access.users.openSession(tokenHash: hash, userID: try #require(await userID(f)), lifetime: 3600)
            let session = Task { await watch.ended(.session(tokenHash: hash)) }
            try await waitUntil { watch.waitingCount == 2 }
            try await access.users.closeSession(tokenHash: hash)
            await session.value
            #expect(watch.waitingCount == 1)

            waiters[3].cancel()
            await waiters[3].value
            #expect(watch.waitingCount == 0)
            #expect(released.value == 3)
        }
    }

    func userID(_ f: ServerFixture) async throws -> UserID? {
        try await f.services.brokerage.accountRecord(f.accountID)?.userID
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

/// Waits (up to 5 s) until `condition` holds.
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within 5 s")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
