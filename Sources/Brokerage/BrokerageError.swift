import MarketData
import Storage
import TradingCore

/// Why a brokerage call failed, with the HTTP status and Alpaca code the API answers with.
public struct BrokerageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var code: Int
    public var message: String

    public init(status: Int, code: Int, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func rejected(_ r: OrderRejection) -> BrokerageError {
        BrokerageError(status: r.httpStatus, code: r.alpacaCode, message: r.message)
    }

    public static func notFound(_ what: String) -> BrokerageError {
        BrokerageError(status: 404, code: 40410000, message: what)
    }

    public static func invalid(_ message: String) -> BrokerageError {
        BrokerageError(status: 422, code: 42210000, message: message)
    }

    public static func feed(_ error: FeedError) -> BrokerageError {
        switch error {
        case .unknownSymbol(let s): return .notFound("asset not found for \(s)")
        case .unsupported: return BrokerageError(status: 404, code: 40410000, message: error.description)
        default: return BrokerageError(status: 503, code: 50300000, message: error.description)
        }
    }

    public static func storage(_ error: any Error) -> BrokerageError {
        if let e = error as? StorageError, case .duplicate(let what) = e {
            return BrokerageError(status: 409, code: 40900000, message: "\(what) already exists")
        }
        return BrokerageError(status: 503, code: 50300000, message: "storage unavailable; nothing was changed (\(error))")
    }
}
