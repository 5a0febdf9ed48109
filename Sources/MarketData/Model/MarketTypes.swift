import TradingCore

/// An OHLCV bar labelled by the start of its interval (Alpaca's convention), in exact decimals.
public struct PriceBar: Sendable, Hashable {
    public var time: Timestamp
    public var open: Price
    public var high: Price
    public var low: Price
    public var close: Price
    public var volume: Quantity
    /// Number of trades, and volume-weighted average price (Alpaca's `n` and `vw`).
    public var tradeCount: Int
    public var vwap: Price
    /// Traded value in the instrument's currency (A-share quotes show it as 成交额).
    public var turnover: FixedDecimal

    public init(
        time: Timestamp, open: Price, high: Price, low: Price, close: Price, volume: Quantity,
        tradeCount: Int, vwap: Price, turnover: FixedDecimal
    ) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
        self.tradeCount = tradeCount
        self.vwap = vwap
        self.turnover = turnover
    }

    /// The bar as the fill engine consumes it.
    public var engineBar: Bar { Bar(open: open, high: high, low: low, close: close, volume: volume) }
}

/// Bar sizes: Alpaca's timeframes and the app's K-line tabs (intraday, daily, weekly, monthly).
public enum BarTimeframe: Sendable, Hashable, CustomStringConvertible {
    case minutes(Int)
    case hours(Int)
    case day
    case week
    case month

    /// Parses Alpaca's forms: "1Min", "5Min", "15Min", "30Min", "1Hour", "1Day", "1Week", "1Month" (also "5T", "1H", "1D").
    public init?(_ text: String) {
        let digits = text.prefix { $0.isNumber }
        let amount = digits.isEmpty ? 1 : Int(digits) ?? 0
        let unit = text.dropFirst(digits.count).lowercased()
        switch unit {
        case "min", "t":
            guard (1...59).contains(amount) else { return nil }
            self = .minutes(amount)
        case "hour", "h":
            guard (1...23).contains(amount) else { return nil }
            self = .hours(amount)
        case "day", "d":
            guard amount == 1 else { return nil }
            self = .day
        case "week", "w":
            guard amount == 1 else { return nil }
            self = .week
        case "month", "m":
            guard amount == 1 else { return nil }
            self = .month
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .minutes(let n): return "\(n)Min"
        case .hours(let n): return "\(n)Hour"
        case .day: return "1Day"
        case .week: return "1Week"
        case .month: return "1Month"
        }
    }

    public var isIntraday: Bool {
        switch self {
        case .minutes, .hours: return true
        default: return false
        }
    }

    /// Minutes per intraday bar.
    public var minutes: Int {
        switch self {
        case .minutes(let n): return n
        case .hours(let n): return 60 * n
        default: return 0
        }
    }
}

/// A quote snapshot: what the stock detail screen, Alpaca snapshots and the fill engine need.
public struct MarketQuote: Sendable, Hashable {
    public var symbol: String
    /// When these values were true (for a provider: the data's own timestamp, so stale data shows as stale).
    public var time: Timestamp
    public var last: Price
    /// Today's (or the last session's) open, high, low; nil before the first trade of the session.
    public var open: Price?
    public var high: Price?
    public var low: Price?
    public var previousClose: Price
    public var volume: Quantity
    public var turnover: FixedDecimal
    public var bids: BookSide
    public var asks: BookSide
    /// A-share daily limits.
    public var limitUp: Price?
    public var limitDown: Price?
    public var phase: MarketPhase
    /// The trading day the values belong to.
    public var tradingDate: CivilDate
    /// When `last` traded, where the source knows: the close's time after a session ends, not the moment asked
    /// (nil: `time`).
    public var lastTradeTime: Timestamp? = nil
    /// The halt under way (US trading pauses and news halts): the last price stands, with no bids or offers, until
    /// the reopening.
    public var halt: TradingHalt? = nil
    /// The provider quotes a last price and no book (Finnhub's `/quote`, Yahoo's chart): orders trade at that price
    /// (`engineQuote`), and the quote shows no bids or offers.
    public var lastPriceOnly = false

    public var isHalted: Bool { halt != nil }

    public var change: FixedDecimal { last - previousClose }

    /// Change as a percentage (1.5 = +1.5%), two places, half-up.
    public var changePercent: FixedDecimal {
        guard previousClose.isPositive else { return .zero }
        return (change.times(100)).divided(by: previousClose, places: 2, rule: .halfUp) ?? .zero
    }

    /// The quote as a market event for the fill engine.
    public func event(for instrument: InstrumentID) -> MarketEvent {
        MarketEvent(instrument: instrument, time: time, kind: .quote(engineQuote))
    }

    /// The bid and ask levels as the engine's quote. A last-price-only quote (`lastPriceOnly`) is traded at its last
    /// price: one level each side at `last`, `lastPriceDepth` deep (the engine takes its participation share of it).
    public var engineQuote: Quote {
        guard lastPriceOnly, bids.isEmpty, asks.isEmpty, halt == nil, last.isPositive else {
            return Quote(bids: bids, asks: asks, dayVolume: volume)
        }
        let level = BookSide([(last, Self.lastPriceDepth)])
        return Quote(bids: level, asks: level, dayVolume: volume)
    }

    /// Shares (or units) a last-price-only quote offers at its price, each side.
    public static let lastPriceDepth: Quantity = 1_000_000
}

/// A print.
public struct TradeTick: Sendable, Hashable {
    public var symbol: String
    public var time: Timestamp
    public var price: Price
    public var size: Quantity
}

/// The best bid and offer at an instant (historical quotes).
public struct TopOfBook: Sendable, Hashable {
    public var symbol: String
    public var time: Timestamp
    public var bidPrice: Price
    public var bidSize: Quantity
    public var askPrice: Price
    public var askSize: Quantity
}

/// A trading day's opening and closing auctions: the official open and close prints with the auction volume.
public struct DailyAuctions: Sendable, Hashable {
    public struct Print: Sendable, Hashable {
        public var time: Timestamp
        public var price: Price
        public var size: Quantity
    }
    public var date: CivilDate
    public var opening: Print?
    public var closing: Print?
}

/// A market index for the home screen's overview.
public struct IndexQuote: Sendable, Hashable {
    public var index: MarketIndex
    public var time: Timestamp
    public var value: FixedDecimal
    public var previousClose: FixedDecimal
    public var change: FixedDecimal { value - previousClose }
    public var changePercent: FixedDecimal {
        previousClose.isPositive
            ? (change.times(100)).divided(by: previousClose, places: 2, rule: .halfUp) ?? .zero : .zero
    }
}

/// The indices of the market overview.
public enum MarketIndex: String, Sendable, CaseIterable, Hashable {
    case sseComposite = "sh000001"
    case szseComponent = "sz399001"
    case csi300 = "sh000300"
    case nasdaqComposite = "^IXIC"
    case nasdaq100 = "^NDX"
    case dowJones = "^DJI"
    case sp500 = "^GSPC"

    public var name: String {
        switch self {
        case .sseComposite: return "SSE Composite"
        case .szseComponent: return "SZSE Component"
        case .csi300: return "CSI 300"
        case .nasdaqComposite: return "NASDAQ Composite"
        case .nasdaq100: return "Nasdaq-100"
        case .dowJones: return "Dow Jones Industrial Average"
        case .sp500: return "S&P 500"
        }
    }

    public var market: Market {
        switch self {
        case .sseComposite, .szseComponent, .csi300: return .cn
        default: return .us
        }
    }
}

/// Which movers list.
public enum MoverKind: String, Sendable, CaseIterable, Hashable {
    case gainers, losers, active
}

/// A movers row.
public struct Mover: Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var last: Price
    public var change: FixedDecimal
    public var changePercent: FixedDecimal
    public var volume: Quantity

    public init(
        symbol: String, name: String, last: Price, change: FixedDecimal, changePercent: FixedDecimal, volume: Quantity
    ) {
        self.symbol = symbol
        self.name = name
        self.last = last
        self.change = change
        self.changePercent = changePercent
        self.volume = volume
    }

    /// `movers` in the order of `kind`: the largest rise, the largest fall, or the most money traded; ties by symbol.
    public static func ranked(_ movers: [Mover], _ kind: MoverKind) -> [Mover] {
        switch kind {
        case .gainers: movers.sorted { ($0.changePercent, $1.symbol) > ($1.changePercent, $0.symbol) }
        case .losers: movers.sorted { ($0.changePercent, $0.symbol) < ($1.changePercent, $1.symbol) }
        case .active:
            movers.sorted {
                ($0.volume.multiplied(by: $0.last), $1.symbol) > ($1.volume.multiplied(by: $1.last), $0.symbol)
            }
        }
    }
}
