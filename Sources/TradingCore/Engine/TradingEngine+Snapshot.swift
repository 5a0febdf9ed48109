/// Everything the engine knows about one account: balances, positions and open orders. The persistence layer
/// stores it; `restore` puts it back into any engine that has the same instruments registered (instrument ids
/// are re-bound by symbol, since they are only dense indexes within one engine).
public struct AccountSnapshot: Sendable, Codable, Hashable {
    public var account: Account
    /// (Their client order ids are the ones the restored engine knows; the owner's stored orders know the rest.)
    public var openOrders: [Order]

    public init(account: Account, openOrders: [Order]) {
        self.account = account
        self.openOrders = openOrders
    }

    /// Every instrument the account refers to, by symbol: its positions, its open orders and the pairs that price
    /// its other currencies. An engine must have them registered to `restore` it.
    public var symbols: Set<String> {
        Set(
            account.positions.values.map(\.symbol) + openOrders.map(\.symbol)
                + account.balances.values.map(\.pairSymbol))
    }
}

extension TradingEngine {
    public func snapshot(of id: AccountID) -> AccountSnapshot? {
        guard let account = accounts[id] else { return nil }
        return AccountSnapshot(account: account, openOrders: openOrders(of: id))
    }

    /// Loads an account (replacing any account with the same id). Throws if an instrument it refers to is
    /// not registered.
    public mutating func restore(_ snapshot: AccountSnapshot) throws(OrderRejection) {
        var account = snapshot.account
        if accounts[account.id] != nil {
            for id in openOrders where orders[id]?.accountID == account.id {
                removeFromBook(id)
                openOrders.remove(id)
            }
        }
        var positions: [InstrumentID: Position] = [:]
        for var position in account.positions.values {
            guard let id = symbols[position.symbol] else {
                throw OrderRejection(.unknownSymbol, "asset \(position.symbol) not found")
            }
            position.instrument = id
            positions[id] = position
        }
        account.positions = positions
        for currency in account.balances.keys {
            guard let symbol = account.balances[currency]?.pairSymbol, let id = symbols[symbol] else {
                throw OrderRejection(.unknownSymbol, "asset \(account.balances[currency]?.pairSymbol ?? "") not found")
            }
            account.balances[currency]?.pair = id
        }
        accounts[account.id] = account
        for var order in snapshot.openOrders {
            guard let id = symbols[order.symbol] else {
                throw OrderRejection(.unknownSymbol, "asset \(order.symbol) not found")
            }
            order.instrument = id
            orders[order.id] = order
            openOrders.insert(order.id)
            clientOrderIDs.insert(order.clientOrderID, account: account.id, order: order.id)
            if order.status != .held, order.orderClass != .mleg { addToBook(order.id) }
            if let expiresAt = order.expiresAt, expiresAt < nextDeadline { nextDeadline = expiresAt }
        }
        for order in snapshot.openOrders where order.orderClass == .mleg && order.parentID == nil {
            trackPackage(order.id)
        }
    }

    /// The state of the engine's seeded generator, to persist alongside snapshots so ids stay unique and
    /// deterministic after a restart.
    public var randomState: SeededGenerator {
        get { rng }
        set { rng = newValue }
    }
}
