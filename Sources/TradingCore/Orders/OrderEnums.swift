public enum OrderSide: String, Sendable, Codable, Hashable, CaseIterable {
    case buy, sell
    public var opposite: OrderSide { self == .buy ? .sell : .buy }
}

/// What an order does to the position (Alpaca's `position_intent`): a buy opens or adds to a long, or covers a
/// short; a sell closes a long, or opens (adds to) a short. Set when the order is placed, from the position then.
public enum PositionIntent: String, Sendable, Codable, Hashable, CaseIterable {
    case buyToOpen = "buy_to_open"
    case buyToClose = "buy_to_close"
    case sellToOpen = "sell_to_open"
    case sellToClose = "sell_to_close"

    /// The intent of an order on `side` against a position of `held` shares (negative: short).
    public init(side: OrderSide, held: Quantity) {
        switch side {
        case .buy: self = held.isNegative ? .buyToClose : .buyToOpen
        case .sell: self = held.isPositive ? .sellToClose : .sellToOpen
        }
    }

    /// The side an order with this intent is on.
    public var side: OrderSide { self == .buyToOpen || self == .buyToClose ? .buy : .sell }

    /// A sale that opens or adds to a short position.
    public var isShortSale: Bool { self == .sellToOpen }
    /// A purchase that covers a short position.
    public var isCover: Bool { self == .buyToClose }
}

public enum OrderType: String, Sendable, Codable, Hashable, CaseIterable {
    case market, limit, stop
    case stopLimit = "stop_limit"
    case trailingStop = "trailing_stop"
}

public enum TimeInForce: String, Sendable, Codable, Hashable, CaseIterable {
    /// Expires at the end of the session it was placed for.
    case day
    /// Good until canceled (Alpaca expires them after 90 days).
    case gtc
    /// Executes in the opening auction only.
    case opg
    /// Executes in the closing auction only.
    case cls
    /// Immediate or cancel: fills what it can at once, cancels the rest.
    case ioc
    /// Fill or kill: fills completely at once or is canceled.
    case fok
}

/// Alpaca's order classes; "" on the wire means simple.
public enum OrderClass: String, Sendable, Codable, Hashable, CaseIterable {
    case simple = ""
    /// Entry plus take-profit and stop-loss exits, active once the entry has filled.
    case bracket
    /// One-cancels-other exit pair: a take-profit limit and a stop-loss.
    case oco
    /// One-triggers-other: an entry and one exit.
    case oto
    /// Multi-leg options: two to four contracts bought and sold together as one package.
    case mleg

    /// Accepts "simple" as well as "".
    public init?(wireValue: String) {
        if wireValue == "simple" { self = .simple } else { self.init(rawValue: wireValue) }
    }
}

/// The Alpaca order lifecycle.
public enum OrderStatus: String, Sendable, Codable, Hashable, CaseIterable {
    case new
    case partiallyFilled = "partially_filled"
    case filled
    case doneForDay = "done_for_day"
    case canceled
    case expired
    case replaced
    case pendingCancel = "pending_cancel"
    case pendingReplace = "pending_replace"
    case accepted
    case pendingNew = "pending_new"
    case acceptedForBidding = "accepted_for_bidding"
    case stopped
    case rejected
    case suspended
    case calculated
    case held

    /// No further fills or changes can happen.
    public var isTerminal: Bool {
        switch self {
        case .filled, .canceled, .expired, .replaced, .rejected, .doneForDay: return true
        default: return false
        }
    }

    /// Alpaca's "open" filter.
    public var isOpen: Bool { !isTerminal }
}

/// How a deposit or withdrawal moved money (the A-share app's transaction types).
public enum TransferMethod: String, Sendable, Codable, Hashable, CaseIterable {
    case bank, card, transfer
    /// A teacher's adjustment of a class account's cash, with its reason as the note: the one way money enters or
    /// leaves a game account (never a method a user picks).
    case adjustment
}
