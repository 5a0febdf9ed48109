/// The trading core as one pure state machine: commands and market events in, order updates and ledger
/// entries out. Time is passed in with every call; randomness comes from the configured seed.
///
/// One engine is a single-writer shard (LMAX style): it owns some accounts and the order books of every
/// instrument they trade. The owner (the Brokerage) serializes calls, writes `outbox` durably, then drains it.
public struct TradingEngine: Sendable {
    public internal(set) var configuration: EngineConfiguration
    public internal(set) var instruments: [Instrument] = []
    public internal(set) var accounts: [AccountID: Account] = [:]
    /// Every order the engine has seen since it was created or restored, open and closed.
    public internal(set) var orders: [OrderID: Order] = [:]
    /// Events produced since the caller last drained them, in order.
    public var outbox: [EngineEvent] = []

    var symbols: [String: InstrumentID] = [:]
    var books: [InstrumentBook] = []
    var openOrders: Set<OrderID> = []
    var rng: SeededGenerator
    /// The earliest `expiresAt` of any open order: market events past it run expiry first.
    var nextDeadline: Timestamp = .distantFuture
    var sessionCache = SessionCache()
    /// Scratch space for the matching loop, kept to avoid allocating per event.
    var candidates: [OrderID] = []

    public init(configuration: EngineConfiguration = EngineConfiguration()) {
        self.configuration = configuration
        rng = SeededGenerator(seed: configuration.seed)
        candidates.reserveCapacity(64)
    }

    // MARK: Instruments

    /// Adds an instrument (or returns the id it already has). Ids are dense, in registration order.
    @discardableResult
    public mutating func register(_ instrument: Instrument) -> InstrumentID {
        if let id = symbols[instrument.symbol] { return id }
        let id = InstrumentID(Int32(instruments.count))
        instruments.append(instrument)
        books.append(InstrumentBook())
        symbols[instrument.symbol] = id
        return id
    }

    public func instrumentID(for symbol: String) -> InstrumentID? { symbols[symbol] }

    public func instrument(_ id: InstrumentID) -> Instrument { instruments[Int(id.index)] }

    /// The last quote seen for an instrument.
    public func lastQuote(_ id: InstrumentID) -> Quote? { books[Int(id.index)].quote }
    /// The last trade price seen.
    public func lastTradePrice(_ id: InstrumentID) -> Price? { books[Int(id.index)].lastTrade }
    /// Today's price band (A-shares), once a reference event has set it.
    public func priceBand(_ id: InstrumentID) -> PriceBand? { books[Int(id.index)].band }
    public func previousClose(_ id: InstrumentID) -> Price? { books[Int(id.index)].previousClose }

    // MARK: Accounts

    /// Opens an account with its starting cash (as a first deposit-free balance; `reset` returns to it).
    public mutating func openAccount(_ id: AccountID, market: Market, startingCash: FixedDecimal,
                                     fees: FeeSchedule? = nil) throws(OrderRejection) {
        guard accounts[id] == nil else { throw OrderRejection(.invalidInput, "account \(id) already exists") }
        guard !startingCash.isNegative, startingCash.isMultiple(of: market.currency.minorUnit) else {
            throw OrderRejection(.invalidInput, "starting cash must be a non-negative amount in \(market.currency.rawValue) cents")
        }
        accounts[id] = Account(id: id, market: market, startingCash: startingCash, fees: fees)
    }

    public func account(_ id: AccountID) -> Account? { accounts[id] }

    /// Changes an account's fee schedule (applies to fills from now on).
    public mutating func setFees(_ fees: FeeSchedule, for id: AccountID) throws(OrderRejection) {
        guard accounts[id] != nil else { throw Self.unknownAccount(id) }
        accounts[id]?.fees = fees
    }

    /// Adds cash. Amounts must be positive and in whole minor units (cents, fen).
    @discardableResult
    public mutating func deposit(_ amount: FixedDecimal, to id: AccountID, method: TransferMethod, note: String? = nil,
                                 at time: Timestamp) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        try Self.validateTransferAmount(amount, currency: account.currency)
        return record(.deposit(method: method, note: note), cashChange: amount, account: id, at: time)
    }

    /// Removes cash; never more than the buying power (cash not held for open orders).
    @discardableResult
    public mutating func withdraw(_ amount: FixedDecimal, from id: AccountID, method: TransferMethod = .bank,
                                  note: String? = nil, at time: Timestamp) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        try Self.validateTransferAmount(amount, currency: account.currency)
        guard amount <= account.buyingPower else {
            throw OrderRejection(.insufficientBuyingPower,
                                 "cannot withdraw \(amount.formatted(places: 2)) \(account.currency.rawValue): only \(account.buyingPower.formatted(places: 2)) is available")
        }
        return record(.withdrawal(method: method, note: note), cashChange: -amount, account: id, at: time)
    }

    /// Cancels every open order, closes out every position (without trading) and sets cash back to the
    /// starting balance. The account keeps its id (and so its API keys) and its history.
    @discardableResult
    public mutating func reset(_ id: AccountID, startingCash: FixedDecimal? = nil, at time: Timestamp) throws(OrderRejection) -> LedgerEntry {
        var account = try existingAccount(id)
        if let startingCash {
            guard !startingCash.isNegative, startingCash.isMultiple(of: account.currency.minorUnit) else {
                throw OrderRejection(.invalidInput, "starting cash must be a non-negative amount in \(account.currency.rawValue) cents")
            }
            account.startingCash = startingCash
            accounts[id] = account
        }
        for orderID in openOrders where orders[orderID]?.accountID == id {
            finish(orderID, status: .canceled, event: .canceled, reason: "account reset", at: time)
        }
        let start = accounts[id]?.startingCash ?? .zero
        let change = start - (accounts[id]?.cash ?? .zero)
        accounts[id]?.positions = [:]
        accounts[id]?.reservedCash = .zero
        accounts[id]?.totalFees = .zero
        return record(.reset(startingCash: start), cashChange: change, account: id, at: time)
    }

    // MARK: Helpers shared by the command files

    func existingAccount(_ id: AccountID) throws(OrderRejection) -> Account {
        guard let account = accounts[id] else { throw Self.unknownAccount(id) }
        return account
    }

    static func unknownAccount(_ id: AccountID) -> OrderRejection {
        OrderRejection(.unknownAccount, "account \(id) not found")
    }

    static func validateTransferAmount(_ amount: FixedDecimal, currency: Currency) throws(OrderRejection) {
        guard amount.isPositive else { throw OrderRejection(.invalidInput, "amount must be greater than 0") }
        guard amount.isMultiple(of: currency.minorUnit) else {
            throw OrderRejection(.invalidInput, "amount \(amount) has more than \(currency.minorUnitDigits) decimal places")
        }
        guard amount <= FixedDecimal(1_000_000_000_000) else {
            throw OrderRejection(.invalidInput, "amount \(amount) exceeds the maximum of 1000000000000")
        }
    }

    /// Appends a ledger entry, applies its cash change and publishes it.
    @discardableResult
    mutating func record(_ kind: LedgerEntry.Kind, cashChange: FixedDecimal, account id: AccountID,
                         at time: Timestamp) -> LedgerEntry {
        let sequence = (accounts[id]?.lastSequence ?? 0) + 1
        accounts[id]?.lastSequence = sequence
        accounts[id]?.cash += cashChange
        let entry = LedgerEntry(sequence: sequence, accountID: id, time: time, kind: kind, cashChange: cashChange)
        outbox.append(.ledger(entry))
        return entry
    }

    mutating func newIdentifier() -> Identifier { Identifier.random(using: &rng) }

    /// The trading date that settlement rules use for an instrument at a time.
    func tradingDate(_ instrument: Instrument, at time: Timestamp) -> CivilDate {
        switch configuration.sessions {
        case .alwaysOpen: return instrument.calendar.zone.localTime(of: time).date
        case .exchangeCalendars: return instrument.calendar.tradingDate(at: time)
        }
    }

    /// Market phase of an instrument's exchange at a time (cached per calendar: cheap per event).
    mutating func phase(of instrument: Instrument, at time: Timestamp) -> MarketPhase {
        if configuration.sessions == .alwaysOpen { return .continuous }
        return sessionCache.phase(instrument.calendar, at: time)
    }

    /// Current position quantity of an account in an instrument.
    func positionQty(_ account: AccountID, _ instrument: InstrumentID) -> Quantity {
        accounts[account]?.positions[instrument]?.qty ?? .zero
    }
}

/// Remembers the current session period of each calendar so per-event phase lookups are two comparisons.
struct SessionCache: Sendable {
    private var windows: [TradingCalendar.Identifier: (start: Timestamp, end: Timestamp, phase: MarketPhase)] = [:]

    mutating func phase(_ calendar: TradingCalendar, at time: Timestamp) -> MarketPhase {
        if let w = windows[calendar.identifier], time >= w.start, time < w.end { return w.phase }
        let window = Self.window(calendar, at: time)
        windows[calendar.identifier] = window
        return window.phase
    }

    /// The maximal interval around `time` with one phase (closed gaps included).
    static func window(_ calendar: TradingCalendar, at time: Timestamp) -> (start: Timestamp, end: Timestamp, phase: MarketPhase) {
        let date = calendar.zone.localTime(of: time).date
        // Periods of yesterday, today and tomorrow bound any gap around `time`.
        var periods: [DaySchedule.Period] = []
        for d in [date.adding(days: -1), date, date.adding(days: 1)] {
            if let day = calendar.schedule(on: d) { periods += day.periods }
        }
        var previousEnd = Timestamp(date.adding(days: -1), in: calendar.zone)
        for period in periods {
            if time < period.start { return (previousEnd, period.start, .closed) }
            if time < period.end { return (period.start, period.end, period.phase) }
            previousEnd = period.end
        }
        return (previousEnd, Timestamp(date.adding(days: 2), in: calendar.zone), .closed)
    }
}
