/// What a crypto trade pays: a maker or taker rate of the trade's value, by the account's crypto volume of the last 30
/// days. The fee is charged in the asset the trade receives — a buy of a coin pays in the coin (a 0.1 BTC purchase
/// leaves 0.09975 BTC), a sale in dollars.
public struct CryptoFeeTiers: Sendable, Codable, Hashable {
    /// One row of the table: accounts whose 30-day volume is at least `minimumVolume` pay these rates (fractions of
    /// the value: 0.0025 = 25 basis points).
    public struct Tier: Sendable, Codable, Hashable {
        public var minimumVolume: FixedDecimal
        public var maker: FixedDecimal
        public var taker: FixedDecimal

        public init(minimumVolume: FixedDecimal, makerBasisPoints: Int, takerBasisPoints: Int) {
            self.minimumVolume = minimumVolume
            maker = FixedDecimal(units: makerBasisPoints, exponent: 4)
            taker = FixedDecimal(units: takerBasisPoints, exponent: 4)
        }

        public func rate(_ role: LiquidityRole) -> FixedDecimal { role == .maker ? maker : taker }
    }

    /// Rows by rising `minimumVolume`; the first starts at zero.
    public var tiers: [Tier]

    public init(tiers: [Tier]) { self.tiers = tiers.sorted { $0.minimumVolume < $1.minimumVolume } }

    /// Alpaca's crypto fee table (maker/taker basis points by 30-day crypto volume in dollars, effective 2023-03-13):
    /// $0–100k 15/25 · 100k–500k 12/22 · 500k–1M 10/20 · 1M–10M 8/18 · 10M–25M 5/15 · 25M–50M 2/13 · 50M–100M 2/12 ·
    /// 100M+ 0/10.
    public static let alpaca = CryptoFeeTiers(tiers: [
        Tier(minimumVolume: .zero, makerBasisPoints: 15, takerBasisPoints: 25),
        Tier(minimumVolume: FixedDecimal(100_000), makerBasisPoints: 12, takerBasisPoints: 22),
        Tier(minimumVolume: FixedDecimal(500_000), makerBasisPoints: 10, takerBasisPoints: 20),
        Tier(minimumVolume: FixedDecimal(1_000_000), makerBasisPoints: 8, takerBasisPoints: 18),
        Tier(minimumVolume: FixedDecimal(10_000_000), makerBasisPoints: 5, takerBasisPoints: 15),
        Tier(minimumVolume: FixedDecimal(25_000_000), makerBasisPoints: 2, takerBasisPoints: 13),
        Tier(minimumVolume: FixedDecimal(50_000_000), makerBasisPoints: 2, takerBasisPoints: 12),
        Tier(minimumVolume: FixedDecimal(100_000_000), makerBasisPoints: 0, takerBasisPoints: 10),
    ])

    /// No fees (a game or a backtest that wants none).
    public static let free = CryptoFeeTiers(tiers: [
        Tier(minimumVolume: .zero, makerBasisPoints: 0, takerBasisPoints: 0)
    ])

    /// The row an account with `volume` of crypto trades in the last 30 days pays.
    public func tier(forVolume volume: FixedDecimal) -> Tier {
        tiers.last { $0.minimumVolume <= volume }
            ?? tiers.first ?? Tier(minimumVolume: .zero, makerBasisPoints: 0, takerBasisPoints: 0)
    }

    /// The fee of one fill: for a buy, the coin it takes out of `qty` (rounded half-up to the quantity's 9 places);
    /// for a sale, the money it takes out of the trade's `value` (half-up to the minor unit).
    public func charge(
        side: OrderSide, role: LiquidityRole, volume: FixedDecimal, qty: Quantity, value: FixedDecimal,
        currency: Currency
    ) -> (coin: Quantity, money: FixedDecimal) {
        let rate = tier(forVolume: volume).rate(role)
        if side == .buy { return (qty.multiplied(by: rate, places: FixedDecimal.scale, rule: .halfUp), .zero) }
        return (.zero, value.multiplied(by: rate, places: currency.minorUnitDigits, rule: .halfUp))
    }
}

/// Whether a fill added liquidity (a resting limit order the market came to: the maker rate) or took it (an order
/// that traded on arrival: a market order, a marketable limit, a stop-limit as it triggers — the taker rate).
public enum LiquidityRole: String, Sendable, Codable, Hashable {
    case maker, taker
}

/// An account's crypto trading volume by day (UTC days: the crypto calendar's), kept for the last 30 days. A tier
/// follows the 30 days before today: today's trades move the account to a new tier from tomorrow.
public struct CryptoVolume: Sendable, Codable, Hashable {
    public struct Day: Sendable, Codable, Hashable {
        public var date: CivilDate
        public var value: FixedDecimal
    }

    /// Days with trades, oldest first, none older than 30 days before the latest.
    public private(set) var days: [Day] = []

    public init() {}

    /// How many days a tier looks back.
    public static let window = 30

    /// Adds a trade's value on `date`, and forgets days the window no longer reaches.
    public mutating func add(_ value: FixedDecimal, on date: CivilDate) {
        if let last = days.last, last.date == date {
            days[days.count - 1].value += value
        } else {
            days.append(Day(date: date, value: value))
        }
        let oldest = date.daysSinceEpoch - Self.window
        if let first = days.first, first.date.daysSinceEpoch < oldest {
            days.removeAll { $0.date.daysSinceEpoch < oldest }
        }
    }

    /// The volume of the 30 days before `date` (today's own trades excluded).
    public func trailing(before date: CivilDate) -> FixedDecimal {
        let today = date.daysSinceEpoch
        return days.reduce(.zero) { sum, day in
            let age = today - day.date.daysSinceEpoch
            return age >= 1 && age <= Self.window ? sum + day.value : sum
        }
    }
}
