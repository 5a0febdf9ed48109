/// Every client order id each account has used, with its order (an account may not reuse one).
///
/// Ids a caller chose sit in a hash table. The ids the engine makes for orders placed without one are UUIDs that
/// only increase (`TradingEngine.newIdentifier`), so they are appended to an array that stays sorted and are found by
/// binary search: no hashing and no rehashing as it grows. (With every order's id in the hash table, keeping it was
/// ~8% of a backtest's time: one insert per order into a table that only grows.)
struct ClientOrderIndex: Sendable {
    private var chosen = ShardedDictionary<ClientOrderKey, OrderID>()
    private var made: [(client: Identifier, account: AccountID, order: OrderID)] = []

    /// The order that used `id` in `account`.
    subscript(account: AccountID, id: ClientOrderID) -> OrderID? {
        if case .uuid(let uuid) = id.form, let i = madeIndex(uuid), made[i].account == account { return made[i].order }
        return chosen[ClientOrderKey(account: account, id: id)]
    }

    /// Records that `order` uses `id` in `account`; `madeByEngine` when the engine made the id.
    mutating func insert(_ id: ClientOrderID, account: AccountID, order: OrderID, madeByEngine: Bool) {
        if madeByEngine, case .uuid(let uuid) = id.form, made.last.map({ $0.client < uuid }) ?? true {
            made.append((uuid, account, order))
        } else {
            chosen[ClientOrderKey(account: account, id: id)] = order
        }
    }

    /// The ids `account` has used, with their orders.
    func entries(of account: AccountID) -> [(ClientOrderID, OrderID)] {
        chosen.entries.filter { $0.key.account == account }.map { ($0.key.id, $0.value) }
            + made.filter { $0.account == account }.map { (ClientOrderID($0.client), $0.order) }
    }

    private func madeIndex(_ uuid: Identifier) -> Int? {
        var (low, high) = (0, made.count)
        while low < high {
            let middle = (low + high) / 2
            if made[middle].client < uuid { low = middle + 1 } else { high = middle }
        }
        return low < made.count && made[low].client == uuid ? low : nil
    }
}

/// A client order id within its account (the key of the index's hash table).
struct ClientOrderKey: ShardedKey {
    let account: AccountID
    let id: ClientOrderID
    var shard: Int { id.shard }
    /// The two ids' own fast hashes chained (see `Identifier._rawHashValue(seed:)`), not a SipHash of both.
    func _rawHashValue(seed: Int) -> Int { id._rawHashValue(seed: account._rawHashValue(seed: seed)) }
}
