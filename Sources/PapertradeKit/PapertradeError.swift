import Foundation

/// Why a call failed. A refusal by the server carries its own words: `message` is what the engine said ("insufficient
/// buying power", "market orders are not accepted while the market is closed"), ready to show to a user as is.
public enum PapertradeError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The server answered with an error status: HTTP `status`, the API's numeric `code` when it sent one (as
    /// Alpaca's: 40310000 for a refused order, 42210000 for bad input) and its message.
    case server(status: Int, code: Int?, message: String)
    /// The server could not be reached or the connection broke.
    case transport(String)
    /// The server's answer was not what this version of the kit understands.
    case decoding(String)
    /// A call needs credentials the client does not have (say, a logged-in user's games with an API key).
    case notAuthorized(String)

    public var message: String {
        switch self {
        case .server(_, _, let message), .transport(let message), .decoding(let message), .notAuthorized(let message):
            message
        }
    }

    /// The HTTP status of a server refusal.
    public var status: Int? {
        if case .server(let status, _, _) = self { status } else { nil }
    }

    public var description: String {
        switch self {
        case .server(let status, _, let message): "\(status): \(message)"
        case .transport(let message): "cannot reach the server: \(message)"
        case .decoding(let message): "unexpected answer from the server: \(message)"
        case .notAuthorized(let message): message
        }
    }

    public var errorDescription: String? { description }
}
