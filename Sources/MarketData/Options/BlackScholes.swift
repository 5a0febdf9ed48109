import Foundation
import TradingCore

/// What an option price depends on besides its contract terms: the underlying's price, the time left, the risk-free
/// rate, the underlying's continuous dividend yield and the volatility — the model's world, in Double (the result
/// enters the money path only as a price rounded to the contract's tick).
public struct OptionInputs: Sendable, Hashable {
    public var spot: Double
    public var strike: Double
    /// Years to expiry (calendar days / 365).
    public var years: Double
    /// Continuously compounded, 0.045 = 4.5% a year.
    public var rate: Double
    public var dividendYield: Double
    /// Annualized, 0.2 = 20%.
    public var volatility: Double
    public var right: OptionRight

    public init(
        spot: Double, strike: Double, years: Double, rate: Double, dividendYield: Double, volatility: Double,
        right: OptionRight
    ) {
        self.spot = spot
        self.strike = strike
        self.years = years
        self.rate = rate
        self.dividendYield = dividendYield
        self.volatility = volatility
        self.right = right
    }
}

/// The sensitivities of an option's value, in the units Alpaca and most brokers show: delta and gamma per $1 of the
/// underlying, vega per volatility point (1%), theta per calendar day, rho per 1% of the rate.
public struct OptionGreeks: Sendable, Hashable {
    public var delta: Double
    public var gamma: Double
    public var theta: Double
    public var vega: Double
    public var rho: Double

    public init(delta: Double, gamma: Double, theta: Double, vega: Double, rho: Double) {
        self.delta = delta
        self.gamma = gamma
        self.theta = theta
        self.vega = vega
        self.rho = rho
    }
}

/// Black–Scholes–Merton with a continuous dividend yield: European prices, greeks and implied volatility in closed
/// form, and the Bjerksund–Stensland (1993) approximation of the American price (early exercise of puts, and of
/// calls when the dividend yield exceeds the rate's carry).
///
/// The American approximation is closed form on purpose: a whole chain (several thousand contracts) is priced with
/// greeks in a few milliseconds (`benchmarks/options`), where a 1,000-step binomial tree would take seconds; it
/// stays within a few cents of the tree on listed contracts (tested against QuantLib's CRR value).
public enum BlackScholes {
    /// The standard normal distribution function, to double precision (erfc keeps the far tails exact).
    @inlinable public static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// The standard normal density.
    @inlinable public static func normalPDF(_ x: Double) -> Double { exp(-0.5 * x * x) / (2 * Double.pi).squareRoot() }

    /// At expiry, or with no volatility left, an option is worth what it is worth discounted and exercised now.
    static func degenerate(_ i: OptionInputs) -> Double {
        let forward = i.spot * exp((i.rate - i.dividendYield) * max(i.years, 0))
        let discount = exp(-i.rate * max(i.years, 0))
        return discount * max(i.right == .call ? forward - i.strike : i.strike - forward, 0)
    }

    /// The European value.
    public static func price(_ i: OptionInputs) -> Double {
        guard i.years > 0, i.volatility > 0, i.spot > 0, i.strike > 0 else { return degenerate(i) }
        let sqrtT = i.years.squareRoot()
        let vt = i.volatility * sqrtT
        let d1 =
            (log(i.spot / i.strike) + (i.rate - i.dividendYield + 0.5 * i.volatility * i.volatility) * i.years) / vt
        let d2 = d1 - vt
        let carried = i.spot * exp(-i.dividendYield * i.years)
        let discounted = i.strike * exp(-i.rate * i.years)
        switch i.right {
        case .call: return carried * normalCDF(d1) - discounted * normalCDF(d2)
        case .put: return discounted * normalCDF(-d2) - carried * normalCDF(-d1)
        }
    }

    /// The risk-neutral probability that the option finishes in the money: N(d2) for a call, N(−d2) for a put (at
    /// expiry, or with no volatility left, 1 or 0).
    public static func probabilityInTheMoney(_ i: OptionInputs) -> Double {
        guard i.years > 0, i.volatility > 0, i.spot > 0, i.strike > 0 else {
            return (i.right == .call ? i.spot > i.strike : i.spot < i.strike) ? 1 : 0
        }
        let vt = i.volatility * i.years.squareRoot()
        let d2 =
            (log(i.spot / i.strike) + (i.rate - i.dividendYield - 0.5 * i.volatility * i.volatility) * i.years) / vt
        return normalCDF(i.right == .call ? d2 : -d2)
    }

    /// The European value and greeks in one pass (they share d1, d2 and the exponentials).
    public static func priceAndGreeks(_ i: OptionInputs) -> (price: Double, greeks: OptionGreeks) {
        guard i.years > 0, i.volatility > 0, i.spot > 0, i.strike > 0 else {
            let inTheMoney = i.right == .call ? i.spot > i.strike : i.spot < i.strike
            let delta = inTheMoney ? (i.right == .call ? 1.0 : -1.0) : 0
            return (degenerate(i), OptionGreeks(delta: delta, gamma: 0, theta: 0, vega: 0, rho: 0))
        }
        let t = i.years
        let sqrtT = t.squareRoot()
        let vt = i.volatility * sqrtT
        let d1 = (log(i.spot / i.strike) + (i.rate - i.dividendYield + 0.5 * i.volatility * i.volatility) * t) / vt
        let d2 = d1 - vt
        let qDiscount = exp(-i.dividendYield * t)
        let rDiscount = exp(-i.rate * t)
        let carried = i.spot * qDiscount
        let discounted = i.strike * rDiscount
        let density = normalPDF(d1)
        let gamma = qDiscount * density / (i.spot * vt)
        let vega = carried * density * sqrtT / 100
        let decay = -carried * density * i.volatility / (2 * sqrtT)
        switch i.right {
        case .call:
            let nd1 = normalCDF(d1)
            let nd2 = normalCDF(d2)
            let theta = decay - i.rate * discounted * nd2 + i.dividendYield * carried * nd1
            return (
                carried * nd1 - discounted * nd2,
                OptionGreeks(
                    delta: qDiscount * nd1, gamma: gamma, theta: theta / 365, vega: vega,
                    rho: discounted * t * nd2 / 100)
            )
        case .put:
            let nd1 = normalCDF(-d1)
            let nd2 = normalCDF(-d2)
            let theta = decay + i.rate * discounted * nd2 - i.dividendYield * carried * nd1
            return (
                discounted * nd2 - carried * nd1,
                OptionGreeks(
                    delta: -qDiscount * nd1, gamma: gamma, theta: theta / 365, vega: vega,
                    rho: -discounted * t * nd2 / 100)
            )
        }
    }

    /// The volatility at which the European value equals `price`, or nil when no volatility gives it (below the
    /// discounted intrinsic value or above the most an option can be worth). Newton's method from Brenner and
    /// Subrahmanyam's at-the-money guess, with bisection whenever a step leaves the bracket; to 1e-10 in price.
    public static func impliedVolatility(price target: Double, _ i: OptionInputs) -> Double? {
        guard i.years > 0, i.spot > 0, i.strike > 0, target.isFinite else { return nil }
        var low = 1e-6
        var high = 8.0
        var x = i
        x.volatility = low
        let floor = price(x)
        x.volatility = high
        let ceiling = price(x)
        guard target > floor, target < ceiling else { return nil }
        var sigma = max(min((2 * Double.pi / i.years).squareRoot() * target / i.spot, 4), 0.05)
        for _ in 0..<100 {
            x.volatility = sigma
            let (value, greeks) = priceAndGreeks(x)
            let difference = value - target
            if abs(difference) < 1e-10 { return sigma }
            if difference > 0 { high = sigma } else { low = sigma }
            let vega = greeks.vega * 100
            var next = vega > 1e-12 ? sigma - difference / vega : .nan
            if !(next > low && next < high) { next = 0.5 * (low + high) }
            if abs(next - sigma) < 1e-14 { return next }
            sigma = next
        }
        return sigma
    }

    /// The American value: the larger of the Bjerksund–Stensland (1993) exercise-boundary approximation and the
    /// European value (never below intrinsic). A call on a stock whose dividend yield is below the rate is never
    /// exercised early, so it is the European value exactly.
    public static func americanPrice(_ i: OptionInputs) -> Double {
        let european = price(i)
        guard i.years > 0, i.volatility > 0, i.spot > 0, i.strike > 0 else { return max(european, intrinsic(i)) }
        let value: Double
        switch i.right {
        case .call:
            if i.dividendYield <= 0 { return european }
            value = bjerksundStenslandCall(
                spot: i.spot, strike: i.strike, years: i.years, rate: i.rate, carry: i.rate - i.dividendYield,
                volatility: i.volatility)
        case .put:
            // The put–call transformation: P(S, K, r, b) = C(K, S, r − b, −b).
            let carry = i.rate - i.dividendYield
            value = bjerksundStenslandCall(
                spot: i.strike, strike: i.spot, years: i.years, rate: i.rate - carry, carry: -carry,
                volatility: i.volatility)
        }
        return max(value, european, intrinsic(i))
    }

    static func intrinsic(_ i: OptionInputs) -> Double {
        max(i.right == .call ? i.spot - i.strike : i.strike - i.spot, 0)
    }

    /// Bjerksund and Stensland (1993), "Closed-form approximation of American options", the flat-boundary call
    /// with cost of carry b (r − q for a stock).
    static func bjerksundStenslandCall(
        spot s: Double, strike k: Double, years t: Double, rate r: Double, carry b: Double, volatility v: Double
    ) -> Double {
        let v2 = v * v
        if b >= r {
            // Never optimal to exercise early: the European call with carry b.
            return price(
                OptionInputs(spot: s, strike: k, years: t, rate: r, dividendYield: r - b, volatility: v, right: .call))
        }
        let beta = (0.5 - b / v2) + ((b / v2 - 0.5) * (b / v2 - 0.5) + 2 * r / v2).squareRoot()
        let bInfinity = beta / (beta - 1) * k
        let b0 = max(k, r / (r - b) * k)
        let h = -(b * t + 2 * v * t.squareRoot()) * b0 / (bInfinity - b0)
        let trigger = b0 + (bInfinity - b0) * (1 - exp(h))
        if s >= trigger { return s - k }
        // φ(S, T, γ, H, I) of the paper, with what its five uses share worked out once: I is always the trigger, so
        // (I/S)^κ and the second d's shift depend on γ only; e^λ for γ = 0 and 1 is a discount factor.
        let sqrtT = t.squareRoot()
        let vSqrtT = v * sqrtT
        let logS = log(s)
        let logTrigger = log(trigger)
        let logTriggerOverS = logTrigger - logS
        let shift = 2 * logTriggerOverS / vSqrtT
        let powSBeta = exp(beta * logS)
        let alpha = (trigger - k) * exp(-beta * logTrigger)
        // For each γ: e^λ · S^γ with λ = (−r + γb + ½γ(γ−1)v²)t, and (I/S)^κ with κ = 2b/v² + 2γ − 1.
        struct Gamma {
            var gamma, scale, power: Double
        }
        func gamma(_ g: Double, scale: Double) -> Gamma {
            Gamma(gamma: g, scale: scale, power: exp((2 * b / v2 + (2 * g - 1)) * logTriggerOverS))
        }
        let gBeta = gamma(beta, scale: exp((-r + beta * b + 0.5 * beta * (beta - 1) * v2) * t) * powSBeta)
        let gOne = gamma(1, scale: exp((b - r) * t) * s)
        let gZero = gamma(0, scale: exp(-r * t))
        func phi(_ g: Gamma, logSOverH: Double) -> Double {
            let d = -(logSOverH + (b + (g.gamma - 0.5) * v2) * t) / vSqrtT
            return g.scale * (normalCDF(d) - g.power * normalCDF(d - shift))
        }
        let logSOverTrigger = -logTriggerOverS
        let logSOverK = logS - log(k)
        return alpha * powSBeta - alpha * phi(gBeta, logSOverH: logSOverTrigger)
            + phi(gOne, logSOverH: logSOverTrigger) - phi(gOne, logSOverH: logSOverK)
            - k * phi(gZero, logSOverH: logSOverTrigger) + k * phi(gZero, logSOverH: logSOverK)
    }
}
