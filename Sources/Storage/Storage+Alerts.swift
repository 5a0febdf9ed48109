import Foundation
import SQLKit
import TradingCore

/// A price alert as stored: whose it is, and what became of it.
public struct AlertRecord: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable, Hashable, CaseIterable {
        /// Waiting for its condition (a repeating alert stays active after each trigger).
        case active
        /// A once-only alert that triggered.
        case triggered
        case canceled
        /// Its expiry passed.
        case expired
    }

    public var alert: PriceAlert
    public var userID: String
    public var status: Status
    public var updatedAt: Timestamp
    public var lastTriggeredAt: Timestamp?
    public var lastTriggeredPrice: Price?
    public var triggerCount: Int

    public init(
        alert: PriceAlert, userID: UserID, status: Status = .active, updatedAt: Timestamp,
        lastTriggeredAt: Timestamp? = nil, lastTriggeredPrice: Price? = nil, triggerCount: Int = 0
    ) {
        self.alert = alert
        self.userID = userID.text
        self.status = status
        self.updatedAt = updatedAt
        self.lastTriggeredAt = lastTriggeredAt
        self.lastTriggeredPrice = lastTriggeredPrice
        self.triggerCount = triggerCount
    }

    public var owner: UserID { UserID(userID) }
}

/// One time an alert triggered, with the notification it sent.
public struct AlertTriggerRecord: Sendable, Codable, Hashable {
    public var id: String
    public var alertID: AlertID
    public var userID: String
    public var symbol: String
    public var time: Timestamp
    public var price: Price
    /// The value or moving average the price was compared with (the window's low or high for moving conditions).
    public var level: Price?
    public var notificationID: String

    public init(
        id: String, alertID: AlertID, userID: UserID, symbol: String, time: Timestamp, price: Price, level: Price?,
        notificationID: String
    ) {
        self.id = id
        self.alertID = alertID
        self.userID = userID.text
        self.symbol = symbol
        self.time = time
        self.price = price
        self.level = level
        self.notificationID = notificationID
    }
}

extension Storage {
    /// Every active alert (what the brokerage loads at start).
    public func activeAlerts() async throws -> [AlertRecord] {
        try await read { db in
            try await db.raw("SELECT body FROM alerts WHERE status = 'active' ORDER BY created_at, id").all()
                .map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// A user's alerts, newest first: the active ones, or (with `active: false`) the rest.
    public func alerts(user: UserID, active: Bool, limit: Int = 100) async throws -> [AlertRecord] {
        try await read { db in
            let sql: SQLQueryString =
                active
                ? "SELECT body FROM alerts WHERE user_id = \(bind: user.text) AND status = 'active' ORDER BY created_at DESC, id DESC"
                : "SELECT body FROM alerts WHERE user_id = \(bind: user.text) AND status <> 'active' ORDER BY updated_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            return try await db.raw(sql).all()
                .map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func alert(_ id: AlertID, user: UserID) async throws -> AlertRecord? {
        try await read { db in
            try await db.raw(
                "SELECT body FROM alerts WHERE id = \(bind: id.description) AND user_id = \(bind: user.text)"
            ).first().map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// A user's alert triggers, newest first (of one alert when `alert` is given).
    public func alertTriggers(user: UserID, alert: AlertID?, limit: Int = 100) async throws -> [AlertTriggerRecord] {
        try await read { db in
            var sql: SQLQueryString = "SELECT body FROM alert_triggers WHERE user_id = \(bind: user.text)"
            if let alert {
                sql.appendInterpolation(unsafeRaw: " AND alert_id = ")
                sql.appendInterpolation(bind: alert.description)
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY time DESC, id DESC LIMIT ")
            sql.appendInterpolation(bind: max(1, min(limit, 500)))
            return try await db.raw(sql).all()
                .map { try Coding.decode(AlertTriggerRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }
}
