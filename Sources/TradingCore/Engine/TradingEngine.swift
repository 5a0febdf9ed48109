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
    public internal(set) var orders = OrderTable()
    /// Events produced since the caller last drained them, in order.
    public var outbox: [EngineEvent] = []

    var symbols: [String: InstrumentID] = [:]
    var books: [InstrumentBook] = []
    /// Where each working order sits in its instrument's `InstrumentBook.resting` (one table for every book, sharded so
    /// that a book of hundreds of thousands of orders never rehashes in one step).
    var bookPositions = ShardedDictionary<OrderID, Int>()
    var openOrders = ShardedSet<OrderID>()
    /// Every client order id each account has used (an account may not reuse one), with its order.
    var clientOrderIDs = ClientOrderIndex()
    /// Orders closed since the last `pruneClosedOrders()`.
    var closedOrders: [OrderID] = []
    var rng: SeededGenerator
    /// The last id `newIdentifier` made (ids only increase, even within one clock tick).
    var lastIdentifier: Identifier?
    /// The earliest `expiresAt` of any open order: market events past it run expiry first.
    var nextDeadline: Timestamp = .distantFuture
    var sessionCache = SessionCache()
    /// Open multi-leg orders (their parents) by the contracts of their legs: a quote of one tries them.
    var packages: [InstrumentID: [OrderID]] = [:]
    /// Scratch space for the matching loop, kept to avoid allocating per event.
    var candidates: [RestingOrder] = []

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
    /// Today's price band (A-shares), once a reference event has set it.
    public func priceBand(_ id: InstrumentID) -> PriceBand? { books[Int(id.index)].band }
    public func previousClose(_ id: InstrumentID) -> Price? { books[Int(id.index)].previousClose }

    /// Instruments with at least one working (not held) order: the ones market data must keep flowing to.
    public var instrumentsWithWorkingOrders: [InstrumentID] {
        books.indices.filter { !books[$0].resting.isEmpty || packages[InstrumentID(Int32($0))] != nil }
            .map { InstrumentID(Int32($0)) }
    }

    // MARK: Accounts

    /// Opens an account with its starting cash (as a first deposit-free balance; `reset` returns to it).
    public mutating func openAccount(
        _ id: AccountID, market: Market, startingCash: FixedDecimal,
        fees: FeeSchedule? = nil, terms: MarginTerms = .cash, gameRules: GameRules? = nil
    ) throws(OrderRejection) {
        guard accounts[id] == nil else { throw OrderRejection(.invalidInput, "account \(id) already exists") }
        guard !startingCash.isNegative, startingCash.isMultiple(of: market.currency.minorUnit) else {
            throw OrderRejection(
                .invalidInput, "starting cash must be a non-negative amount in \(market.currency.rawValue) cents")
        }
        guard market == .us || terms.type == .cash else {
            throw OrderRejection(.unsupported, "A-share accounts are cash accounts: margin trading is not offered")
        }
        accounts[id] = Account(
            id: id, market: market, startingCash: startingCash, fees: fees, terms: terms, gameRules: gameRules)
    }

    /// Changes a game account's rules (a game's owner moved its dates); orders already placed keep their terms.
    public mutating func setGameRules(_ rules: GameRules, for id: AccountID) throws(OrderRejection) {
        guard accounts[id]?.gameRules != nil else {
            throw OrderRejection(.invalidInput, "account \(id) does not play in a game")
        }
        accounts[id]?.gameRules = rules
    }

    public func account(_ id: AccountID) -> Account? { accounts[id] }

    /// What `body` reads from an account, without copying it (nil when there is no such account). A read through
    /// the dictionary (`accounts[id]?.cash`) copies the whole account — its positions, fee schedule and arrays
    /// retained and released — which the order path used to do several times per order.
    public mutating func readAccount<R>(_ id: AccountID, _ body: (borrowing Account) -> R) -> R? {
        withAccount(id) { body($0) }
    }

    /// Works on an account in place (nil when there is no such account).
    @discardableResult
    mutating func withAccount<R>(_ id: AccountID, _ body: (inout Account) -> R) -> R? {
        guard let index = accounts.index(forKey: id) else { return nil }
        return body(&accounts.values[index])
    }

    /// The price the engine values a holding at: the last trade, else the best bid.
    public func mark(_ id: InstrumentID) -> Price? {
        let i = Int(id.index)
        return books[i].lastTrade ?? books[i].bidPrice
    }

    /// An account's margin figures at the engine's marks (holdings it has no price for count at cost).
    public func margin(of id: AccountID) -> MarginState? {
        accounts[id].map { account in account.margin(marks: mark, rates: configuration.margin) }
    }

    /// What a buy of `instrument` at about `price` may spend: free cash on cash accounts; on margin accounts Reg T
    /// buying power, or the non-marginable figure for a stock under $2.50.
    func buyingPower(_ account: Account, for instrument: InstrumentID, price: Price) -> FixedDecimal {
        guard account.terms.type == .margin else { return account.buyingPower }
        let state = account.margin(marks: mark, rates: configuration.margin)
        guard state.isMargin else { return account.buyingPower }
        // Options, crypto and stocks under $2.50 are not marginable: they are paid for in full.
        let kind = instruments[Int(instrument.index)].kind
        let marginable = price >= configuration.margin.marginablePrice && kind != .option && kind != .crypto
        return marginable ? state.buyingPower : state.nonMarginableBuyingPower
    }

    /// Charges the night after the US close of `date` (through the next trading day: three nights over a weekend)
    /// of margin interest on the account's borrowed cash, once per close. Nil when nothing is owed or the close was
    /// charged already.
    @discardableResult
    public mutating func chargeMarginInterest(
        _ id: AccountID, close date: CivilDate, rate: FixedDecimal, at time: Timestamp
    ) -> LedgerEntry? {
        guard let account = accounts[id], account.terms.type == .margin,
            account.marginDayClosed.map({ $0 < date }) ?? true
        else { return nil }
        accounts[id]?.marginDayClosed = date
        let borrowed = -account.cash
        let nights = TradingCalendar.xnys.nextTradingDay(after: date).daysSinceEpoch - date.daysSinceEpoch
        let amount = MarginTerms.interest(on: borrowed, rate: rate, nights: nights)
        guard amount.isPositive else { return nil }
        return record(.interest(rate: rate, balance: borrowed), cashChange: -amount, account: id, at: time)
    }

    /// Charges the stock-loan fee of the night after the US close of `date` (three nights over a weekend) for each
    /// hard-to-borrow position held short: the value at `marks` (rounded up to the dollar, as brokers do) × the
    /// name's annual rate ÷ 360 per night, half-up to the cent. Call it once per close, before
    /// `chargeMarginInterest` marks the close as settled.
    @discardableResult
    public mutating func chargeBorrowFees(
        _ id: AccountID, close date: CivilDate, marks: (InstrumentID) -> Price?, at time: Timestamp
    ) -> [LedgerEntry] {
        guard let account = accounts[id], account.marginDayClosed.map({ $0 < date }) ?? true else { return [] }
        let nights = TradingCalendar.xnys.nextTradingDay(after: date).daysSinceEpoch - date.daysSinceEpoch
        var entries: [LedgerEntry] = []
        for position in account.positions.values.sorted(by: { $0.symbol < $1.symbol }) where position.isShort {
            let borrow = instruments[Int(position.instrument.index)].borrow
            guard !borrow.easyToBorrow, borrow.feeRate.isPositive else { continue }
            let mark = marks(position.instrument) ?? position.averageEntryPrice
            let value = position.value(at: mark).magnitude.rounded(places: 0, rule: .up)
            let fee = MarginTerms.interest(on: value, rate: borrow.feeRate, nights: nights)
            guard fee.isPositive else { continue }
            entries.append(
                record(
                    .borrowFee(
                        symbol: position.symbol, qty: position.qty.magnitude, rate: borrow.feeRate, value: value),
                    cashChange: -fee, account: id, at: time))
        }
        return entries
    }

    /// Records a margin call's step on the account (the call itself, or none once met or liquidated) and in its
    /// ledger.
    @discardableResult
    public mutating func recordMarginCall(
        _ id: AccountID, call: MarginCall?, deficit: FixedDecimal, event: MarginCallEvent, at time: Timestamp
    ) throws(OrderRejection) -> LedgerEntry {
        _ = try existingAccount(id)
        accounts[id]?.marginCall = call
        return record(.marginCall(deficit: deficit, event: event), cashChange: .zero, account: id, at: time)
    }

    /// Sets the house's margin requirements (applies to every margin account from now on).
    public mutating func setMarginRates(_ rates: MarginRates) { configuration.margin = rates }

    /// Changes an account's margin terms (cash or margin, and the largest multiplier). A-share accounts stay cash.
    public mutating func setMarginTerms(_ terms: MarginTerms, for id: AccountID) throws(OrderRejection) {
        let account = try existingAccount(id)
        guard MarginTerms.multipliers.contains(terms.maxMultiplier) else {
            throw OrderRejection(.invalidInput, "max_margin_multiplier must be 1, 2 or 4")
        }
        guard account.market == .us || terms.type == .cash else {
            throw OrderRejection(.unsupported, "A-share accounts are cash accounts: margin trading is not offered")
        }
        accounts[id]?.terms = terms
    }

    /// Adds cash. Amounts must be positive and in whole minor units (cents, fen).
    @discardableResult
    public mutating func deposit(
        _ amount: FixedDecimal, to id: AccountID, method: TransferMethod, note: String? = nil,
        at time: Timestamp
    ) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        if method != .adjustment { try Self.refuseGameTransfer(account) }
        try Self.validateTransferAmount(amount, currency: account.currency)
        // Deposits are capped one by one; a balance built from many of them is capped too, so that what is later
        // multiplied by it (margin, interest, a game's percentages) and stored stays far inside 128 bits.
        guard account.cash + amount <= Self.maximumBalance else {
            throw OrderRejection(
                .invalidInput,
                "this deposit would take the cash balance above the maximum of \(Self.maximumBalance)")
        }
        return record(.deposit(method: method, note: note), cashChange: amount, account: id, at: time)
    }

    /// Removes cash; never more than the buying power (cash not held for open orders).
    @discardableResult
    public mutating func withdraw(
        _ amount: FixedDecimal, from id: AccountID, method: TransferMethod = .bank,
        note: String? = nil, at time: Timestamp
    ) throws(OrderRejection) -> LedgerEntry {
        let account = try existingAccount(id)
        if method != .adjustment { try Self.refuseGameTransfer(account) }
        try Self.validateTransferAmount(amount, currency: account.currency)
        try Self.requireAvailable(amount, in: account, to: "withdraw")
        return record(.withdrawal(method: method, note: note), cashChange: -amount, account: id, at: time)
    }

    /// Cancels every open order, closes out every position (without trading) and sets cash back to the
    /// starting balance. The account keeps its id (and so its API keys) and its history.
    @discardableResult
    public mutating func reset(_ id: AccountID, startingCash: FixedDecimal? = nil, at time: Timestamp)
        throws(OrderRejection) -> LedgerEntry
    {
        var account = try existingAccount(id)
        if let startingCash {
            guard !startingCash.isNegative, startingCash.isMultiple(of: account.currency.minorUnit) else {
                throw OrderRejection(
                    .invalidInput, "starting cash must be a non-negative amount in \(account.currency.rawValue) cents")
            }
            account.startingCash = startingCash
            accounts[id] = account
        }
        for orderID in openOrders where orders[orderID]?.accountID == id {
            finish(orderID, .canceled, reason: "account reset", at: time)
        }
        let start = accounts[id]?.startingCash ?? .zero
        let change = start - (accounts[id]?.cash ?? .zero)
        accounts[id]?.positions = [:]
        accounts[id]?.balances = [:]
        accounts[id]?.refreshOptionRequirements()
        accounts[id]?.reservedCash = .zero
        accounts[id]?.totalFees = .zero
        accounts[id]?.cryptoVolume = CryptoVolume()
        return record(.reset(startingCash: start), cashChange: change, account: id, at: time)
    }

    /// Game accounts take no deposits or withdrawals: every player starts with the same cash, and a game's return
    /// is then simply equity over starting cash — save a class teacher's adjustments (`TransferMethod.adjustment`).
    /// Refuses taking `amount` out of an account (to `verb` it: "withdraw", "transfer") beyond its buying power.
    static func requireAvailable(_ amount: FixedDecimal, in account: Account, to verb: String) throws(OrderRejection) {
        guard amount > account.buyingPower else { return }
        let (wanted, available) = (amount.formatted(places: 2), account.buyingPower.formatted(places: 2))
        throw OrderRejection(
            .insufficientBuyingPower,
            "cannot \(verb) \(wanted) \(account.currency.rawValue): only \(available) is available",
            facts: .init(
                "insufficient_buying_power.\(verb)",
                ["amount": wanted, "currency": account.currency.rawValue, "available": available]))
    }

    static func refuseGameTransfer(_ account: Account) throws(OrderRejection) {
        guard account.gameRules != nil else { return }
        throw OrderRejection(
            .gameRule,
            "This account plays in a game: deposits and withdrawals are not allowed (every player starts with the same cash)",
            facts: .init("game.transfer", [:]))
    }

    // MARK: Helpers shared by the command files

    func existingAccount(_ id: AccountID) throws(OrderRejection) -> Account {
        guard let account = accounts[id] else { throw Self.unknownAccount(id) }
        return account
    }

    static func unknownAccount(_ id: AccountID) -> OrderRejection {
        OrderRejection(.unknownAccount, "account \(id) not found")
    }

    /// The largest cash balance deposits may build: a thousand times the largest deposit.
    public static let maximumBalance = FixedDecimal(1_000_000_000_000_000)

    static func validateTransferAmount(_ amount: FixedDecimal, currency: Currency) throws(OrderRejection) {
        guard amount.isPositive else { throw OrderRejection(.invalidInput, "amount must be greater than 0") }
        guard amount.isMultiple(of: currency.minorUnit) else {
            throw OrderRejection(
                .invalidInput, "amount \(amount) has more than \(currency.minorUnitDigits) decimal places")
        }
        guard amount <= FixedDecimal(1_000_000_000_000) else {
            throw OrderRejection(.invalidInput, "amount \(amount) exceeds the maximum of 1000000000000")
        }
    }

    /// Appends a ledger entry, applies its cash change and publishes it.
    @discardableResult
    mutating func record(
        _ kind: LedgerEntry.Kind, cashChange: FixedDecimal, account id: AccountID,
        at time: Timestamp
    ) -> LedgerEntry {
        let sequence =
            withAccount(id) { account in
                account.lastSequence += 1
                account.cash += cashChange
                return account.lastSequence
            } ?? Int64(1)
        let entry = LedgerEntry(sequence: sequence, accountID: id, time: time, kind: kind, cashChange: cashChange)
        outbox.append(.ledger(entry))
        return entry
    }

    /// A new order or execution id, time-ordered (UUID version 7) and greater than every id made before it by this
    /// engine, so storage appends rather than scatters.
    mutating func newIdentifier(at time: Timestamp) -> Identifier {
        let id = Identifier.timeOrdered(at: time, after: lastIdentifier, using: &rng)
        lastIdentifier = id
        return id
    }

    /// The trading date that settlement rules use for an instrument at a time.
    mutating func tradingDate(_ instrument: Instrument, at time: Timestamp) -> CivilDate {
        switch configuration.sessions {
        case .alwaysOpen: return sessionCache.localDate(instrument.calendar, at: time)
        case .exchangeCalendars: return sessionCache.tradingDate(instrument.calendar, at: time)
        }
    }

    /// Market phase of an instrument's exchange at a time (cached per calendar: cheap per event).
    mutating func phase(of instrument: Instrument, at time: Timestamp) -> MarketPhase {
        if configuration.sessions == .alwaysOpen { return .continuous }
        return sessionCache.phase(instrument.calendar, at: time)
    }

    /// Current position quantity of an account in an instrument.
    mutating func positionQty(_ account: AccountID, _ instrument: InstrumentID) -> Quantity {
        withAccount(account) { $0.positions[instrument]?.qty ?? .zero } ?? .zero
    }
}

/// Memoizes exchange schedules: per-event phase lookups are two comparisons, and per-order session, expiry and
/// trading-date questions never rebuild a day's schedule.
struct SessionCache: Sendable {
    struct Window: Sendable {
        var start: Timestamp
        var end: Timestamp
        var phase: MarketPhase
    }

    struct DayKey: Hashable, Sendable {
        var calendar: TradingCalendar.Identifier
        var day: Int
    }

    /// One slot per calendar (there are four): asked several times per order, a dictionary's hashing showed.
    struct PerCalendar<Value: Sendable>: Sendable {
        var xnys: Value?
        var xshg: Value?
        var crypto: Value?
        var forex: Value?

        subscript(id: TradingCalendar.Identifier) -> Value? {
            get {
                switch id {
                case .xnys: return xnys
                case .xshg: return xshg
                case .crypto: return crypto
                case .forex: return forex
                }
            }
            set {
                switch id {
                case .xnys: xnys = newValue
                case .xshg: xshg = newValue
                case .crypto: crypto = newValue
                case .forex: forex = newValue
                }
            }
        }
    }

    private var windows = PerCalendar<Window>()
    private var days: [DayKey: DaySchedule?] = [:]
    private var localDays = PerCalendar<(start: Timestamp, end: Timestamp, date: CivilDate)>()

    /// The date of `time` in the calendar's time zone (remembered for the rest of that local day: working out the
    /// zone's offset, daylight saving included, is the costly part of every per-order date question).
    mutating func localDate(_ calendar: TradingCalendar, at time: Timestamp) -> CivilDate {
        localDay(calendar, at: time).date
    }

    /// The local day of `time` in the calendar's time zone: its date, and when it starts and ends (the next midnight
    /// there, when an `alwaysOpen` engine's day orders expire: worked out with the zone's daylight saving rules once
    /// a day, not per order).
    mutating func localDay(_ calendar: TradingCalendar, at time: Timestamp) -> (
        start: Timestamp, end: Timestamp, date: CivilDate
    ) {
        if let day = localDays[calendar.identifier], time >= day.start, time < day.end { return day }
        let zone = calendar.zone
        let date = zone.localTime(of: time).date
        let day = (start: Timestamp(date, in: zone), end: Timestamp(date.adding(days: 1), in: zone), date: date)
        localDays[calendar.identifier] = day
        return day
    }

    mutating func schedule(_ calendar: TradingCalendar, on date: CivilDate) -> DaySchedule? {
        let key = DayKey(calendar: calendar.identifier, day: date.daysSinceEpoch)
        if let cached = days[key] { return cached }
        if days.count > 20_000 { days.removeAll(keepingCapacity: true) }
        let schedule = calendar.schedule(on: date)
        days[key] = schedule
        return schedule
    }

    mutating func phase(_ calendar: TradingCalendar, at time: Timestamp) -> MarketPhase {
        window(calendar, at: time).phase
    }

    /// The maximal interval around `time` with one phase (closed gaps included).
    mutating func window(_ calendar: TradingCalendar, at time: Timestamp) -> Window {
        if let w = windows[calendar.identifier], time >= w.start, time < w.end { return w }
        let date = localDate(calendar, at: time)
        // Periods of yesterday, today and tomorrow bound any gap around `time`.
        var periods: [DaySchedule.Period] = []
        for d in [date.adding(days: -1), date, date.adding(days: 1)] {
            if let day = schedule(calendar, on: d) { periods += day.periods }
        }
        var previousEnd = Timestamp(date.adding(days: -1), in: calendar.zone)
        var found = Window(start: previousEnd, end: Timestamp(date.adding(days: 2), in: calendar.zone), phase: .closed)
        for period in periods {
            if time < period.start {
                found = Window(start: previousEnd, end: period.start, phase: .closed)
                break
            }
            if time < period.end {
                found = Window(start: period.start, end: period.end, phase: period.phase)
                break
            }
            previousEnd = period.end
            found.start = previousEnd
        }
        windows[calendar.identifier] = found
        return found
    }

    mutating func isTradingDay(_ calendar: TradingCalendar, _ date: CivilDate) -> Bool {
        schedule(calendar, on: date) != nil
    }

    /// The session open at `time` or the next one.
    mutating func currentOrNextSession(_ calendar: TradingCalendar, at time: Timestamp) -> DaySchedule {
        var date = localDate(calendar, at: time)
        if let day = schedule(calendar, on: date), time < day.close { return day }
        for _ in 0..<30 {
            date = date.adding(days: 1)
            if let day = schedule(calendar, on: date) { return day }
        }
        return DaySchedule(date: date, early: false, periods: [], open: time, close: time)
    }

    /// The trading day a time belongs to: the local date while its sessions last, else the next trading day.
    mutating func tradingDate(_ calendar: TradingCalendar, at time: Timestamp) -> CivilDate {
        var date = localDate(calendar, at: time)
        if let day = schedule(calendar, on: date), time < day.end { return date }
        for _ in 0..<30 {
            date = date.adding(days: 1)
            if schedule(calendar, on: date) != nil { return date }
        }
        return date
    }
}
