/// Every client order id each account has used, with its order (an account may not reuse one).
///
/// Ids a caller chose sit in a hash table. The ids the engine makes for orders placed without one are UUIDs that
/// only increase (`TradingEngine.newIdentifier`), so they are appended in order and found by binary search: no
/// hashing and no rehashing as it grows. (With every order's id in the hash table, keeping it was ~8% of a
/// backtest's time: one insert per order into a table that only grows.) They are kept in blocks of fixed size, so
/// growing never moves what is there: one array doubling at a million orders would copy ~48 MB inside one placement
/// (and, in a backtest, fault in every page of each new copy).
struct ClientOrderIndex: Sendable {
    private var chosen = ShardedDictionary<ClientOrderKey, OrderID>()
    /// Engine-made ids in increasing order, `blockSize` to a block (the last one filling up).
    private var made: [[Made]] = []
    static let blockSize = 4_096

    struct Made {
        var client: Identifier
        var account: AccountID
        var order: OrderID
    }

    /// The order that used `id` in `account`.
    subscript(account: AccountID, id: ClientOrderID) -> OrderID? {
        if case .uuid(let uuid) = id.form, let (b, i) = madeIndex(uuid), made[b][i].account == account {
            return made[b][i].order
        }
        return chosen[ClientOrderKey(account: account, id: id)]
    }

    /// Records that `order` uses `id` in `account`; `madeByEngine` when the engine made the id.
    mutating func insert(_ id: ClientOrderID, account: AccountID, order: OrderID, madeByEngine: Bool) {
        if madeByEngine, case .uuid(let uuid) = id.form, made.last?.last.map({ $0.client < uuid }) ?? true {
            if made.last.map({ $0.count == Self.blockSize }) ?? true {
                made.append([])
                made[made.count - 1].reserveCapacity(Self.blockSize)
            }
            made[made.count - 1].append(Made(client: uuid, account: account, order: order))
        } else {
            chosen[ClientOrderKey(account: account, id: id)] = order
        }
    }

    /// The ids `account` has used, with their orders.
    func entries(of account: AccountID) -> [(ClientOrderID, OrderID)] {
        chosen.entries.filter { $0.key.account == account }.map { ($0.key.id, $0.value) }
            + made.joined().filter { $0.account == account }.map { (ClientOrderID($0.client), $0.order) }
    }

    /// Where an engine-made id is: its block (the first whose last id is not below it), then its place in it.
    private func madeIndex(_ uuid: Identifier) -> (block: Int, index: Int)? {
        var (low, high) = (0, made.count)
        while low < high {
            let middle = (low + high) / 2
            if made[middle][made[middle].count - 1].client < uuid { low = middle + 1 } else { high = middle }
        }
        guard low < made.count else { return nil }
        let block = made[low]
        var (first, last) = (0, block.count)
        while first < last {
            let middle = (first + last) / 2
            if block[middle].client < uuid { first = middle + 1 } else { last = middle }
        }
        return first < block.count && block[first].client == uuid ? (low, first) : nil
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
