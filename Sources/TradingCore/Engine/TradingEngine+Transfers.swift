/// Money moved between two accounts of one user: the debit of one and, once that is durable, the credit of the other
/// (each account's engine may be another shard's, on another node: the brokerage moves the transfer between them and
/// credits it exactly once). Game accounts take no part: every player starts with the same cash.
extension TradingEngine {
    /// Debits `amount` (whole minor units, at most the buying power) for a transfer to another account.
    @discardableResult
    public mutating func transferOut(
        _ amount: FixedDecimal, from id: AccountID, _ booking: TransferBooking, at time: Timestamp
    ) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        try Self.refuseGameTransfer(account)
        try Self.validateTransferAmount(amount, currency: account.currency)
        try Self.requireAvailable(amount, in: account, to: "transfer")
        return record(.transfer(booking), cashChange: -amount, account: id, at: time)
    }

    /// Credits a transfer's `amount`, debited from another account already. Refused only for an unknown or game
    /// account, an amount that is not whole minor units, or a balance past `maximumBalance` — all of which the
    /// brokerage checks before it debits.
    @discardableResult
    public mutating func transferIn(
        _ amount: FixedDecimal, to id: AccountID, _ booking: TransferBooking, at time: Timestamp
    ) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        try Self.refuseGameTransfer(account)
        try Self.validateTransferAmount(amount, currency: account.currency)
        guard account.cash + amount <= Self.maximumBalance else {
            throw OrderRejection(
                .invalidInput,
                "this transfer would take the cash balance above the maximum of \(Self.maximumBalance)")
        }
        return record(.transfer(booking), cashChange: amount, account: id, at: time)
    }
}
