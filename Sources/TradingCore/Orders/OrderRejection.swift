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
        /// The account may not sell short (a cash account, `no_shorting`, or under $2,000 of equity).
        case shortingNotAllowed = "shorting_not_allowed"
        /// The asset cannot be borrowed to sell short.
        case notShortable = "not_shortable"
        /// The pattern day trader rule stops the order.
        case patternDayTrading = "pattern_day_trading"
        /// A rule of the game the account plays in stops the order (the message names the rule).
        case gameRule = "game_rule"
        /// The account's options trading level does not permit the order (Alpaca's levels 0–3).
        case optionsLevel = "options_level"
        case unsupported
    }

    /// The message's content as named values, for a surface that words it in the user's language: `sentence` names
    /// what was said ("lot_size.board_lot"), `values` its figures ("qty": "150", "lot": "100", "symbol": "600519").
    public struct Facts: Sendable, Hashable, Codable {
        public var sentence: String
        public var values: [String: String]

        public init(_ sentence: String, _ values: [String: String]) {
            self.sentence = sentence
            self.values = values
        }
    }

    public var reason: Reason
    public var message: String
    public var facts: Facts?

    public init(_ reason: Reason, _ message: String, facts: Facts? = nil) {
        self.reason = reason
        self.message = message
        self.facts = facts
    }

    public var description: String { message }

    /// Two refusals are the same when they give the same reason and say the same thing (the facts are the message's
    /// content in named form).
    public static func == (a: OrderRejection, b: OrderRejection) -> Bool {
        a.reason == b.reason && a.message == b.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(message)
    }
}
