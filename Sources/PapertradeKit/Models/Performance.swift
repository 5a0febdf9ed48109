import Foundation

/// How an account did over a period: time- and money-weighted returns, risk, P&L split, the equity curve and its
/// benchmark. Returns are fractions (0.05 = +5%); `definitions` explains each figure in the user's language.
public struct Performance: Codable, Hashable, Sendable {
    public struct EquityPoint: Codable, Hashable, Sendable {
        @ServerTime public var time: Date
        @ExactDecimal public var value: Decimal
        /// Deposits (positive) and withdrawals (negative) at this point.
        @OptionalExactDecimal public var flow: Decimal?

        enum CodingKeys: String, CodingKey {
            case time = "t", value, flow
        }
    }

    public struct DatedValue: Codable, Hashable, Sendable {
        public var date: String
        @ExactDecimal public var value: Decimal
    }

    public struct Month: Codable, Hashable, Sendable {
        public var month: String
        @OptionalExactDecimal public var twr: Decimal?
    }

    public struct Holding: Codable, Hashable, Sendable {
        public var symbol: String
        public var name: String?
        @ExactDecimal public var qty: Decimal
        @OptionalExactDecimal public var price: Decimal?
        @OptionalExactDecimal public var avgCost: Decimal?
        @OptionalExactDecimal public var marketValue: Decimal?
        @OptionalExactDecimal public var dayChange: Decimal?
        @OptionalExactDecimal public var dividends: Decimal?
        @OptionalExactDecimal public var realizedPnL: Decimal?
        @OptionalExactDecimal public var unrealizedPnL: Decimal?
        /// A fraction of the cost (0.05 = +5%).
        @OptionalExactDecimal public var unrealizedPnLPercent: Decimal?
        /// The holding's fraction of the account's value.
        @OptionalExactDecimal public var share: Decimal?

        enum CodingKeys: String, CodingKey {
            case symbol, name, qty, price, dividends, share
            case avgCost = "avg_cost", marketValue = "market_value", dayChange = "day_change"
            case realizedPnL = "realized_pnl", unrealizedPnL = "unrealized_pnl"
            case unrealizedPnLPercent = "unrealized_pnl_pct"
        }
    }

    public struct Benchmark: Codable, Hashable, Sendable {
        public var symbol: String
        public var name: String
        @OptionalExactDecimal public var `return`: Decimal?
        public var series: [EquityPoint]
    }

    public var accountID: String
    public var currency: String
    /// 1D, 1W, 1M, 3M, 6M, YTD, 1Y or ALL; nil for explicit dates.
    public var period: String?
    public var start: String
    public var end: String
    public var tradingDays: Int
    @ExactDecimal public var startValue: Decimal
    @ExactDecimal public var endValue: Decimal
    @ExactDecimal public var netFlows: Decimal
    @OptionalExactDecimal public var twr: Decimal?
    @OptionalExactDecimal public var mwr: Decimal?
    @OptionalExactDecimal public var mwrAnnualized: Decimal?
    @OptionalExactDecimal public var volatility: Decimal?
    @OptionalExactDecimal public var sharpe: Decimal?
    @OptionalExactDecimal public var sortino: Decimal?
    @OptionalExactDecimal public var maxDrawdown: Decimal?
    public var maxDrawdownStart: String?
    public var maxDrawdownEnd: String?
    public var maxDrawdownRecovery: String?
    @ExactDecimal public var totalReturn: Decimal
    @ExactDecimal public var priceReturn: Decimal
    @ExactDecimal public var realizedPnL: Decimal
    @ExactDecimal public var unrealizedPnL: Decimal
    @ExactDecimal public var dividends: Decimal
    @ExactDecimal public var fees: Decimal
    public var equity: [EquityPoint]
    public var drawdown: [DatedValue]
    public var monthly: [Month]
    public var holdings: [Holding]
    public var benchmark: Benchmark?
    public var definitions: [String: String]

    enum CodingKeys: String, CodingKey {
        case currency, period, start, end, twr, mwr, volatility, sharpe, sortino, dividends, fees, equity, drawdown
        case monthly, holdings, benchmark, definitions
        case accountID = "account_id", tradingDays = "trading_days", startValue = "start_value"
        case endValue = "end_value", netFlows = "net_flows", mwrAnnualized = "mwr_annualized"
        case maxDrawdown = "max_drawdown", maxDrawdownStart = "max_drawdown_start"
        case maxDrawdownEnd = "max_drawdown_end", maxDrawdownRecovery = "max_drawdown_recovery"
        case totalReturn = "total_return", priceReturn = "price_return", realizedPnL = "realized_pnl"
        case unrealizedPnL = "unrealized_pnl"
    }
}

/// A performance period.
public struct PerformancePeriod: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let day: PerformancePeriod = "1D"
    public static let week: PerformancePeriod = "1W"
    public static let month: PerformancePeriod = "1M"
    public static let threeMonths: PerformancePeriod = "3M"
    public static let sixMonths: PerformancePeriod = "6M"
    public static let yearToDate: PerformancePeriod = "YTD"
    public static let year: PerformancePeriod = "1Y"
    public static let all: PerformancePeriod = "ALL"
}
