import Foundation

/// A backtest job: a strategy replayed over history through the real engine. `result` is there once `status` is
/// `done` (read it with ``PapertradeClient/backtest(_:)``).
public struct Backtest: Codable, Hashable, Sendable, Identifiable {
    public struct Request: Codable, Hashable, Sendable {
        public var symbols: [String]
        public var from: String
        public var to: String
        public var strategy: String
        public var params: [String: String]
        @ExactDecimal public var qty: Decimal
        @ExactDecimal public var cash: Decimal
        public var fill: String
        /// How many queue rules a `queue-rules` backtest replays.
        public var rules: Int
        /// `feed` (the market data) or `real` (the bundled real history).
        public var source: String
        public var timeframe: String
    }

    public struct Trade: Codable, Hashable, Sendable {
        public var symbol: String
        public var side: String
        @ExactDecimal public var qty: Decimal
        @ServerTime public var entryTime: Date
        @ExactDecimal public var entryPrice: Decimal
        @OptionalServerTime public var exitTime: Date?
        @OptionalExactDecimal public var exitPrice: Decimal?
        public var barsHeld: Int?
        @OptionalExactDecimal public var pnl: Decimal?
        @OptionalExactDecimal public var `return`: Decimal?
        @OptionalExactDecimal public var fees: Decimal?

        enum CodingKeys: String, CodingKey {
            case symbol, side, qty, pnl, `return`, fees
            case entryTime = "entry_time", entryPrice = "entry_price", exitTime = "exit_time"
            case exitPrice = "exit_price", barsHeld = "bars_held"
        }
    }

    public struct EquityPoint: Codable, Hashable, Sendable {
        public var date: String
        @ExactDecimal public var equity: Decimal
        @ExactDecimal public var drawdown: Decimal
    }

    /// The benchmark index over the same dates.
    public struct Index: Codable, Hashable, Sendable {
        public var name: String
        @OptionalExactDecimal public var `return`: Decimal?
    }

    public struct MonthlyReturn: Codable, Hashable, Sendable {
        public var year: Int
        public var month: Int
        @OptionalExactDecimal public var `return`: Decimal?
    }

    /// The report: returns are fractions (0.05 = +5%).
    public struct Result: Codable, Hashable, Sendable {
        public var symbols: [String]
        public var currency: String
        @ServerTime public var start: Date
        @ServerTime public var end: Date
        public var bars: Int
        public var days: Int
        @ExactDecimal public var startingCash: Decimal
        @ExactDecimal public var finalEquity: Decimal
        @ExactDecimal public var peakEquity: Decimal
        @ExactDecimal public var `return`: Decimal
        @OptionalExactDecimal public var buyAndHoldReturn: Decimal?
        @OptionalExactDecimal public var cagr: Decimal?
        @OptionalExactDecimal public var volatility: Decimal?
        @OptionalExactDecimal public var sharpe: Decimal?
        @OptionalExactDecimal public var sortino: Decimal?
        @OptionalExactDecimal public var calmar: Decimal?
        @OptionalExactDecimal public var maxDrawdown: Decimal?
        public var trades: Int
        public var openTrades: Int
        @OptionalExactDecimal public var winRate: Decimal?
        @OptionalExactDecimal public var profitFactor: Decimal?
        @ExactDecimal public var fees: Decimal
        @OptionalExactDecimal public var averageTrade: Decimal?
        @OptionalExactDecimal public var bestTrade: Decimal?
        @OptionalExactDecimal public var worstTrade: Decimal?
        /// The average profit per trade, in money.
        @OptionalExactDecimal public var expectancy: Decimal?
        /// The fraction of the time a position was held.
        @OptionalExactDecimal public var exposure: Decimal?
        /// System quality number (Van Tharp).
        @OptionalExactDecimal public var sqn: Decimal?
        public var maxDrawdownPeak: String?
        public var maxDrawdownTrough: String?
        /// How orders filled: `next-open`, `close`….
        public var fill: String
        /// The bars' timeframe.
        public var frequency: String
        public var index: Index?
        public var monthlyReturns: [MonthlyReturn]
        public var tradeList: [Trade]
        public var equity: [EquityPoint]
        public var warnings: [String]

        enum CodingKeys: String, CodingKey {
            case symbols, currency, start, end, bars, days, `return`, cagr, volatility, sharpe, sortino, calmar
            case trades, fees, equity, warnings, expectancy, exposure, sqn, fill, frequency, index
            case averageTrade = "average_trade", bestTrade = "best_trade", worstTrade = "worst_trade"
            case maxDrawdownPeak = "max_drawdown_peak", maxDrawdownTrough = "max_drawdown_trough"
            case monthlyReturns = "monthly_returns"
            case startingCash = "starting_cash", finalEquity = "final_equity", peakEquity = "peak_equity"
            case buyAndHoldReturn = "buy_and_hold_return", maxDrawdown = "max_drawdown", openTrades = "open_trades"
            case winRate = "win_rate", profitFactor = "profit_factor", tradeList = "trade_list"
        }
    }

    public var id: String
    /// `running`, `done` or `failed`.
    public var status: String
    /// Percent done (0–100).
    public var progress: Int
    @ServerTime public var createdAt: Date
    @OptionalServerTime public var finishedAt: Date?
    public var error: String?
    public var request: Request
    public var result: Result?

    enum CodingKeys: String, CodingKey {
        case id, status, progress, error, request, result
        case createdAt = "created_at", finishedAt = "finished_at"
    }
}

/// A backtest to run (``PapertradeClient/startBacktest(_:)``): dates are YYYY-MM-DD.
public struct BacktestRequest: Encodable, Hashable, Sendable {
    public var symbols: [String]
    public var from: String?
    public var to: String?
    /// `buy-and-hold`, `sma-cross` or `queue-rules`.
    public var strategy: String?
    public var params: [String: Int]?
    public var qty: Decimal?
    public var cash: Decimal?
    public var timeframe: String?

    public init(
        symbols: [String], from: String? = nil, to: String? = nil, strategy: String? = nil,
        params: [String: Int]? = nil, qty: Decimal? = nil, cash: Decimal? = nil, timeframe: String? = nil
    ) {
        self.symbols = symbols
        self.from = from
        self.to = to
        self.strategy = strategy
        self.params = params
        self.qty = qty
        self.cash = cash
        self.timeframe = timeframe
    }

    enum CodingKeys: String, CodingKey { case symbols, from, to, strategy, params, qty, cash, timeframe }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(symbols, forKey: .symbols)
        try c.encodeIfPresent(from, forKey: .from)
        try c.encodeIfPresent(to, forKey: .to)
        try c.encodeIfPresent(strategy, forKey: .strategy)
        try c.encodeIfPresent(params, forKey: .params)
        if let qty { try c.encode(ExactDecimal.text(qty), forKey: .qty) }
        if let cash { try c.encode(ExactDecimal.text(cash), forKey: .cash) }
        try c.encodeIfPresent(timeframe, forKey: .timeframe)
    }
}
