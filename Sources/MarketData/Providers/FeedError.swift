import TradingCore

/// Why market data could not be had. Every provider failure maps to one of these; none crashes.
public enum FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownSymbol(String)
    /// The key was refused (401, or 403 without a more specific reason).
    case unauthorized(provider: String, message: String)
    /// The key's plan does not include this data (Finnhub candles on a free key).
    case notEntitled(provider: String, message: String)
    case rateLimited(provider: String, retryAfterSeconds: Int?)
    case http(provider: String, status: Int, message: String)
    /// The body did not have the expected shape (truncated, wrong encoding, changed format).
    case malformed(provider: String, detail: String)
    case transport(provider: String, detail: String)
    case unsupported(provider: String, feature: String)
    case missingCredentials(provider: String)
    /// The provider is failing; `lastKnown` is the last good quote, `ageSeconds` how old it is — shown as
    /// stale, never as fresh.
    case unavailable(provider: String, reason: String, lastKnown: MarketQuote?, ageSeconds: Int?)

    public var description: String {
        switch self {
        case .unknownSymbol(let s): return "unknown symbol \(s)"
        case .unauthorized(let p, let m): return "\(p) refused the API key: \(m)"
        case .notEntitled(let p, let m): return "\(p): not included in this API plan: \(m)"
        case .rateLimited(let p, let r): return "\(p) rate limit reached" + (r.map { "; retry in \($0) s" } ?? "")
        case .http(let p, let s, let m): return "\(p) answered HTTP \(s): \(m)"
        case .malformed(let p, let d): return "\(p) sent data papertrade cannot read: \(d)"
        case .transport(let p, let d): return "cannot reach \(p): \(d)"
        case .unsupported(let p, let f): return "\(p) does not provide \(f)"
        case .missingCredentials(let p): return "\(p) needs an API key (see docs/API.md: market data)"
        case .unavailable(let p, let r, _, let age):
            return "\(p) is unavailable (\(r))" + (age.map { "; showing data from \($0) s ago" } ?? "")
        }
    }
}

/// Company facts for the stock detail screen's "about" section.
public struct CompanyProfile: Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var exchange: String
    public var industry: String?
    public var country: String?
    public var currency: String?
    public var ipoDate: CivilDate?
    public var website: String?
    public var logo: String?
    /// Market capitalisation and shares outstanding in millions (Finnhub's units).
    public var marketCapitalizationMillions: FixedDecimal?
    public var sharesOutstandingMillions: FixedDecimal?
}

public struct NewsItem: Sendable, Hashable {
    public var id: Int
    public var time: Timestamp
    public var headline: String
    public var summary: String
    public var source: String
    public var url: String
    public var image: String?
}

public struct RecommendationTrend: Sendable, Hashable {
    public var period: CivilDate
    public var strongBuy: Int
    public var buy: Int
    public var hold: Int
    public var sell: Int
    public var strongSell: Int
}

public struct EarningsSurprise: Sendable, Hashable {
    public var period: CivilDate
    public var actual: FixedDecimal?
    public var estimate: FixedDecimal?
    public var surprise: FixedDecimal?
    public var surprisePercent: FixedDecimal?
}
