import Synchronization
import TradingCore

/// Several API keys for one provider, used in turn (as the A-share app rotated its licences), each with its
/// own rate limit; a key that hits its limit or is refused rests for a while and the next one is used. On a cluster
/// every node holds the same keys and takes its share of each limit (`share(among:)`).
public final class KeyRing: Sendable {
    public let keys: [String]
    let requestsPerWindow: Int
    let window: Int64
    private let state: Mutex<State>

    struct State {
        var next = 0
        /// The nodes sharing the keys (1: this process alone).
        var nodes = 1
        var restingUntil: [Int: Timestamp] = [:]
        /// Request times per key within the current window (a sliding-window limiter).
        var recent: [Int: [Timestamp]] = [:]
    }

    /// `requestsPerWindow` per key per `windowSeconds` (Finnhub free tier: 60 per 60 s).
    public init(keys: [String], requestsPerWindow: Int, windowSeconds: Int64) {
        self.keys = keys.filter { !$0.isEmpty }
        self.requestsPerWindow = max(requestsPerWindow, 1)
        window = windowSeconds * Duration64.second
        state = Mutex(State())
    }

    /// The next usable key and its index, or nil with how long until one frees up.
    public func take(at now: Timestamp) -> (index: Int, key: String)? {
        state.withLock { s in
            guard !keys.isEmpty else { return nil }
            for step in 0..<keys.count {
                let i = (s.next + step) % keys.count
                if let until = s.restingUntil[i], until > now { continue }
                var times = s.recent[i, default: []].filter { $0.nanoseconds > now.nanoseconds - window }
                guard times.count < max(1, requestsPerWindow / s.nodes) else {
                    s.recent[i] = times
                    continue
                }
                times.append(now)
                s.recent[i] = times
                s.next = (i + 1) % keys.count
                return (i, keys[i])
            }
            return nil
        }
    }

    /// Holds this process to 1/`nodes` of each key's limit (at least one request a window).
    public func share(among nodes: Int) {
        state.withLock { $0.nodes = max(1, nodes) }
    }

    /// Rests a key (after a 429 or a refusal) until `until`.
    public func rest(_ index: Int, until: Timestamp) {
        state.withLock { $0.restingUntil[index] = until }
    }
}
