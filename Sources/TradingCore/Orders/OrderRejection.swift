/// Why a command was refused. The message is what the user sees (server rejections are shown verbatim); the
/// reason is what a surface maps to its own codes (the server: HTTP status and Alpaca error code).
public struct OrderRejection: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Reason: String, Sendable, Codable, Hashable {
        case invalidInput = "invalid_input"
        case subPenny = "sub_penny"
        case offTick = "off_tick"
        case lotSize = "lot_size"
        case outsidePriceLimits = "outside_price_limits"
        case insufficientBuyingPower = "insufficient_buying_power"
        case insufficientQty = "insufficient_qty"
        case notSellableToday = "not_sellable_today"
        case marketClosed = "market_closed"
        case duplicateClientOrderID = "duplicate_client_order_id"
        case unknownSymbol = "unknown_symbol"
        case unknownAccount = "unknown_account"
        case orderNotFound = "order_not_found"
        case notCancelable = "not_cancelable"
        case notReplaceable = "not_replaceable"
        case currencyMismatch = "currency_mismatch"
        case noQuote = "no_quote"
        case unsupported
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
