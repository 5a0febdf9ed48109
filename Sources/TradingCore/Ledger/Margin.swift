/// Whether an account may borrow. US accounts are cash or margin accounts (Regulation T, as Alpaca's paper accounts);
/// A-share accounts are always cash accounts (no 融资融券).
public enum AccountType: String, Sendable, Codable, Hashable, CaseIterable {
    case cash
    case margin
}

/// An account's margin terms: its type and the most leverage it accepts (Alpaca's `max_margin_multiplier`).
public struct MarginTerms: Sendable, Codable, Hashable {
    public var type: AccountType
    /// 1 (trade as cash even on a margin account), 2 (Reg T overnight) or 4 (intraday, for $25,000 and above).
    public var maxMultiplier: Int
    /// Alpaca's `no_shorting`: the account refuses short sales (margin accounts may sell short by default).
    public var noShorting: Bool
    /// Whether the pattern day trader rule stops orders (off by default: FINRA is retiring the rule; day trades are
    /// counted either way), and which orders it stops (Alpaca's `pdt_check`, `entry` by default).
    public var dayTradeProtection: Bool
    public var dayTradeCheck: DayTradeCheck
    /// Alpaca's `max_options_trading_level`: the highest options level the account's owner allows it to use, at
    /// most the approved level (`Account.optionsApprovedLevel`). Spreads (3) unless lowered.
    ///
    /// A one-byte enum, not an Int, on purpose: MarginTerms is passed by value through async functions with typed
    /// throws (`Brokerage.openAccount` → `Shard.openAccount`), and growing it past 24 bytes made Swift 6.3.1's debug
    /// build jump to a null address when such a call resumed (every account opening crashed the server).
    public var maxOptionsLevel: OptionsLevel

    public init(
        type: AccountType, maxMultiplier: Int = 4, noShorting: Bool = false, dayTradeProtection: Bool = false,
        dayTradeCheck: DayTradeCheck = .entry, maxOptionsLevel: OptionsLevel = .spreads
    ) {
        self.type = type
        self.maxMultiplier = type == .cash ? 1 : maxMultiplier
        self.noShorting = noShorting
        self.dayTradeProtection = dayTradeProtection
        self.dayTradeCheck = dayTradeCheck
        self.maxOptionsLevel = maxOptionsLevel
    }

    enum CodingKeys: String, CodingKey {
        case type, maxMultiplier, noShorting, dayTradeProtection, dayTradeCheck, maxOptionsLevel
    }

    /// Terms stored before short selling and the day-trade check existed decode with their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(AccountType.self, forKey: .type)
        maxMultiplier = try c.decode(Int.self, forKey: .maxMultiplier)
        noShorting = try c.decodeIfPresent(Bool.self, forKey: .noShorting) ?? false
        dayTradeProtection = try c.decodeIfPresent(Bool.self, forKey: .dayTradeProtection) ?? false
        dayTradeCheck = try c.decodeIfPresent(DayTradeCheck.self, forKey: .dayTradeCheck) ?? .entry
        maxOptionsLevel = try c.decodeIfPresent(OptionsLevel.self, forKey: .maxOptionsLevel) ?? .spreads
    }

    public static let cash = MarginTerms(type: .cash)
    /// New US accounts: margin, up to 4× as Alpaca's paper accounts.
    public static let margin = MarginTerms(type: .margin, maxMultiplier: 4)

    public static let multipliers: Set<Int> = [1, 2, 4]

    /// Margin needs at least this much equity (FINRA's minimum); below it the account trades as cash.
    public static let minimumEquity = FixedDecimal(2_000)
    /// Intraday (4×) leverage needs this much equity.
    public static let dayTradingMinimumEquity = FixedDecimal(25_000)
}

/// The house's margin requirements: Reg T's 50% initial margin and Alpaca's 30% maintenance margin for long
/// positions; stocks under $2.50 are not marginable (100% of both). A stricter house (a class, a game) raises them.
public struct MarginRates: Sendable, Codable, Hashable {
    public var initial: FixedDecimal
    public var maintenance: FixedDecimal
    /// Stocks below this price are not marginable: their purchases take equity in full.
    public var marginablePrice: Price

    public init(
        initial: FixedDecimal = FixedDecimal(units: 5, exponent: 1),
        maintenance: FixedDecimal = FixedDecimal(units: 3, exponent: 1),
        marginablePrice: Price = FixedDecimal(units: 250, exponent: 2)
    ) {
        self.initial = initial
        self.maintenance = maintenance
        self.marginablePrice = marginablePrice
    }

    /// What a holding at `price` must keep as equity per dollar of market value.
    public func maintenance(at price: Price) -> FixedDecimal { price < marginablePrice ? .one : maintenance }
    public func initial(at price: Price) -> FixedDecimal { price < marginablePrice ? .one : initial }

    /// Maintenance margin of `shares` held short at `price` (Alpaca's requirement): under $5.00 the greater of
    /// $2.50 a share and 100% of the value; from $5.00 the greater of $5.00 a share and the maintenance rate.
    public func shortMaintenance(shares: Quantity, at price: Price) -> FixedDecimal {
        let value = shares.multiplied(by: price)
        if price < FixedDecimal(5) {
            return Swift.max(shares.multiplied(by: FixedDecimal(units: 250, exponent: 2)), value)
        }
        return Swift.max(shares.times(5), value.multiplied(by: maintenance))
    }
}

/// A demand to bring equity back up to maintenance margin: deposit or sell by the close of `due`, or positions are
/// sold for it.
public struct MarginCall: Sendable, Codable, Hashable {
    /// Equity short of maintenance margin when the call was made.
    public var amount: FixedDecimal
    public var issuedAt: Timestamp
    /// The last trading day to meet it.
    public var due: CivilDate

    public init(amount: FixedDecimal, issuedAt: Timestamp, due: CivilDate) {
        self.amount = amount
        self.issuedAt = issuedAt
        self.due = due
    }
}

/// An account's margin figures at marks, in the terms of Alpaca's account object.
public struct MarginState: Sendable, Hashable {
    public var longMarketValue: FixedDecimal
    /// Short positions at marks (negative, or zero).
    public var shortMarketValue: FixedDecimal
    /// Cash in currencies other than the account's, at the pairs' marks in the account's currency.
    public var foreignCash: FixedDecimal
    public var equity: FixedDecimal
    /// What the positions require at purchase (50% marginable, 100% not) and to be kept (30%, 100%).
    public var initialMargin: FixedDecimal
    public var maintenanceMargin: FixedDecimal
    /// The leverage in effect: 1 for cash accounts, margin accounts set to 1 and accounts under $2,000.
    public var multiplier: Int
    /// Reg T buying power: twice the equity above initial margin (cash accounts: cash).
    public var regtBuyingPower: FixedDecimal
    /// Intraday buying power (4× the equity above maintenance margin) for 4× accounts of $25,000 and more; zero
    /// otherwise. Shown, not yet spent by orders: an overnight Reg T call would be needed to police it.
    public var daytradingBuyingPower: FixedDecimal
    /// What new orders may spend: Reg T buying power (cash) less what open buy orders hold and written puts secure.
    public var buyingPower: FixedDecimal
    /// What a purchase of a non-marginable stock may spend (it takes cash in full).
    public var nonMarginableBuyingPower: FixedDecimal
    /// Equity short of maintenance margin (a margin call), zero when none.
    public var deficit: FixedDecimal

    /// Whether the account trades on margin at the moment.
    public var isMargin: Bool { multiplier > 1 }
}

/// Alpaca's options approval levels: what an account may do with options. Each level permits the ones below it.
public enum OptionsLevel: Int, Sendable, Codable, Hashable, CaseIterable, Comparable {
    /// No options trading.
    case disabled = 0
    /// Covered calls and cash-secured puts.
    case coveredWriting = 1
    /// Buying calls and puts.
    case longOptions = 2
    /// Spreads and straddles (multi-leg orders).
    case spreads = 3

    public static func < (a: OptionsLevel, b: OptionsLevel) -> Bool { a.rawValue < b.rawValue }
}

extension Account {
    /// Alpaca's `options_approved_level`: spreads (3) for every US account, as Alpaca approves its paper accounts;
    /// disabled for A-share accounts (China lists no single-stock options).
    public var optionsApprovedLevel: OptionsLevel { market == .us ? .spreads : .disabled }

    /// Alpaca's `options_trading_level`: the approved level, lowered by the account's `max_options_trading_level`.
    public var optionsTradingLevel: OptionsLevel { Swift.min(optionsApprovedLevel, terms.maxOptionsLevel) }
}

extension Account {
    /// Whether short sales are open to the account now: a US margin account that allows them (no `no_shorting`)
    /// with margin in effect (at least $2,000 of equity and a multiplier above 1), as Alpaca's `shorting_enabled`.
    public func shortingEnabled(_ state: MarginState) -> Bool {
        market == .us && terms.type == .margin && !terms.noShorting && state.isMargin
    }
}

extension Account {
    /// The account's margin figures with positions valued at `marks` (missing marks value at cost).
    public func margin(marks: (InstrumentID) -> Price?, rates: MarginRates = MarginRates()) -> MarginState {
        var longValue = FixedDecimal.zero, shortValue = FixedDecimal.zero
        var initial = FixedDecimal.zero, maintenance = FixedDecimal.zero
        for position in positions.values where !position.qty.isZero {
            let mark = marks(position.instrument) ?? position.averageEntryPrice
            let value = position.value(at: mark)
            if position.qty.isPositive {
                longValue += value
                // A contract (an option: the only positions with a multiplier) has no loan value: Reg T has it paid
                // for in full and kept in full.
                let contract = position.multiplier != nil
                initial += contract ? value : value.multiplied(by: rates.initial(at: mark))
                maintenance += contract ? value : value.multiplied(by: rates.maintenance(at: mark))
            } else if position.multiplier != nil {
                // A written contract is covered (a call by shares held, whose own requirement counts) or secured (a
                // put, or a spread, by cash set aside: `optionCollateral`): it requires nothing more. What buying it back would cost
                // is in the equity already.
                shortValue += value
            } else {
                // Reg T: a short sale's proceeds stay in the account and 50% more is required on top of them.
                shortValue += value
                initial += value.magnitude.multiplied(by: rates.initial(at: mark))
                maintenance += rates.shortMaintenance(shares: position.qty.magnitude, at: mark)
            }
        }
        // Cash in other currencies counts in the equity at the pairs' marks (and, as collateral, in a margin
        // account's excess); it is never spent on a purchase in the account's currency: convert it first.
        let foreignCash = balances.isEmpty ? .zero : foreignCashValue(marks: marks)
        let equity = cash + foreignCash + longValue + shortValue
        var multiplier = terms.type == .cash || market != .us ? 1 : terms.maxMultiplier
        if equity < MarginTerms.minimumEquity {
            multiplier = 1
        } else if equity < MarginTerms.dayTradingMinimumEquity {
            multiplier = Swift.min(multiplier, 2)
        }
        let cent = currency.minorUnitDigits
        let excess = Swift.max(.zero, equity - initial).rounded(places: cent, rule: .down)
        let regt = multiplier > 1 ? excess.times(2) : Swift.max(.zero, cash)
        let dayTrading =
            multiplier == 4 ? Swift.max(.zero, equity - maintenance).rounded(places: cent, rule: .down).times(4) : .zero
        // Cash securing written contracts is spent already, as open orders' holds are.
        let held = reservedCash + optionCollateral
        let spendable = Swift.max(.zero, regt - held)
        let free = Swift.max(.zero, cash - held)
        return MarginState(
            longMarketValue: longValue, shortMarketValue: shortValue, foreignCash: foreignCash, equity: equity,
            initialMargin: initial.rounded(places: cent, rule: .up),
            maintenanceMargin: maintenance.rounded(places: cent, rule: .up), multiplier: multiplier,
            regtBuyingPower: regt, daytradingBuyingPower: dayTrading,
            buyingPower: multiplier > 1 ? spendable : free,
            nonMarginableBuyingPower: multiplier > 1 ? Swift.max(.zero, excess - held) : free,
            deficit: Swift.max(.zero, maintenance - equity).rounded(places: cent, rule: .up))
    }
}

extension MarginTerms {
    /// One night's interest on `borrowed` (positive) at an annual `rate` over `nights` calendar nights, on a 360-day
    /// year as US brokers count it, half-up to the cent.
    public static func interest(on borrowed: FixedDecimal, rate: FixedDecimal, nights: Int) -> FixedDecimal {
        guard borrowed.isPositive, rate.isPositive, nights > 0 else { return .zero }
        let yearly = borrowed.multiplied(by: rate).times(nights)
        return yearly.divided(by: FixedDecimal(360), places: 2, rule: .halfUp) ?? .zero
    }
}
