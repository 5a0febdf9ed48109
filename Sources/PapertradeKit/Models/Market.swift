import Foundation

/// A quote: last price, the day so far, and five levels of the book on each side. A-shares carry their daily
/// price limits (`limitUp`, `limitDown`); US stocks have none.
public struct Quote: Codable, Hashable, Sendable {
    public struct Level: Codable, Hashable, Sendable {
        @ExactDecimal public var price: Decimal
        @ExactDecimal public var size: Decimal
    }

    public var symbol: String
    public var name: String?
    /// The name in Chinese, where papertrade has one (比特币 for BTC/USD, 苹果 for AAPL).
    public var chineseName: String?
    public var exchange: String?
    public var market: Market?
    public var currency: String?
    /// `stock`, `etf`, `option`, `crypto`…: a crypto pair (`BTC/USD`) trades around the clock, in fractions.
    public var kind: String?
    @ServerTime public var time: Date
    @ExactDecimal public var last: Decimal
    /// The session's open, high and low; nil before its first trade (a stock that opens halted has none until it
    /// reopens).
    @OptionalExactDecimal public var open: Decimal?
    @OptionalExactDecimal public var high: Decimal?
    @OptionalExactDecimal public var low: Decimal?
    @ExactDecimal public var previousClose: Decimal
    @ExactDecimal public var change: Decimal
    /// In percent (-0.23 = down 0.23%).
    @ExactDecimal public var changePercent: Decimal
    @ExactDecimal public var volume: Decimal
    @ExactDecimal public var turnover: Decimal
    public var bids: [Level]
    public var asks: [Level]
    @OptionalExactDecimal public var limitUp: Decimal?
    @OptionalExactDecimal public var limitDown: Decimal?
    /// `pre_open`, `auction`, `continuous`, `lunch_break`, `closed`….
    public var phase: String
    /// The exchange's trading date (YYYY-MM-DD) the quote belongs to.
    public var tradingDate: String
    /// The market data source failed and this is the last quote it gave.
    public var stale: Bool?
    /// Trading in the stock is halted (US trading pauses and news halts): no bids or offers, orders wait for the
    /// reopening. `halt` says why and until when.
    public var halted: Bool?
    public var halt: TradingHalt?

    enum CodingKeys: String, CodingKey {
        case symbol, name, exchange, market, currency, kind, time, last, open, high, low, change, volume, turnover, bids
        case asks, phase, stale, halted, halt
        case chineseName = "chinese_name"
        case previousClose = "previous_close", changePercent = "change_percent", limitUp = "limit_up"
        case limitDown = "limit_down", tradingDate = "trading_date"
    }
}

/// A halt of trading in one stock: why (`news_pending` or `volatility_pause`, code T1 or LUDP), from when, and when
/// trading resumes.
public struct TradingHalt: Codable, Hashable, Sendable {
    public var symbol: String?
    public var reason: String
    public var code: String
    @ServerTime public var start: Date
    @ServerTime public var end: Date
}

/// Bar lengths the server accepts: 1Min … 59Min, 1Hour … 23Hour, 1Day, 1Week, 1Month.
public struct Timeframe: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let minute: Timeframe = "1Min"
    public static let fiveMinutes: Timeframe = "5Min"
    public static let fifteenMinutes: Timeframe = "15Min"
    public static let hour: Timeframe = "1Hour"
    public static let day: Timeframe = "1Day"
    public static let week: Timeframe = "1Week"
    public static let month: Timeframe = "1Month"
}

/// One price bar (open, high, low, close, volume) starting at `time`.
public struct Bar: Codable, Hashable, Sendable {
    @ServerTime public var time: Date
    @ExactDecimal public var open: Decimal
    @ExactDecimal public var high: Decimal
    @ExactDecimal public var low: Decimal
    @ExactDecimal public var close: Decimal
    @ExactDecimal public var volume: Decimal

    enum CodingKeys: String, CodingKey {
        case time = "t", open = "o", high = "h", low = "l", close = "c", volume = "v"
    }
}

/// Bars of one symbol.
public struct Bars: Codable, Hashable, Sendable {
    public var symbol: String
    public var timeframe: Timeframe
    public var bars: [Bar]
}

/// A search hit: a stock, ETF or index found by ticker, A-share code or name.
public struct SymbolMatch: Codable, Hashable, Sendable {
    public var symbol: String
    public var name: String
    public var exchange: String
    public var market: Market
    /// `stock`, `etf`, `index`….
    public var kind: String
}

/// Whether a market trades now, in its own time zone, with its current or next session.
public struct MarketStatus: Codable, Hashable, Sendable {
    public var market: Market
    public var phase: String
    public var isOpen: Bool
    /// A server running with the always-open clock (practice at any hour).
    public var alwaysOpen: Bool
    public var timeZone: String
    @ServerTime public var localTime: Date
    /// The current or next session's date (YYYY-MM-DD) and its open and close.
    public var sessionDate: String
    @ServerTime public var open: Date
    @ServerTime public var close: Date

    enum CodingKeys: String, CodingKey {
        case market, phase, open, close
        case isOpen = "is_open", alwaysOpen = "always_open", timeZone = "time_zone", localTime = "local_time"
        case sessionDate = "session_date"
    }
}

/// When in the day a company publishes its results.
public struct EarningsTime: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let beforeOpen: EarningsTime = "before_open"
    public static let afterClose: EarningsTime = "after_close"
    public static let duringHours: EarningsTime = "during_hours"
}

/// One scheduled earnings report. A report before the open moves the price at that day's open; one after the close,
/// at the next session's.
public struct EarningsReport: Codable, Hashable, Sendable {
    public var symbol: String
    public var name: String?
    public var market: Market?
    /// The report's date (YYYY-MM-DD, the exchange's).
    public var date: String
    /// Nil when the company has not said.
    public var time: EarningsTime?
    /// The fiscal period reported: quarter 1–4 of a fiscal year (an A-share's annual report is quarter 4, its
    /// half-year report quarter 2).
    public var fiscalYear: Int
    public var fiscalQuarter: Int?
    /// The company's market value in millions of its currency, where the source knows it.
    @OptionalExactDecimal public var marketCapMillions: Decimal?

    enum CodingKeys: String, CodingKey {
        case symbol, name, market, date, time
        case fiscalYear = "fiscal_year", fiscalQuarter = "fiscal_quarter", marketCapMillions = "market_cap_millions"
    }
}

/// The earnings calendar between two dates.
public struct EarningsCalendar: Codable, Hashable, Sendable {
    public var from: String
    public var to: String
    /// By date, then symbol.
    public var earnings: [EarningsReport]
}

/// A row of the movers lists: a stock's or a crypto pair's change today and volume.
public struct Mover: Codable, Hashable, Sendable {
    public var symbol: String
    public var name: String
    /// The name in Chinese, where papertrade has one.
    public var chineseName: String?
    @ExactDecimal public var last: Decimal
    @ExactDecimal public var change: Decimal
    /// In percent (1.23 = 1.23%).
    @ExactDecimal public var changePercent: Decimal
    @ExactDecimal public var volume: Decimal

    enum CodingKeys: String, CodingKey {
        case symbol, name, last, change, volume
        case changePercent = "change_percent", chineseName = "chinese_name"
    }
}

/// Which movers: the largest rises, the largest falls, or the most traded.
public struct MoverKind: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let gainers: MoverKind = "gainers"
    public static let losers: MoverKind = "losers"
    public static let active: MoverKind = "active"
}
