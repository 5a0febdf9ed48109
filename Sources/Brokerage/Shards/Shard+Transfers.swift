import BrokerageModel
import TradingCore

/// Transfers between a user's accounts: the debit of this shard's account with the transfer's record, or the credit
/// of this shard's account with the record completed and its one credit row — each one step, one commit.
extension Shard {
    /// Debits a transfer's amount from its source account (this shard's); the transfer is journaled with the debit,
    /// pending. Refused, with nothing written, when the account cannot pay it.
    func debitTransfer(_ record: TransferRecord) async throws(BrokerageError) {
        do {
            try engine.transferOut(
                record.fromAmount, from: record.fromAccount, record.debitBooking, at: record.createdAt)
        } catch {
            throw .rejected(error)
        }
        pending.transfers.append(record)
        try await commit()
    }

    /// Credits a debited transfer to its destination account (this shard's), once: false when it was credited before
    /// (or is being credited by another call now). The credit, the record completed and the credit row commit
    /// together; a failed commit leaves the transfer pending, to be credited on a later pass.
    func creditTransfer(_ record: TransferRecord) async throws(BrokerageError) -> Bool {
        try await loadAccountIfNeeded(record.toAccount)
        guard transfers.claim(record.id) else { return false }
        defer { transfers.release(record.id) }
        let done: Bool
        do { done = try await storage.transfers.isCredited(record.id) } catch { throw .storage(error) }
        guard !done else { return false }
        let now = clock.now()
        do {
            try engine.transferIn(record.toAmount, to: record.toAccount, record.creditBooking, at: now)
        } catch {
            throw .rejected(error)
        }
        var completed = record
        completed.status = .completed
        completed.completedAt = now
        pending.transfers.append(completed)
        pending.transferCredits.append(TransferCredit(transferID: record.id, account: record.toAccount, time: now))
        if let owner = records[record.toAccount]?.userID {
            let text = Catalogue(languages.language(of: owner))
            let amount = record.toCurrency.symbol + record.toAmount.formatted(places: record.toCurrency.minorUnitDigits)
            let from = record.fromName
            pending.notify(
                owner, account: record.toAccount, kind: "transfer", title: text("transfer.arrived.title"),
                body: text("transfer.arrived.body", ["amount": amount, "from": from]), at: now)
        }
        try await commit()
        return true
    }
}
