import Brokerage
import HTTPTypes
import Hummingbird
import TradingCore

/// What each brokerage failure means on the wire: the HTTP status and Alpaca's 8-digit error code. This is the
/// only place they are decided; routes just `try` brokerage calls and the error answers itself.
extension BrokerageError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch self {
        case .rejected(let rejection): return rejection.status
        case .notFound: return .notFound
        case .invalid: return .unprocessableContent
        case .conflict: return .conflict
        case .forbidden: return .forbidden
        case .unavailable, .elsewhere: return .serviceUnavailable
        }
    }

    /// Alpaca's error code for the failure.
    public var alpacaCode: Int {
        switch self {
        case .rejected(let rejection): return rejection.alpacaCode
        case .notFound: return 40410000
        case .invalid: return 42210000
        case .conflict: return 40900000
        case .forbidden: return 40310000
        case .unavailable, .elsewhere: return 50300000
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try APIError(self).response(from: request, context: context)
    }
}

extension OrderRejection {
    /// The HTTP status Alpaca answers with for this refusal.
    public var status: HTTPResponse.Status {
        switch reason {
        case .insufficientBuyingPower, .insufficientQty, .notSellableToday, .shortingNotAllowed, .patternDayTrading,
            .gameRule, .optionsLevel:
            return .forbidden
        case .unknownAccount, .orderNotFound: return .notFound
        case .notShortable, .unknownSymbol, .invalidInput, .subPenny, .offTick, .lotSize, .outsidePriceLimits,
            .marketClosed,
            .duplicateClientOrderID, .notCancelable, .notReplaceable, .currencyMismatch, .noQuote, .unsupported:
            return .unprocessableContent
        }
    }

    /// Alpaca's 8-digit error code for this refusal.
    public var alpacaCode: Int {
        switch reason {
        case .insufficientBuyingPower, .insufficientQty, .notSellableToday, .shortingNotAllowed, .gameRule,
            .optionsLevel:
            return 40310000
        case .patternDayTrading: return 40310100
        case .unknownAccount, .orderNotFound: return 40410000
        case .duplicateClientOrderID: return 40010001
        default: return 42210000
        }
    }
}
