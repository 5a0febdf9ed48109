import TradingCore

/// The transfers a shard is crediting right now: a credit reads storage to see whether it committed already, and the
/// actor may take another call while it waits, so the second of two calls for one transfer (the front's, the
/// settlement's) must see the first under way and leave it. What committed is storage's to say (`transfer_credits`).
struct TransferDesk {
    private(set) var crediting: Set<TransferID> = []

    /// Claims a transfer's credit; false when another call is crediting it.
    mutating func claim(_ id: TransferID) -> Bool { crediting.insert(id).inserted }

    mutating func release(_ id: TransferID) { crediting.remove(id) }
}
