import Foundation

/// One underlying's implied volatility for every strike and expiry: Gatheral and Jacquier's SSVI surface,
/// w(k, T) = θ_T / 2 · [1 + ρφk + √((φk + ρ)² + 1 − ρ²)] in log-forward moneyness k = ln(K / F), with φ = η / √(θ(1 + θ))
/// (the power law with γ = ½).
///
/// Why SSVI and not a polynomial smile: its no-arbitrage conditions are on the parameters, so every chain made from it
/// is free of static arbitrage by construction — call prices fall with the strike, butterflies cost something
/// (η(1 + |ρ|) ≤ 2), and a later expiry is never cheaper in total variance (θ_T grows with T). `OptionChainTests`
/// checks those properties on generated chains.
///
/// The at-the-money term structure σ_atm(T) = σ_∞ + (σ_0 − σ_∞)·e^(−T/τ) starts at the underlying's recent realized
/// volatility (plus the premium options carry over it) and relaxes to its long-run level, so the surface moves with
/// the underlying's realized volatility; ρ < 0 is the equity skew (steeper for index ETFs).
public struct VolatilitySurface: Sendable, Hashable {
    /// Implied volatility of the shortest expiries at the money.
    public var shortTermVolatility: Double
    /// Where the at-the-money volatility of long expiries settles.
    public var longTermVolatility: Double
    /// Years over which the term structure relaxes from the short to the long level.
    public var relaxation: Double
    /// Skew: the correlation between the underlying and its volatility (−1 < ρ < 0 for equities).
    public var rho: Double
    /// Curvature of the smile; η(1 + |ρ|) ≤ 2 keeps butterflies non-negative.
    public var eta: Double
    /// The smallest volatility quoted anywhere.
    public static let floor = 0.05

    public init(shortTermVolatility: Double, longTermVolatility: Double, relaxation: Double, rho: Double, eta: Double) {
        let long = max(longTermVolatility.isFinite ? longTermVolatility : 0.3, Self.floor)
        self.longTermVolatility = long
        // Bounded so that θ_T = σ_atm(T)²·T keeps growing with T (no calendar arbitrage; see the type's comment).
        let short = shortTermVolatility.isFinite ? shortTermVolatility : long
        self.shortTermVolatility = min(max(short, 0.5 * long, Self.floor), 2.5 * long)
        self.relaxation = max(relaxation, 0.02)
        self.rho = min(max(rho, -0.95), 0.95)
        self.eta = min(max(eta, 0), 1.98 / (1 + abs(self.rho)))
    }

    /// At-the-money implied volatility for an expiry `years` away.
    public func atTheMoneyVolatility(years: Double) -> Double {
        longTermVolatility + (shortTermVolatility - longTermVolatility) * exp(-max(years, 0) / relaxation)
    }

    /// Total implied variance at the money, θ_T.
    func atTheMoneyVariance(years: Double) -> Double {
        let sigma = atTheMoneyVolatility(years: years)
        return sigma * sigma * max(years, 1e-6)
    }

    /// The implied volatility of a strike, for an expiry `years` away with forward price `forward`; `eventVariance` is
    /// the variance of a scheduled jump before the expiry (an earnings report), added to the total at-the-money
    /// variance: implied volatility rises into the report (the jump weighs more the nearer the expiry) and falls back
    /// once it is out. θ still grows with T, so the surface stays free of calendar arbitrage.
    public func volatility(strike: Double, forward: Double, years: Double, eventVariance: Double = 0) -> Double {
        let t = max(years, 1e-6)
        let theta = atTheMoneyVariance(years: t) + (eventVariance.isFinite ? max(eventVariance, 0) : 0)
        let k = strike > 0 && forward > 0 ? log(strike / forward) : 0
        let phi = eta / (theta * (1 + theta)).squareRoot()
        let x = phi * k + rho
        let w = 0.5 * theta * (1 + rho * phi * k + (x * x + 1 - rho * rho).squareRoot())
        return max((w / t).squareRoot(), Self.floor)
    }
}
