/// Why a command was refused. The message is what the user sees (server rejections are shown verbatim);
/// `httpStatus` and `alpacaCode` are what the Alpaca-compatible API answers with.
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

    /// The HTTP status Alpaca answers with for this refusal.
    public var httpStatus: Int {
        switch reason {
        case .insufficientBuyingPower, .insufficientQty, .notSellableToday: return 403
        case .unknownAccount, .orderNotFound: return 404
        case .unknownSymbol, .invalidInput, .subPenny, .offTick, .lotSize, .outsidePriceLimits, .marketClosed,
             .duplicateClientOrderID, .notCancelable, .notReplaceable, .currencyMismatch, .noQuote, .unsupported:
            return 422
        }
    }

    /// Alpaca's 8-digit error code.
    public var alpacaCode: Int {
        switch reason {
        case .insufficientBuyingPower, .insufficientQty, .notSellableToday: return 40310000
        case .unknownAccount, .orderNotFound: return 40410000
        case .duplicateClientOrderID: return 40010001
        default: return 42210000
        }
    }
}
