/// Daily price limits (涨跌停): the band around the previous close outside which orders are rejected.
public struct PriceLimitRule: Sendable, Codable, Hashable {
    /// The band as a fraction of the previous close (0.1 = ±10%); nil for no limit (US stocks).
    public var fraction: FixedDecimal?
    /// Trading days after listing (the listing day is day 1) that have no limit: 5 for registration-based IPOs
    /// on the main board, STAR and ChiNext; 1 on the BSE.
    public var unlimitedListingDays: Int

    public init(fraction: FixedDecimal?, unlimitedListingDays: Int = 0) {
        self.fraction = fraction
        self.unlimitedListingDays = unlimitedListingDays
    }

    public static let none = PriceLimitRule(fraction: nil)
    /// Main board ±10%.
    public static let mainBoard = PriceLimitRule(
        fraction: FixedDecimal(units: 10, exponent: 2), unlimitedListingDays: 5)
    /// Main-board ST / *ST ±5% (a 2025-06-27 proposal would make it ±10%; effective date unconfirmed).
    public static let riskWarning = PriceLimitRule(
        fraction: FixedDecimal(units: 5, exponent: 2), unlimitedListingDays: 5)
    /// STAR and ChiNext ±20% (ST included).
    public static let growthBoard = PriceLimitRule(
        fraction: FixedDecimal(units: 20, exponent: 2), unlimitedListingDays: 5)
    /// Beijing SE ±30%.
    public static let beijing = PriceLimitRule(fraction: FixedDecimal(units: 30, exponent: 2), unlimitedListingDays: 1)

    /// The limit-down and limit-up prices for a day: previous close × (1 ∓ limit), rounded half-up to the tick
    /// (99.68 × 1.2 = 119.616 → 119.62). nil when the day has no limit.
    /// `tradingDayOfListing` is 1 on the listing day, 2 the next trading day, …; nil if unknown (old listing).
    public func band(previousClose: Price, tick: TickRule, tradingDayOfListing: Int? = nil) -> PriceBand? {
        guard let fraction, previousClose.isPositive else { return nil }
        if let day = tradingDayOfListing, day <= unlimitedListingDays { return nil }
        let places = tick.places(at: previousClose)
        let up = previousClose.multiplied(by: .one + fraction, places: places, rule: .halfUp)
        let down = previousClose.multiplied(by: .one - fraction, places: places, rule: .halfUp)
        return PriceBand(limitDown: down, limitUp: up)
    }
}

/// A day's permitted price range.
public struct PriceBand: Sendable, Codable, Hashable {
    public var limitDown: Price
    public var limitUp: Price

    public init(limitDown: Price, limitUp: Price) {
        self.limitDown = limitDown
        self.limitUp = limitUp
    }

    public func contains(_ price: Price) -> Bool { price >= limitDown && price <= limitUp }
}
