/// What an account's written contracts require, by Alpaca's universal spread rule (options.md §6): premiums aside,
/// each contract's payoff at expiry is a piecewise linear function of the underlying's price; the contracts of one
/// underlying are summed and the worst point of the sum is the cash they require (nothing when they cannot lose).
///
/// - A written put alone requires its strike × its shares (a cash-secured put); with a long put of a lower strike
///   it requires the difference of the strikes (a put spread): the long contract covers the rest.
/// - A written call loses without bound as the price rises: it must be covered by a long call or by shares of the
///   underlying. The shares it needs are counted as the underlying's own payoff (the price × the shares, which never
///   loses below zero) and held (`sharesCoveringCalls`): a covered call requires no cash, a call spread the
///   difference of the strikes.
/// - Several expirations: at each written contract's expiration, the contracts still alive then are summed (a long
///   contract expiring later counts at what exercising it would pay — it is worth at least that), and the largest
///   requirement wins. A long contract expiring before a written one does not cover it.
public enum SpreadRule {
    /// One option position: a contract and the contracts held (negative: written).
    public struct Leg: Sendable, Hashable {
        public var contract: OptionContract
        public var qty: Quantity

        public init(_ contract: OptionContract, qty: Quantity) {
            self.contract = contract
            self.qty = qty
        }
    }

    /// What the written contracts of one underlying require: cash, and shares of the underlying held to cover
    /// calls that no long call covers.
    public struct Requirement: Sendable, Hashable {
        public var cash: FixedDecimal
        public var shares: Quantity

        public static let none = Requirement(cash: .zero, shares: .zero)

        public init(cash: FixedDecimal, shares: Quantity) {
            self.cash = cash
            self.shares = shares
        }
    }

    /// The requirement of one underlying's contracts (every leg must share the underlying). Long contracts count as
    /// cover only with `longsCover` (an account below options level 3 trades no spreads: its written contracts are
    /// covered by shares and cash alone).
    public static func requirement(of legs: [Leg], longsCover: Bool = true) -> Requirement {
        var result = Requirement.none
        var expirations: [CivilDate] = []
        for leg in legs where leg.qty.isNegative && !expirations.contains(leg.contract.expiration) {
            expirations.append(leg.contract.expiration)
        }
        for expiration in expirations {
            let alive = legs.filter {
                !$0.qty.isZero && $0.contract.expiration >= expiration && ($0.qty.isNegative || longsCover)
            }
            // Shares of the payoff per dollar of the underlying far above every strike: each long call adds its
            // shares, each written call takes them away. What is missing, shares must cover.
            var callShares = Quantity.zero
            for leg in alive where leg.contract.right == .call {
                callShares += leg.qty.times(leg.contract.deliverable)
            }
            let shares = callShares.isNegative ? callShares.magnitude : .zero
            // The sum is linear between strikes and rises (or stays flat) beyond the highest, so its lowest point is
            // at zero or at a strike (an adjusted contract's kink is where its deliverable is worth the strike).
            var lowest = payoff(alive, shares: shares, at: .zero)
            for leg in alive {
                lowest = Swift.min(lowest, payoff(alive, shares: shares, at: leg.contract.deliveryPrice))
            }
            result.cash = Swift.max(result.cash, lowest.isNegative ? lowest.magnitude : .zero)
            result.shares = Swift.max(result.shares, shares)
        }
        return result
    }

    /// The contracts' exercise value and the covering shares' value at an underlying price, in dollars (exact).
    static func payoff(_ legs: [Leg], shares: Quantity, at price: Price) -> FixedDecimal {
        var total = shares.multiplied(by: price)
        for leg in legs {
            let intrinsic = leg.contract.intrinsicValue(at: price)
            guard !intrinsic.isZero else { continue }
            total += leg.qty.times(leg.contract.multiplier).multiplied(by: intrinsic)
        }
        return total
    }

    /// The requirement of every underlying's contracts in a set of positions, keyed by the underlying. Positions
    /// that are not option contracts (their symbols are not OCC symbols) are left out.
    public static func requirements(of positions: some Sequence<Position>) -> [String: Requirement] {
        var legs: [String: [Leg]] = [:]
        for position in positions where position.multiplier != nil && !position.qty.isZero {
            guard let contract = position.optionContract else { continue }
            legs[contract.underlying, default: []].append(Leg(contract, qty: position.qty))
        }
        var result: [String: Requirement] = [:]
        for (underlying, legs) in legs {
            let requirement = requirement(of: legs)
            if requirement != .none { result[underlying] = requirement }
        }
        return result
    }
}
