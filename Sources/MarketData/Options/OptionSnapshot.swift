import Foundation
import TradingCore

/// One contract's market at an instant: the quote a fill would trade against, the model's value, greeks and implied
/// volatility from the same surface, and the day's volume and open interest. Prices are exact decimals on the
/// contract's tick; the model figures (greeks, volatility) stay Double — they are never money.
public struct OptionSnapshot: Sendable, Hashable {
    public var contract: OptionContract
    public var time: Timestamp
    public var underlyingPrice: Price
    /// The best bid (zero when nobody bids: a far out-of-the-money contract worth less than a tick).
    public var bid: Price
    public var ask: Price
    /// Contracts offered at the bid and ask.
    public var bidSize: Int
    public var askSize: Int
    /// The model's value (American), rounded to a cent.
    public var theoreticalValue: Price
    /// The last trade and when it printed (nil before the contract's first trade).
    public var last: Price?
    public var lastTime: Timestamp?
    /// The close of the previous session (the model's value at that close).
    public var previousClose: Price?
    public var impliedVolatility: Double
    public var greeks: OptionGreeks
    /// The model's (risk-neutral) probability that the contract expires in the money.
    public var probabilityInTheMoney: Double
    /// Contracts traded today so far.
    public var volume: Int
    /// Contracts open at the previous close, and the date that count is for.
    public var openInterest: Int
    public var openInterestDate: CivilDate?
    /// Whether the contract has expired (its last session closed).
    public var expired: Bool

    public var mid: Price {
        guard bid.isPositive else { return ask }
        return (bid + ask).divided(by: FixedDecimal(2), rule: .halfUp) ?? ask
    }
}

/// The inputs the whole chain of one underlying shares at an instant, and the rules that turn a model value into a
/// quote: spreads that widen for cheap and far-from-the-money contracts and for LEAPS, rounded outwards to the
/// class's tick, sizes and volumes drawn from counter-based random numbers (the same on every node).
public struct OptionQuoteModel: Sendable {
    public var optionClass: OptionClass
    public var surface: VolatilitySurface
    public var history: UnderlyingHistory
    /// The risk-free rate the model discounts at.
    public var rate: Double
    public var seed: UInt64
    /// The seed mixed with the underlying's symbol: each contract's random numbers start from it.
    let underlyingKey: UInt64
    /// The variance of the underlying's next earnings move (see `UnderlyingHistory.earningsMoveVariance`).
    let eventVariance: Double

    /// The rate every chain is priced with: about where US Treasury bills yielded in 2025–2026. One number on
    /// purpose — a learner comparing our prices with a calculator should not have to find a curve.
    public static let riskFreeRate = 0.04

    public init(
        optionClass: OptionClass, surface: VolatilitySurface, history: UnderlyingHistory, rate: Double, seed: UInt64
    ) {
        self.optionClass = optionClass
        self.surface = surface
        self.history = history
        self.rate = rate
        self.seed = seed
        underlyingKey = CounterRandom.hash(seed, CounterRandom.key(history.symbol), 0xC0)
        eventVariance = history.earningsMoveVariance ?? 0
    }

    /// The surface of an underlying on a day: short-term volatility from the last month's realized volatility, the
    /// long-term level from the last year's, each with the premium options carry over realized volatility, and a
    /// skew and curvature that are the underlying's own (stable per seed).
    public static func surface(for history: UnderlyingHistory, optionClass: OptionClass, seed: UInt64)
        -> VolatilitySurface
    {
        let fallback = optionClass.isIndexETF ? 0.18 : 0.32
        let short = history.realizedVolatility(sessions: 21) ?? fallback
        let long = history.realizedVolatility(sessions: 250) ?? history.realizedVolatility(sessions: 60) ?? fallback
        let key = CounterRandom.hash(seed, CounterRandom.key(history.symbol), 0x0F7)
        let u1 = CounterRandom.uniform(CounterRandom.hash(key, 1))
        let u2 = CounterRandom.uniform(CounterRandom.hash(key, 2))
        let rho = optionClass.isIndexETF ? -0.65 - 0.15 * u1 : -0.3 - 0.3 * u1
        return VolatilitySurface(
            shortTermVolatility: short * 1.1, longTermVolatility: long * 1.08, relaxation: 0.25, rho: rho,
            eta: 0.8 + 0.3 * u2)
    }

    /// Model inputs for a contract at an underlying price and instant.
    public func inputs(_ contract: OptionContract, spot underlying: Double, years: Double) -> OptionInputs {
        let strike = Double(contract.strikeMillis) / 1000
        // An adjusted contract is priced as a standard one on its deliverable (150 shares per 100: 1.5 × the price).
        let spot =
            contract.isAdjusted ? underlying * Double(contract.deliverable) / Double(contract.multiplier) : underlying
        let forward = spot * exp((rate - history.dividendYield) * years)
        // A report between today and the expiry adds its move's variance.
        let event =
            history.earningsSession(after: history.date, through: contract.expiration) == nil
            ? 0 : eventVariance
        return OptionInputs(
            spot: spot, strike: strike, years: years, rate: rate, dividendYield: history.dividendYield,
            volatility: surface.volatility(strike: strike, forward: forward, years: years, eventVariance: event),
            right: contract.right)
    }

    /// An exact price as a model number: the raw fixed-point value scaled, with no text in between (a chain prices
    /// thousands of contracts per request).
    @inlinable static func level(_ price: Price) -> Double { Double(price.raw) / 1e9 }

    static let cent = FixedDecimal(units: 1, exponent: 2)

    /// What every contract of one expiration shares, worked out once per expiration rather than per contract.
    public struct ExpirationFacts: Sendable {
        public var expiration: CivilDate
        /// The expiration's and the chain day's day numbers (each contract's random draws are keyed by them).
        var expirationDay: Int
        var chainDay: Int
        var kind: OptionExpirations.Kind?
        var listed: CivilDate?
        /// The date open interest is counted at: the trading day before the chain's day.
        var openInterestDate: CivilDate
        /// When the expiration's contracts stop trading (time-zone arithmetic: worth doing once).
        public var expiry: Timestamp
    }

    public func facts(_ expiration: CivilDate) -> ExpirationFacts {
        ExpirationFacts(
            expiration: expiration, expirationDay: expiration.daysSinceEpoch, chainDay: history.date.daysSinceEpoch,
            kind: optionClass.expirations.kind(of: expiration),
            listed: optionClass.expirations.listingDate(of: expiration),
            openInterestDate: optionClass.expirations.calendar.previousTradingDay(before: history.date),
            expiry: Self.expiry(expiration))
    }

    /// The instant a contract stops trading: the regular close of its expiration day — 4:00 pm New York time, 1:00
    /// pm on the exchange's early-close days (the Friday after Thanksgiving lists a weekly).
    public static func expiry(_ expiration: CivilDate) -> Timestamp {
        TradingCalendar.xnys.schedule(on: expiration)?.close ?? Timestamp(expiration, hour: 16, in: .newYork)
    }

    public static func expiry(_ contract: OptionContract) -> Timestamp { expiry(contract.expiration) }

    /// Years from an instant to a contract's expiry, in calendar days / 365 (Alpaca's and most brokers' convention).
    public static func years(_ contract: OptionContract, at time: Timestamp) -> Double {
        let seconds = Double(expiry(contract).nanoseconds - time.nanoseconds) / 1e9
        return max(seconds, 0) / (365 * 86_400)
    }

    /// A contract's snapshot with the underlying at `spot` at `time`; `sessionElapsed` (0…1) is how much of today's
    /// session has passed (volume accumulates with it); `lastPrint` is when its last trade printed. A caller pricing
    /// many contracts passes each expiration's `facts` and the spot's `spotLevel` it worked out once.
    public func snapshot(
        _ contract: OptionContract, spot: Price, time: Timestamp, sessionElapsed: Double, lastPrint: Timestamp,
        facts known: ExpirationFacts? = nil, spotLevel knownLevel: Double? = nil
    ) -> OptionSnapshot {
        let facts = known ?? facts(contract.expiration)
        let spotLevel = knownLevel ?? Self.level(spot)
        let years = max(Double(facts.expiry.nanoseconds - time.nanoseconds) / 1e9, 0) / (365 * 86_400)
        let expired = years <= 0
        let i = inputs(contract, spot: spotLevel, years: years)
        let (_, greeks) = BlackScholes.priceAndGreeks(i)
        let value = expired ? Self.level(contract.intrinsicValue(at: spot)) : BlackScholes.americanPrice(i)
        let theoretical = Quantize.amount(value)

        // Quote width: the old exchange maximums by price band, scaled down for liquid classes, up for LEAPS and
        // for strikes far from the money; at least a tick each side.
        let moneyness = abs(log(max(i.strike, 1e-9) / max(spotLevel, 1e-9)))
        let maximumWidth: Double
        switch value {
        case ..<2: maximumWidth = 0.25
        case ..<5: maximumWidth = 0.375
        case ..<10: maximumWidth = 0.5
        case ..<20: maximumWidth = 0.75
        default: maximumWidth = 1.0
        }
        let leaps = facts.kind == .leaps && years > 0.75
        var width = 0.02 + 0.03 * value
        width *= 1 + 3 * moneyness
        if optionClass.isIndexETF { width *= 0.5 }
        width = min(width, maximumWidth * (leaps ? 2 : 1))
        let tick = optionClass.tick(at: theoretical)
        let tickLevel = tick == Self.cent ? 0.01 : Self.level(tick)
        let halfWidth = max(width / 2, tickLevel)
        let bidLevel = value - halfWidth
        let askLevel = value + halfWidth
        var bid = bidLevel > 0 ? Quantize.amount(bidLevel).rounded(toMultipleOf: tick, rule: .down) : .zero
        var ask = Quantize.amount(askLevel).rounded(
            toMultipleOf: optionClass.tick(at: Quantize.amount(askLevel)), rule: .up)
        if ask < tick { ask = tick }
        if bid >= ask { bid = ask - tick > .zero ? ask - tick : .zero }

        // Sizes, volume and open interest: larger near the money and for near expiries, from the underlying's volume.
        // The contract's own random numbers, keyed by its terms (numbers, not its symbol's text: this runs per
        // contract).
        let days = UInt64(bitPattern: Int64(facts.expirationDay))
        let terms = UInt64(bitPattern: Int64(contract.strikeMillis)) ^ days << 40
        let key = CounterRandom.hash(underlyingKey, terms, contract.right == .call ? 1 : 2)
        let nearness = exp(-pow(moneyness / 0.12, 2))
        let tenor = 1 / (1 + 4 * years)
        let minute = UInt64(max(time.seconds / 60, 0))
        let sizeDraw = CounterRandom.uniform(CounterRandom.hash(key, minute, 1))
        let sizeDraw2 = CounterRandom.uniform(CounterRandom.hash(key, minute, 2))
        let depth = 5 + 200 * nearness * tenor
        let day = UInt64(max(facts.chainDay, 0))
        let scale = max(history.averageVolume, 100_000) / 2_000
        let openInterest: Int
        if let listed = facts.listed, listed < history.date {
            let draw = exp(0.6 * CounterRandom.normal(CounterRandom.hash(key, day, 3)))
            openInterest = Int(min(scale * (0.05 + 2 * nearness) * (0.3 + tenor) * draw, 5_000_000))
        } else {
            openInterest = 0
        }
        let dailyDraw = exp(0.5 * CounterRandom.normal(CounterRandom.hash(key, day, 4)))
        let fullDay = scale * (0.02 + nearness) * (0.2 + tenor) * 0.6 * dailyDraw
        let volume =
            expired ? Int(min(fullDay, 5_000_000)) : Int(min(fullDay * min(max(sessionElapsed, 0), 1), 5_000_000))
        let last: Price? =
            volume > 0 || openInterest > 0
            ? (bid.isPositive
                ? (bid + ask).divided(by: FixedDecimal(2), rule: .halfUp)?
                    .rounded(toMultipleOf: tick, rule: .halfUp) : ask) : nil
        return OptionSnapshot(
            contract: contract, time: time, underlyingPrice: spot, bid: bid, ask: ask,
            bidSize: bid.isPositive ? 1 + Int(sizeDraw * depth) : 0, askSize: 1 + Int(sizeDraw2 * depth),
            theoreticalValue: theoretical, last: last, lastTime: last == nil ? nil : lastPrint,
            previousClose: nil, impliedVolatility: i.volatility, greeks: greeks,
            probabilityInTheMoney: BlackScholes.probabilityInTheMoney(i), volume: volume,
            openInterest: openInterest,
            openInterestDate: openInterest > 0 ? facts.openInterestDate : nil,
            expired: expired)
    }
}
