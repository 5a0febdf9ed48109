/// A dense index of an instrument inside one engine: the hot path looks books up by it, never by string.
public struct InstrumentID: Sendable, Hashable, Comparable {
    public let index: Int32
    public init(_ index: Int32) { self.index = index }
    public static func < (lhs: InstrumentID, rhs: InstrumentID) -> Bool { lhs.index < rhs.index }
    public func hash(into hasher: inout Hasher) { hasher.combine(index) }
    /// Dense small integers, mixed with the table's seed (see `Identifier._rawHashValue`): positions are looked up by
    /// instrument on every fill.
    public func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(UInt32(bitPattern: index)) ^ UInt64(bitPattern: Int64(seed))
        x = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 29)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 32))
    }
}

/// Stored as a bare integer. Rows written before that (`{"index": n}`) still decode.
extension InstrumentID: Codable {
    private enum CodingKeys: String, CodingKey { case index }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: CodingKeys.self), keyed.contains(.index) {
            index = try keyed.decode(Int32.self, forKey: .index)
        } else {
            index = try decoder.singleValueContainer().decode(Int32.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(index)
    }
}

/// A tradable (or quotable) instrument with the market rules that apply to it — markets are data here, not
/// branches in the engine.
///
/// A value with copy-on-write storage, as `Order` is: its ~350 bytes of fields (two strings, the rules, an option's
/// contract) sit in one heap block that copies share. The engine reads an instrument for every step of an order —
/// validation, reservation, each fill, booking — and copying the fields out of its table (with a retain and release
/// of every string in them) was ten copies an order, ~3 KB of `memcpy`: now a copy is one reference.
public struct Instrument: Sendable, Codable, Hashable, CustomReflectable {
    /// The stored fields, documented on the accessors below. The synthesized `Codable` writes them under their names,
    /// as `Instrument` itself did when they were its stored properties.
    struct Fields: Sendable, Codable, Hashable {
        var symbol: String
        var name: String
        var exchange: Exchange
        var board: Board
        var kind: InstrumentKind
        var currency: Currency
        var lot: LotRule
        var tick: TickRule
        var priceLimit: PriceLimitRule
        var sellableSameDay: Bool
        var fractionable: Bool
        var isRiskWarning: Bool
        var listingDate: CivilDate?
        var maximumOrderQty: Quantity?
        var option: OptionContract?
    }

    private var storage: CopyOnWrite<Fields>

    /// "AAPL", "600519".
    public var symbol: String {
        get { storage.fields.symbol }
        _modify { yield &storage.fields.symbol }
    }
    public var name: String {
        get { storage.fields.name }
        _modify { yield &storage.fields.name }
    }
    public var exchange: Exchange {
        get { storage.fields.exchange }
        _modify { yield &storage.fields.exchange }
    }
    public var board: Board {
        get { storage.fields.board }
        _modify { yield &storage.fields.board }
    }
    public var kind: InstrumentKind {
        get { storage.fields.kind }
        _modify { yield &storage.fields.kind }
    }
    public var currency: Currency {
        get { storage.fields.currency }
        _modify { yield &storage.fields.currency }
    }
    public var lot: LotRule {
        get { storage.fields.lot }
        _modify { yield &storage.fields.lot }
    }
    public var tick: TickRule {
        get { storage.fields.tick }
        _modify { yield &storage.fields.tick }
    }
    public var priceLimit: PriceLimitRule {
        get { storage.fields.priceLimit }
        _modify { yield &storage.fields.priceLimit }
    }
    /// Whether shares bought today can be sold today (false for A-shares: T+1).
    public var sellableSameDay: Bool {
        get { storage.fields.sellableSameDay }
        _modify { yield &storage.fields.sellableSameDay }
    }
    /// Whether notional (fractional) market orders are allowed.
    public var fractionable: Bool {
        get { storage.fields.fractionable }
        _modify { yield &storage.fields.fractionable }
    }
    /// ST / *ST risk-warning stock.
    public var isRiskWarning: Bool {
        get { storage.fields.isRiskWarning }
        _modify { yield &storage.fields.isRiskWarning }
    }
    public var listingDate: CivilDate? {
        get { storage.fields.listingDate }
        _modify { yield &storage.fields.listingDate }
    }
    /// Largest single order in shares (SSE main board: 1,000,000), if the exchange sets one.
    public var maximumOrderQty: Quantity? {
        get { storage.fields.maximumOrderQty }
        _modify { yield &storage.fields.maximumOrderQty }
    }
    /// The contract, when the instrument is a listed option (`kind == .option`): quantities are contracts, prices
    /// are premiums per share, and every value is price × qty × the contract's multiplier.
    public var option: OptionContract? {
        get { storage.fields.option }
        _modify { yield &storage.fields.option }
    }

    public static func == (lhs: Instrument, rhs: Instrument) -> Bool {
        lhs.storage.shares(rhs.storage) || lhs.storage.fields == rhs.storage.fields
    }
    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }
    public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }
    /// Prints (in test failures, the debugger) as its fields.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage.fields).children, displayStyle: .struct)
    }

    public var market: Market { exchange.market }
    /// Shares one unit of quantity stands for: the contract's multiplier for an option (100), else 1. A trade's value,
    /// a position's market value and cost basis are price × qty × multiplier.
    public var multiplier: Quantity { option.map { FixedDecimal($0.multiplier) } ?? .one }
    /// When the instrument's daily bar ends, in its calendar's time zone (what a daily bar is stamped with, as a
    /// strategy sees it): the close — 16:00 New York, 15:00 Shanghai — or, for a crypto pair, the end of the UTC day
    /// (23:59), and for a currency pair the forex day's roll at 17:00 New York.
    public var dailyBarEnd: (hour: Int, minute: Int) {
        switch kind {
        case .crypto: return (23, 59)
        case .forex: return (17, 0)
        default: return market == .cn ? (15, 0) : (16, 0)
        }
    }

    /// The instrument's trading calendar: its market's, around the clock for a crypto pair, and the forex week
    /// (Sunday 17:00 to Friday 17:00 New York) for a currency pair.
    public var calendar: TradingCalendar {
        switch kind {
        case .crypto: return .crypto
        case .forex: return .forex
        default: return market.calendar
        }
    }

    /// A currency pair's two currencies (`EUR.USD`: euros priced in dollars), or nil for anything else.
    public var currencyPair: CurrencyPair? {
        kind == .forex ? CurrencyPair(symbol: symbol) : nil
    }

    public init(
        symbol: String, name: String, exchange: Exchange, board: Board, kind: InstrumentKind,
        currency: Currency, lot: LotRule, tick: TickRule, priceLimit: PriceLimitRule,
        sellableSameDay: Bool, fractionable: Bool, isRiskWarning: Bool = false,
        listingDate: CivilDate? = nil, maximumOrderQty: Quantity? = nil, option: OptionContract? = nil
    ) {
        storage = CopyOnWrite(
            Fields(
                symbol: symbol, name: name, exchange: exchange, board: board, kind: kind, currency: currency, lot: lot,
                tick: tick, priceLimit: priceLimit, sellableSameDay: sellableSameDay, fractionable: fractionable,
                isRiskWarning: isRiskWarning, listingDate: listingDate, maximumOrderQty: maximumOrderQty, option: option
            ))
    }

    /// A US stock or ETF: whole shares (fractional through notional orders), Rule 612 ticks, no price limits,
    /// sellable the day it is bought.
    public static func usEquity(
        _ symbol: String, name: String, exchange: Exchange = .nasdaq,
        kind: InstrumentKind = .stock, fractionable: Bool = true
    ) -> Instrument {
        Instrument(
            symbol: symbol, name: name, exchange: exchange, board: .us, kind: kind, currency: .usd,
            lot: .anyWholeShares, tick: .usEquity, priceLimit: .none, sellableSameDay: true,
            fractionable: fractionable)
    }

    /// A crypto pair quoted in US dollars, as Alpaca lists it (`BTC/USD`): fractional quantities of at least
    /// `minimumOrder` in steps of `increment`, prices in steps of `priceIncrement`, no price limits, every second of
    /// every day (`TradingCalendar.crypto`), sellable at once; never sold short or bought on margin.
    public static func cryptoPair(
        _ symbol: String, name: String, minimumOrder: Quantity, increment: Quantity, priceIncrement: Price
    ) -> Instrument {
        Instrument(
            symbol: symbol, name: name, exchange: .crypto, board: .crypto, kind: .crypto, currency: .usd,
            lot: .fractional(minimum: minimumOrder, increment: increment), tick: .fixed(priceIncrement),
            priceLimit: .none, sellableSameDay: true, fractionable: true)
    }

    /// A currency pair as IB writes it (`EUR.USD`, secType `CASH` on IDEALPRO): quantities in the base currency to
    /// a hundredth of a unit, prices in the quote currency in steps of `tick` (a tenth of a pip: 0.00001, or 0.001
    /// for the yen), no price limits, traded from Sunday 17:00 to Friday 17:00 New York (`TradingCalendar.forex`);
    /// its currency is the quote currency. Nil unless both halves are currencies papertrade knows.
    public static func forexPair(_ symbol: String, name: String, tick: Price) -> Instrument? {
        guard let pair = CurrencyPair(symbol: symbol), tick.isPositive else { return nil }
        return Instrument(
            symbol: symbol, name: name, exchange: .idealpro, board: .forex, kind: .forex, currency: pair.quote,
            lot: .fractional(
                minimum: FixedDecimal(units: 1, exponent: 2), increment: FixedDecimal(units: 1, exponent: 2)),
            tick: .fixed(tick), priceLimit: .none, sellableSameDay: true, fractionable: true)
    }

    /// A US equity or ETF option: whole contracts, premiums on the Penny Program's ticks (pennies below $3, nickels
    /// from $3, or pennies at every price for the classes that quote so), no price limits, closable the day it is
    /// opened, no notional orders. Its symbol is the OCC symbol as Alpaca writes it.
    public static func usOption(_ contract: OptionContract, penniesEverywhere: Bool) -> Instrument {
        Instrument(
            symbol: contract.occSymbol, name: contract.name, exchange: .opra, board: .us, kind: .option,
            currency: .usd, lot: .anyWholeShares, tick: penniesEverywhere ? .usOptionPennies : .usOption,
            priceLimit: .none, sellableSameDay: true, fractionable: false, option: contract)
    }

    /// An A-share, with exchange and board derived from its six-digit code, and the board's lot, tick and
    /// price-limit rules. The name decides ST status ("ST", "*ST"). nil for a code that is not an A-share.
    public static func aShare(_ code: String, name: String, listingDate: CivilDate? = nil) -> Instrument? {
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let riskWarning = name.uppercased().hasPrefix("ST") || name.uppercased().hasPrefix("*ST")
        let prefix3 = String(code.prefix(3))
        let prefix2 = String(code.prefix(2))
        let exchange: Exchange
        let board: Board
        var kind = InstrumentKind.stock
        switch prefix3 {
        case "600", "601", "603", "605": (exchange, board) = (.sse, .main)
        case "688", "689": (exchange, board) = (.sse, .star)
        case "000", "001", "002", "003": (exchange, board) = (.szse, .main)
        case "300", "301": (exchange, board) = (.szse, .chinext)
        case "920": (exchange, board) = (.bse, .beijing)
        case "900": (exchange, board) = (.sse, .bShare)
        case "200": (exchange, board) = (.szse, .bShare)
        default:
            switch prefix2 {
            case "43", "83", "87": (exchange, board) = (.bse, .beijing)
            case "51", "56", "58": (exchange, board, kind) = (.sse, .main, .fund)
            case "15", "16": (exchange, board, kind) = (.szse, .main, .fund)
            default: return nil
            }
        }
        let lot: LotRule
        let limit: PriceLimitRule
        var maximum: Quantity?
        switch board {
        case .star:
            lot = .minimumThenIncrement(minimum: 200)
            limit = .growthBoard
            maximum = FixedDecimal(100_000)
        case .chinext:
            lot = .boardLot(100)
            limit = .growthBoard
            maximum = FixedDecimal(1_000_000)
        case .beijing:
            lot = .minimumThenIncrement(minimum: 100)
            limit = .beijing
            maximum = FixedDecimal(1_000_000)
        default:
            lot = .boardLot(100)
            limit = riskWarning ? .riskWarning : .mainBoard
            maximum = FixedDecimal(1_000_000)
        }
        let currency: Currency = board == .bShare ? (exchange == .sse ? .usd : .hkd) : .cny
        return Instrument(
            symbol: code, name: name, exchange: exchange, board: board, kind: kind, currency: currency,
            lot: lot, tick: kind == .fund ? .tenthOfCent : .cent, priceLimit: limit,
            sellableSameDay: false, fractionable: false, isRiskWarning: riskWarning,
            listingDate: listingDate, maximumOrderQty: maximum)
    }
}

/// Whether shares of an instrument can be borrowed to sell short, and at what cost. papertrade's simulated
/// stock-loan desk decides it from the symbol alone, so it is the same on every run and every server: most US names
/// are easy to borrow; about one in eight is hard to borrow (a daily fee at an annual rate of 5% to 50%); about one in
/// twenty-five cannot be borrowed. Indexes and A-shares (no 融券 here) are never shortable.
public struct BorrowAvailability: Sendable, Hashable {
    public var shortable: Bool
    public var easyToBorrow: Bool
    /// Annual fee rate on the value of hard-to-borrow shares held short (zero when easy to borrow).
    public var feeRate: FixedDecimal

    public static let unavailable = BorrowAvailability(shortable: false, easyToBorrow: false, feeRate: .zero)
    public static let easy = BorrowAvailability(shortable: true, easyToBorrow: true, feeRate: .zero)
}

extension Instrument {
    public var borrow: BorrowAvailability {
        guard market == .us, kind == .stock || kind == .etf else { return .unavailable }
        // FNV-1a over the symbol's bytes: stable across runs (Swift's Hasher is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in symbol.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let bucket = hash % 200
        if bucket < 8 { return .unavailable }
        guard bucket < 33 else { return .easy }
        // 5%, 10%, … 50% a year.
        let rate = FixedDecimal(units: 5 + 5 * Int((hash / 200) % 10), exponent: 2)
        return BorrowAvailability(shortable: true, easyToBorrow: false, feeRate: rate)
    }
}
