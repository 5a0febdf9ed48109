import BrokerageModel
import MarketData
import TradingCore

extension Shard {
    /// Opens a paper account for a user, durably.
    func openAccount(
        _ id: AccountID, userID: UserID, market: Market, cash: FixedDecimal, name: String, terms: MarginTerms = .cash
    ) async throws(BrokerageError) -> AccountRecord {
        do { try engine.openAccount(id, market: market, startingCash: cash, terms: terms) } catch {
            throw .rejected(error)
        }
        guard let snapshot = engine.snapshot(of: id) else { throw .invalid("account could not be opened") }
        let number = "PA" + String(id.high % 10_000_000_000).leftPadded(10)
        let record = AccountRecord(
            id: id, userID: userID, name: name, market: market, accountNumber: number,
            createdAt: clock.now(), snapshot: snapshot, shard: self.id)
        do {
            try await storage.accounts.createAccount(record)
        } catch {
            try? await reload()
            throw .storage(error)
        }
        records[id] = record
        return record
    }

    func accountRecord(_ id: AccountID) -> AccountRecord? { records[id] }

    /// An account's live balances and terms.
    func account(_ id: AccountID) -> Account? { engine.account(id) }

    func accounts(of userID: UserID) -> [AccountRecord] {
        records.values.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt }
    }

    func deposit(_ amount: FixedDecimal, to id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    {
        let entry: LedgerEntry
        do { entry = try engine.deposit(amount, to: id, method: method, note: note, at: clock.now()) } catch {
            throw .rejected(error)
        }
        try await commit()
        return entry
    }

    func withdraw(_ amount: FixedDecimal, from id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    {
        let entry: LedgerEntry
        do { entry = try engine.withdraw(amount, from: id, method: method, note: note, at: clock.now()) } catch {
            throw .rejected(error)
        }
        try await commit()
        return entry
    }

    /// Makes an account a cash or margin account, or changes its largest multiplier (Alpaca's
    /// max_margin_multiplier), durably.
    func setMarginTerms(_ terms: MarginTerms, for id: AccountID) async throws(BrokerageError) {
        do { try engine.setMarginTerms(terms, for: id) } catch { throw .rejected(error) }
        pending.accounts.insert(id)
        try await commit()
    }

    func reset(_ id: AccountID) async throws(BrokerageError) {
        guard engine.account(id) != nil else { throw .notFound("account not found") }
        do { try engine.reset(id, at: clock.now()) } catch { throw .rejected(error) }
        try await commit()
    }

    /// An account's balances and positions valued at current quotes. `dayProfit`: the day change is the profit since
    /// the last close from the ledger (`DayProfitTracker`, what the surfaces show); without it (margin checks, which
    /// need no day change) it is the price change of what is held.
    func summary(_ id: AccountID, dayProfit: Bool = false) async throws(BrokerageError) -> AccountSummary {
        guard let account = engine.account(id) else { throw .notFound("account not found") }
        var summary = await AccountValuation.summary(
            account, record: records[id], instrument: engine.instrument, margin: engine.configuration.margin,
            market: market, clock: clock)
        if dayProfit,
            let profit = await self.dayProfit(
                id, account: account, equity: summary.equity,
                values: summary.positions.reduce(into: [:]) {
                    $0[$1.position.symbol, default: .zero] += $1.valuation.marketValue
                })
        {
            summary.dayChange = profit.total
            for i in summary.positions.indices {
                summary.positions[i].dayProfit = profit.bySymbol[summary.positions[i].position.symbol]
            }
        }
        return summary
    }
}

/// An account's balances and positions valued at current quotes: a shard's live account, or (on a cluster) one
/// another node serves, as its last commit left it (`Brokerage.summary`).
enum AccountValuation {
    static func summary(
        _ account: Account, record: AccountRecord?, instrument: (InstrumentID) -> Instrument, margin rates: MarginRates,
        market: SharedMarket, clock: MarketClock
    ) async -> AccountSummary {
        var positions: [PositionSummary] = []
        var marketValue = FixedDecimal.zero
        var dayChange = FixedDecimal.zero
        for position in account.positions.values.sorted(by: { $0.symbol < $1.symbol }) where !position.qty.isZero {
            let quote = try? await market.quote(position.symbol, reuse: true)
            let mark = quote?.last ?? position.averageEntryPrice
            let valuation = position.valuation(at: mark, previousClose: quote?.previousClose)
            marketValue += valuation.marketValue
            dayChange += valuation.dayChange
            positions.append(
                PositionSummary(
                    position: position, instrument: instrument(position.instrument), current: mark,
                    previousClose: quote?.previousClose, valuation: valuation))
        }
        var currencies: [CurrencySummary] = []
        for balance in account.balances.values.sorted(by: { $0.currency.rawValue < $1.currency.rawValue }) {
            let quote = try? await market.quote(balance.pairSymbol, reuse: true)
            currencies.append(
                CurrencySummary(balance: balance, pairPrice: quote?.last, home: account.currency))
        }
        var marks = Dictionary(positions.map { ($0.position.instrument, $0.current) }) { a, _ in a }
        for currency in currencies { if let price = currency.pairPrice { marks[currency.balance.pair] = price } }
        let today = TradingCalendar.xnys.tradingDate(at: clock.now())
        return AccountSummary(
            account: account, record: record, positions: positions, currencies: currencies, marketValue: marketValue,
            dayChange: dayChange,
            margin: account.margin(marks: { marks[$0] }, rates: rates),
            dayTradeCount: account.dayTradeCount(on: today), patternDayTrader: account.isPatternDayTrader(on: today))
    }
}

/// An account valued at current prices.
public struct AccountSummary: Sendable {
    public var account: Account
    public var record: AccountRecord?
    public var positions: [PositionSummary]
    /// Cash in currencies other than the account's, each at its pair's price.
    public var currencies: [CurrencySummary]
    /// Positions at marks, longs less shorts.
    public var marketValue: FixedDecimal
    /// Profit since the last close: equity now − equity at the close − money moved in since (`DayProfitTracker`).
    public var dayChange: FixedDecimal
    /// Margin figures at the same marks (cash accounts: buying power is free cash).
    public var margin: MarginState
    /// Day trades in the last five trading days, and whether that makes a pattern day trader (four or more).
    public var dayTradeCount: Int
    public var patternDayTrader: Bool
    /// Whether the account may sell short now (Alpaca's `shorting_enabled`).
    public var shortingEnabled: Bool { account.shortingEnabled(margin) }
    /// Cash in every currency and positions, at marks.
    public var equity: FixedDecimal { account.cash + foreignCash + marketValue }
    /// Cash in other currencies, in the account's currency at the pairs' prices.
    public var foreignCash: FixedDecimal { currencies.reduce(.zero) { $0 + $1.value } }
    /// What new buy orders may spend.
    public var buyingPower: FixedDecimal { margin.buyingPower }
    /// What long options may spend (Alpaca's `options_buying_power`): options are paid for in full, so cash less what
    /// open orders hold — the non-marginable buying power.
    public var optionsBuyingPower: FixedDecimal { margin.nonMarginableBuyingPower }
}

/// Cash in a currency other than the account's, valued at its pair's current price: what IB's ledger shows per
/// currency (and its forex position in the pair).
public struct CurrencySummary: Sendable {
    public var balance: CurrencyBalance
    /// The pair's last price; nil without a quote (the balance is then worth its cost).
    public var pairPrice: Price?
    /// Units of the account's currency one unit is worth (nine places; the average cost without a price).
    public var rate: FixedDecimal
    /// The balance in the account's currency, half-up to its minor unit.
    public var value: FixedDecimal

    public init(balance: CurrencyBalance, pairPrice: Price?, home: Currency) {
        self.balance = balance
        self.pairPrice = pairPrice
        rate = pairPrice.map { balance.rate(at: $0) } ?? balance.averageCost
        value = balance.value(at: pairPrice, places: home.minorUnitDigits)
    }

    /// What the balance would gain or lose in the account's currency if sold at the pair's price.
    public var unrealizedPnL: FixedDecimal { value - balance.cost }
}

/// A position valued at its instrument's current price.
public struct PositionSummary: Sendable {
    public var position: Position
    public var instrument: Instrument
    public var current: Price
    public var previousClose: Price?
    public var valuation: PositionValuation
    /// The holding's part of the account's profit since the last close (`DayProfit.bySymbol`: shares bought today
    /// from their price, today's sales and fees included); nil in summaries made without it.
    public var dayProfit: FixedDecimal?

    /// The price's change since the previous close, as a fraction (0.05 = +5%, 6 places); nil without a close.
    public var priceChangeToday: FixedDecimal? {
        previousClose.flatMap { prev in
            prev.isPositive ? (current - prev).divided(by: prev, places: 6, rule: .halfEven) : nil
        }
    }

    /// Today's change in value as a fraction of the position's value at the previous close (6 places).
    public var dayChangePercent: FixedDecimal? {
        guard let prev = previousClose else { return nil }
        let base = position.value(at: prev).magnitude
        return base.isPositive ? valuation.dayChange.divided(by: base, places: 6, rule: .halfEven) : nil
    }

    /// Shares that may be sold (or, short, bought back) on `date`: a short's whole quantity (negative, as the
    /// quantity is); a long's less what T+1 still holds.
    public func quantityAvailable(on date: CivilDate) -> Quantity {
        position.isShort ? position.qty : position.availableToSell(on: date)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension Shard {
    /// Loads an account created by another process (e.g. `papertrade admin create-account` while serving).
    func loadAccountIfNeeded(_ id: AccountID) async throws(BrokerageError) {
        guard records[id] == nil else { return }
        let stored: AccountRecord?
        do { stored = try await storage.accounts.account(id) } catch { throw .storage(error) }
        guard let record = stored, record.shard == self.id else { throw .notFound("account not found") }
        let snapshot: AccountSnapshot
        do { snapshot = try await storage.accounts.restorable(record) } catch { throw .storage(error) }
        let members: [UserID]
        do { members = try await storage.classes.teamMembers(of: id) } catch { throw .storage(error) }
        guard records[id] == nil else { return } // loaded by a concurrent call meanwhile
        for symbol in snapshot.symbols {
            if let instrument = await market.resolvedInstrument(symbol) { engine.register(instrument) }
        }
        do { try engine.restore(snapshot) } catch { throw .rejected(error) }
        records[id] = record
        if !members.isEmpty { teams[id] = members }
    }
}
