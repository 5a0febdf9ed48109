import TradingCore

/// Which of an account's orders to list (Alpaca's GET /v2/orders parameters).
public struct OrderQuery: Sendable {
    public enum Status: String, Sendable { case open, closed, all }
    public var status: Status = .open
    public var limit = 50
    public var after: Timestamp?
    public var until: Timestamp?
    public var ascending = false
    public var symbols: [String] = []
    public init() {}
}
