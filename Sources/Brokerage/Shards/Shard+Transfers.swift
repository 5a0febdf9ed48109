import BrokerageModel
import TradingCore

/// Transfers between a user's accounts: the debit of this shard's account with the transfer's record, or the credit
/// of this shard's account with the record completed and its one credit row — each one step, one commit.
extension Shard {
    /// Debits a transfer's amount from its source account (this shard's); the transfer is journaled with the debit,
    /// pending. Refused, with nothing written, when the account cannot pay it. A transfer the client named
    /// (`clientTransferID`) that was made before is answered as it stands, not made again (`made` false); one being
    /// made by another call right now is a conflict.
    func debitTransfer(_ record: TransferRecord) async throws(BrokerageError) -> (record: TransferRecord, made: Bool) {
        guard let client = record.clientTransferID else {
            try await debit(record)
            return (record, true)
        }
        let account = record.from.account
        guard transfers.claim(client: client, of: account) else {
            throw .conflict(
                "a transfer with client_transfer_id \(client) is being made now; ask for it again in a moment")
        }
        defer { transfers.release(client: client, of: account) }
        let made: TransferRecord?
        do { made = try await storage.transfers.transfer(clientTransferID: client, from: account) } catch {
            throw .storage(error)
        }
        if let made { return (made, false) }
        try await debit(record)
        return (record, true)
    }

    private func debit(_ record: TransferRecord) async throws(BrokerageError) {
        do {
            try engine.transferOut(
                record.from.amount, from: record.from.account, record.debitBooking, at: record.createdAt)
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
        try await loadAccountIfNeeded(record.to.account)
        guard transfers.claim(record.id) else { return false }
        defer { transfers.release(record.id) }
        let done: Bool
        do { done = try await storage.transfers.isCredited(record.id) } catch { throw .storage(error) }
        guard !done else { return false }
        let now = clock.now()
        do {
            try engine.transferIn(record.to.amount, to: record.to.account, record.creditBooking, at: now)
        } catch {
            throw .rejected(error)
        }
        var completed = record
        completed.status = .completed
        completed.completedAt = now
        pending.transfers.append(completed)
        pending.transferCredits.append(TransferCredit(transferID: record.id, account: record.to.account, time: now))
        if let owner = records[record.to.account]?.userID {
            let text = Catalogue(languages.language(of: owner))
            let amount =
                record.to.currency.symbol + record.to.amount.formatted(places: record.to.currency.minorUnitDigits)
            let from = record.from.name
            pending.notify(
                owner, account: record.to.account, kind: "transfer", title: text("transfer.arrived.title"),
                body: text("transfer.arrived.body", ["amount": amount, "from": from]), at: now)
        }
        try await commit()
        return true
    }
}
