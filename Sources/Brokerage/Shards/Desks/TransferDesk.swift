import TradingCore

/// The transfers a shard is crediting right now: a credit reads storage to see whether it committed already, and the
/// actor may take another call while it waits, so the second of two calls for one transfer (the front's, the
/// settlement's) must see the first under way and leave it. What committed is storage's to say (`transfer_credits`).
///
/// Likewise the client ids being debited: a retry of a transfer whose first attempt is still committing must not
/// debit it again (what committed is found by its `client_transfer_id`).
struct TransferDesk {
    private(set) var crediting: Set<TransferID> = []
    private(set) var debiting: Set<String> = []

    /// Claims a transfer's credit; false when another call is crediting it.
    mutating func claim(_ id: TransferID) -> Bool { crediting.insert(id).inserted }

    mutating func release(_ id: TransferID) { crediting.remove(id) }

    /// Claims the debit of a client's transfer out of `account`; false when another call is making it.
    mutating func claim(client id: String, of account: AccountID) -> Bool {
        debiting.insert(account.description + "/" + id).inserted
    }

    mutating func release(client id: String, of account: AccountID) { debiting.remove(account.description + "/" + id) }
}
