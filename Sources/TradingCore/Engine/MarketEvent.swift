/// Something the market did, as the engine sees it. A value type with inline storage: feeding one to the
/// engine allocates nothing.
public struct MarketEvent: Sendable {
    public var instrument: InstrumentID
    public var time: Timestamp
    public var kind: Kind

    public enum Kind: Sendable {
        /// Top-of-book and depth (up to five levels a side, as A-share quotes carry).
        case quote(Quote)
        /// A print: price and size.
        case trade(price: Price, size: Quantity)
        /// An OHLCV bar that ended at `time` (for bar-driven backtests).
        case bar(Bar)
        /// The opening or closing auction's uncrossing price and matched volume.
        case auction(AuctionKind, price: Price, volume: Quantity)
        /// The day's reference data: the previous close that price limits and day change are measured from.
        case reference(previousClose: Price)
    }

    public init(instrument: InstrumentID, time: Timestamp, kind: Kind) {
        self.instrument = instrument
        self.time = time
        self.kind = kind
    }

    public static func quote(
        _ instrument: InstrumentID, at time: Timestamp, bid: Price, bidSize: Quantity,
        ask: Price, askSize: Quantity
    ) -> MarketEvent {
        MarketEvent(
            instrument: instrument, time: time,
            kind: .quote(Quote(bids: BookSide([(bid, bidSize)]), asks: BookSide([(ask, askSize)]))))
    }

    public static func trade(_ instrument: InstrumentID, at time: Timestamp, price: Price, size: Quantity)
        -> MarketEvent
    {
        MarketEvent(instrument: instrument, time: time, kind: .trade(price: price, size: size))
    }
}

public enum AuctionKind: String, Sendable, Codable, Hashable {
    case open, close
}

/// Both sides of a quote.
public struct Quote: Sendable, Hashable {
    public var bids: BookSide
    public var asks: BookSide
    /// Shares traded so far in the session, when the source says (a game's volume-share rule reads it).
    public var dayVolume: Quantity?

    public init(bids: BookSide, asks: BookSide, dayVolume: Quantity? = nil) {
        self.bids = bids
        self.asks = asks
        self.dayVolume = dayVolume
    }
}

/// Price levels of one side, best first. An empty side (ask at limit-up, bid at limit-down) has count 0.
public struct BookSide: Sendable, Hashable {
    public static let capacity = 5

    public struct Level: Sendable, Hashable {
        public var price: Price
        public var size: Quantity
    }

    @usableFromInline var storage: InlineArray<5, Level>
    public private(set) var count: Int

    public static let empty = BookSide([])

    /// Levels beyond five are dropped; levels with no size are skipped.
    public init(_ levels: [(Price, Quantity)]) {
        storage = InlineArray(repeating: Level(price: .zero, size: .zero))
        count = 0
        for (price, size) in levels where count < Self.capacity && size.isPositive && price.isPositive {
            storage[count] = Level(price: price, size: size)
            count += 1
        }
    }

    @inlinable public subscript(i: Int) -> Level { storage[i] }

    public var best: Level? { count > 0 ? storage[0] : nil }
    public var isEmpty: Bool { count == 0 }

    public static func == (lhs: BookSide, rhs: BookSide) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs[i] != rhs[i] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for i in 0..<count { hasher.combine(storage[i]) }
    }
}

/// An OHLCV bar.
public struct Bar: Sendable, Hashable {
    public var open: Price
    public var high: Price
    public var low: Price
    public var close: Price
    public var volume: Quantity

    public init(open: Price, high: Price, low: Price, close: Price, volume: Quantity) {
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}
