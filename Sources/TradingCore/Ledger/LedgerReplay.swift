/// Recomputes balances from an activity log alone: what a ledger says, independent of the live state. Holdings
/// are keyed by symbol: instrument ids are dense indexes of one engine and differ between runs, so stored entries
/// from several runs agree only on symbols.
public struct LedgerReplay: Sendable, Hashable {
    public struct Holding: Sendable, Hashable {
        public var qty: Quantity = .zero
        public var costBasis: FixedDecimal = .zero
        public var realizedPnL: FixedDecimal = .zero
    }

    public private(set) var cash: FixedDecimal = .zero
    public private(set) var holdings: [String: Holding] = [:]
    public private(set) var totalFees: FixedDecimal = .zero

    public init(startingCash: FixedDecimal, entries: some Sequence<LedgerEntry> = [LedgerEntry]()) {
        cash = startingCash
        for entry in entries { apply(entry) }
    }

    /// Folds one more entry in (entries in sequence order).
    public mutating func apply(_ entry: LedgerEntry) {
        switch entry.kind {
        case .reset(let startingCash):
            cash = startingCash
            holdings = [:]
            totalFees = .zero
            return
        case .deposit, .withdrawal, .interest, .marginCall:
            break
        case .fee(_, let orderID, _):
            totalFees -= entry.cashChange
            // Fees belong to the position of the fill they follow; the live ledger books them there too.
            if let symbol = feeSymbol[orderID] {
                holdings[symbol, default: Holding()].realizedPnL += entry.cashChange
            }
        case .fill(let fill):
            feeSymbol[fill.orderID] = fill.symbol
            var holding = holdings[fill.symbol, default: Holding()]
            // A position that went flat is closed; buying again opens a new one (as the live ledger does).
            if holding.qty.isZero { holding = Holding() }
            let exact = fill.price.multiplied(by: fill.qty)
            if fill.side == .buy {
                holding.qty += fill.qty
                holding.costBasis += exact
            } else {
                let released = LedgerMath.costReleased(costBasis: holding.costBasis, held: holding.qty, sold: fill.qty)
                holding.qty -= fill.qty
                holding.costBasis -= released
                holding.realizedPnL += fill.value - released
            }
            holdings[fill.symbol] = holding
        }
        cash += entry.cashChange
    }

    private var feeSymbol: [OrderID: String] = [:]
}

/// Arithmetic shared by the live ledger and its replay, so both round identically.
enum LedgerMath {
    /// The part of the cost basis a sale of `sold` out of `held` shares releases: proportional, half-even to 9
    /// places; everything when the position is closed.
    static func costReleased(costBasis: FixedDecimal, held: Quantity, sold: Quantity) -> FixedDecimal {
        if sold >= held { return costBasis }
        let fraction = costBasis.multiplied(by: sold, places: FixedDecimal.scale, rule: .halfEven)
        return fraction.divided(by: held, rule: .halfEven) ?? costBasis
    }

    /// Trade value moved in cash: half-up to the minor unit.
    static func tradeValue(price: Price, qty: Quantity, currency: Currency) -> FixedDecimal {
        price.multiplied(by: qty, places: currency.minorUnitDigits, rule: .halfUp)
    }
}
