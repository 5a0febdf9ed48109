import Brokerage
import HummingbirdWebSocket
import Synchronization

/// What signed a long-lived connection in: an API key (by its id) or a web session (by its token's hash).
enum Credential: Hashable, Sendable {
    case apiKey(String)
    case session(tokenHash: String)
}

/// Ends the streams a credential opened once it no longer opens anything: a revoked key, a logged-out or expired
/// session. A request is checked as it arrives; a stream lives on for hours after its one check, so every stream
/// (Alpaca's trade and market-data sockets, the app's socket and event stream) waits on `ended(_:)` beside its work.
///
/// One task serves every waiting stream and runs only while some stream waits: a quarter of a second after this
/// process revokes a key or closes a session (`UserDirectory.revocations` moved) it asks storage about each credential
/// being waited on, and every `recheck` anyway — so a key revoked on another node of a cluster, or a session that
/// expired, ends its streams within `recheck`. Storage it cannot reach ends nothing.
final class CredentialWatch: Sendable {
    let users: UserDirectory
    let recheck: Duration
    let tick: Duration

    private let state = Mutex(State())
    private struct State {
        /// The waiting streams by credential, each by its ticket.
        var waiting: [Credential: [UInt64: CheckedContinuation<Void, Never>]] = [:]
        /// Tickets given out that are not waiting yet, and those of them whose task was cancelled meanwhile (it
        /// then returns at once instead of waiting).
        var fresh: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var nextTicket: UInt64 = 0
        var checking = false
    }

    init(users: UserDirectory, recheck: Duration = .seconds(5), tick: Duration = .milliseconds(250)) {
        self.users = users
        self.recheck = recheck
        self.tick = tick
    }

    /// Returns once `credential` no longer opens anything, or as soon as the calling task is cancelled.
    func ended(_ credential: Credential) async {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            state.fresh.insert(state.nextTicket)
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let start = state.withLock { state -> Bool? in
                    state.fresh.remove(ticket)
                    if state.cancelled.remove(ticket) != nil { return nil }
                    state.waiting[credential, default: [:]][ticket] = continuation
                    defer { state.checking = true }
                    return !state.checking
                }
                switch start {
                case nil: continuation.resume()
                case true?: Task { await self.check() }
                case false?: break
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let found = state.waiting[credential]?.removeValue(forKey: ticket) else {
                    // (Not waiting yet: it returns when it starts. Already resumed: nothing to do.)
                    if state.fresh.remove(ticket) != nil { state.cancelled.insert(ticket) }
                    return nil
                }
                if state.waiting[credential]?.isEmpty == true { state.waiting[credential] = nil }
                return found
            }
            continuation?.resume()
        }
    }

    /// How many streams wait on credentials (what /metrics and the tests read).
    var waitingCount: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// The checking loop: runs while any stream waits, then leaves (the next waiter starts it again).
    private func check() async {
        let clock = ContinuousClock()
        var generation = users.revocations.generation
        var lastAsked = clock.now
        while true {
            try? await Task.sleep(for: tick)
            let credentials = state.withLock { state -> [Credential] in
                if state.waiting.isEmpty { state.checking = false }
                return Array(state.waiting.keys)
            }
            if credentials.isEmpty { return }
            let now = clock.now
            let current = users.revocations.generation
            guard current != generation || now - lastAsked >= recheck else { continue }
            (generation, lastAsked) = (current, now)
            for credential in credentials where await hasEnded(credential) {
                let ended = state.withLock { $0.waiting.removeValue(forKey: credential) } ?? [:]
                for continuation in ended.values { continuation.resume() }
            }
        }
    }

    /// Whether storage says the credential no longer opens anything (false when storage cannot be asked).
    private func hasEnded(_ credential: Credential) async -> Bool {
        do {
            switch credential {
            case .apiKey(let keyID): return try await users.key(keyID) == nil
            case .session(let hash): return try await users.sessionUser(tokenHash: hash) == nil
            }
        } catch {
            return false
        }
    }

    /// A socket's watch, run beside its work (a task of its group): once `credential` ends, `goodbye` (the socket's
    /// own words for refused credentials) is sent and the socket closed as a policy violation — the client's answer to
    /// the close ends the socket's read loop, and with it the socket. Returns at once when cancelled.
    func closeSocket(
        _ outbound: WebSocketOutboundWriter, when credential: Credential,
        goodbye: @Sendable () async throws -> Void
    ) async throws {
        await ended(credential)
        guard !Task.isCancelled else { return }
        try await goodbye()
        try await outbound.close(.policyViolation, reason: "credentials no longer valid")
    }
}
