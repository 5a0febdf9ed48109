import TradingCore

/// The client order ids of the orders a shard's engine pruned in the last half minute: what lets a placement refuse an
/// id used before without the engine keeping every order ever placed.
///
/// The engine refuses the ids of the orders it holds; an order it pruned is durable, so storage has it. The one gap is
/// an order pruned while a placement's storage lookup was under way (a bot retrying an order under the same id): the
/// lookup may have read before the order's step was on disk. So pruned ids stay here for `window`, and a lookup that
/// took longer than that (or outlived a reload, which drops the engine without pruning) is read again.
/// Bounded by what a shard closes in `window`: at a thousand orders a second, ~30,000 ids.
struct ClosedClientOrderIDs {
    static let window: Duration = .seconds(5)

    struct Key: Hashable {
        let account: AccountID
        let id: ClientOrderID
    }

    /// Pruned ids, oldest first, from `head` on (the array is compacted as the front expires).
    private var recent: [(at: ContinuousClock.Instant, key: Key)] = []
    private var head = 0
    /// How many of `recent` (from `head`) hold each key.
    private var counts: [Key: Int] = [:]
    /// Times the shard reloaded its engine from storage (a reload forgets orders without pruning them).
    private(set) var reloads = 0

    /// Notes ids whose orders the engine has just pruned.
    mutating func pruned(_ keys: [Key], at now: ContinuousClock.Instant = .now) {
        expire(at: now)
        for key in keys {
            recent.append((now, key))
            counts[key, default: 0] += 1
        }
    }

    /// Notes a reload: lookups under way when it happened read again.
    mutating func reloaded() { reloads += 1 }

    /// Whether `id` was pruned in `account` within the window.
    mutating func contains(_ id: ClientOrderID, account: AccountID, at now: ContinuousClock.Instant = .now) -> Bool {
        expire(at: now)
        return counts[Key(account: account, id: id)] != nil
    }

    /// How many ids are kept (for tests and the operator).
    var count: Int { recent.count - head }

    private mutating func expire(at now: ContinuousClock.Instant) {
        while head < recent.count, now - recent[head].at >= Self.window {
            let key = recent[head].key
            if let n = counts[key], n > 1 { counts[key] = n - 1 } else { counts[key] = nil }
            head += 1
        }
        if head > 1_024, head * 2 > recent.count {
            recent.removeFirst(head)
            head = 0
        }
    }
}
