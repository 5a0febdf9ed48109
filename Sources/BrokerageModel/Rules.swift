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
