import Foundation
import SQLKit
import TradingCore

/// A queued rule as stored: the rule, and what became of it.
public struct QueueRuleRecord: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable, Hashable, CaseIterable {
        /// Waiting for its condition.
        case queued
        /// Its condition held and it placed its order (`orderID`).
        case fired
        /// Its condition held but the order was rejected (`message` says why); it left the queue.
        case failed
        case canceled
        /// Its lifetime ended before the condition held.
        case expired
    }

    public var rule: QueueRule
    public var status: Status
    public var updatedAt: Timestamp
    public var orderID: OrderID?
    /// The price that fired it.
    public var firedPrice: Price?
    /// Why it failed (the rejection, verbatim), or other detail.
    public var message: String?

    public init(
        rule: QueueRule, status: Status = .queued, updatedAt: Timestamp, orderID: OrderID? = nil,
        firedPrice: Price? = nil, message: String? = nil
    ) {
        self.rule = rule
        self.status = status
        self.updatedAt = updatedAt
        self.orderID = orderID
        self.firedPrice = firedPrice
        self.message = message
    }
}

extension Storage {
    /// Every rule still queued (what the brokerage loads at start).
    public func queuedRules() async throws -> [QueueRuleRecord] {
        try await read { db in
            try await db.raw("SELECT body FROM queue_rules WHERE status = 'queued' ORDER BY created_at, id").all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// An account's rules, newest first: the queue (`queued`) or its history (everything else).
    public func queueRules(account: AccountID, queued: Bool, limit: Int = 100) async throws -> [QueueRuleRecord] {
        try await read { db in
            let sql: SQLQueryString =
                queued
                ? "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status = 'queued' ORDER BY created_at, id"
                : "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status <> 'queued' ORDER BY updated_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            return try await db.raw(sql).all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }
}
