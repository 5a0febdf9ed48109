import BrokerageModel
import TradingCore

/// What a shard's step writes beside the engine's own events (orders and ledger entries): rule and alert changes,
/// alert triggers, notifications, transfers and their credits, and accounts whose state changed without a ledger entry or order event (margin
/// terms, game rules). The desks add to it as they decide; `Shard.stage()` takes all of it into the step's journal,
/// so what one step decided commits in one transaction.
struct PendingCommit {
    var rules: [QueueRuleRecord] = []
    var alerts: [AlertRecord] = []
    var alertTriggers: [AlertTriggerRecord] = []
    var notifications: [NotificationRecord] = []
    var accounts: Set<AccountID> = []
    /// Transfers debited or credited, and the credits (`Shard+Transfers.swift`).
    var transfers: [TransferRecord] = []
    var transferCredits: [TransferCredit] = []

    var isEmpty: Bool {
        rules.isEmpty && alerts.isEmpty && alertTriggers.isEmpty && notifications.isEmpty && accounts.isEmpty
            && transfers.isEmpty && transferCredits.isEmpty
    }

    /// Adds a notification for the owner of an account (or a user's own, when `account` is nil).
    mutating func notify(
        _ user: UserID, account: AccountID?, kind: String, title: String, body: String, at now: Timestamp
    ) {
        notifications.append(
            NotificationRecord(
                id: Self.notificationID(), userID: user, accountID: account, kind: kind, title: title, body: body,
                createdAt: now))
    }

    /// Moves everything into `journal` (its rules, alerts and triggers; the notifications after those of the
    /// engine's events) and returns the accounts to write, leaving this empty.
    mutating func drain(into journal: inout Journal) -> Set<AccountID> {
        journal.rules = rules
        journal.alerts = alerts
        journal.alertTriggers = alertTriggers
        journal.transfers = transfers
        journal.transferCredits = transferCredits
        journal.notifications += notifications
        let touched = accounts
        self = PendingCommit()
        return touched
    }

    /// A fresh random (version-4) id for a notification or trigger record.
    static func notificationID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Identifier.random(using: &generator).description
    }
}
