/// How many shares an order may be for.
public enum LotRule: Sendable, Codable, Hashable {
    /// Whole shares in any number (US). Fractions come only from notional market orders, if the instrument is
    /// fractionable.
    case anyWholeShares
    /// Buys in multiples of `lot` (A-share main board and ChiNext: 100). Sells in multiples of `lot`, or the
    /// whole remaining position in one order (odd lots may only be sold out completely).
    case boardLot(Int)
    /// Buys of at least `minimum` shares, then any whole number (STAR: 200; BSE: 100). Sells below the
    /// minimum only for the whole remaining position.
    case minimumThenIncrement(minimum: Int)
    /// Fractions (crypto): at least `minimum`, in steps of `increment` (Alpaca's `min_order_size` and
    /// `min_trade_increment`). A sale of everything held is allowed off the steps and below the minimum: a fee taken
    /// in the coin leaves a position no step divides.
    case fractional(minimum: Quantity, increment: Quantity)

    /// Whether the rule itself judges fractional quantities (else fractions come only from notional orders).
    public var admitsFractions: Bool {
        if case .fractional = self { return true }
        return false
    }

    /// Why a quantity breaks the rule (a `.lotSize` rejection with its facts), or nil if it is fine. `held` is the position's total quantity.
    public func violation(side: OrderSide, qty: Quantity, held: Quantity, symbol: String) -> OrderRejection? {
        // Facts are written only for a refusal: this runs for every order.
        var extra: (key: String, value: String)?
        func rejection(_ sentence: String, _ message: String) -> OrderRejection {
            var facts = ["qty": qty.description, "symbol": symbol, "held": held.description]
            if let extra { facts[extra.key] = extra.value }
            return OrderRejection(.lotSize, message, facts: .init(sentence, facts))
        }
        if case .fractional(let minimum, let increment) = self {
            if side == .sell && qty == held { return nil }
            if qty < minimum {
                extra = ("minimum", minimum.description)
                return rejection(
                    "lot_size.crypto_minimum", "qty \(qty) for \(symbol) is below the minimum order of \(minimum)")
            }
            if increment.isPositive, !qty.isMultiple(of: increment) {
                extra = ("increment", increment.description)
                return rejection(
                    "lot_size.crypto_increment",
                    "qty \(qty) for \(symbol) must be a multiple of its minimum trade increment \(increment)")
            }
            return nil
        }
        guard qty.isInteger else {
            return rejection("lot_size.whole", "qty \(qty) for \(symbol) must be a whole number of shares")
        }
        switch self {
        case .anyWholeShares, .fractional:
            return nil
        case .boardLot(let lot):
            let lotSize = FixedDecimal(lot)
            if qty.isMultiple(of: lotSize) { return nil }
            if side == .sell && qty == held { return nil }
            extra = ("lot", String(lot))
            // Said as a broker would: the lot, what was asked, and the nearest whole lots to ask instead.
            let below =
                lot > 0
                ? ((qty.integerPart ?? 0) / lot).multipliedReportingOverflow(by: lot)
                : (partialValue: 0, overflow: false)
            let above = below.partialValue.addingReportingOverflow(lot)
            let nearest =
                below.partialValue > 0 && !below.overflow && !above.overflow
                ? "\(below.partialValue) or \(above.partialValue)" : "\(lot)"
            let lots = "\(symbol) trades in lots of \(lot) shares, and \(qty) is not a whole number of lots"
            if side == .sell {
                return rejection(
                    "lot_size.board_lot_sell",
                    "\(lots): sell \(nearest) shares, or all \(held) you hold (a part lot can only be sold together with the rest)"
                )
            }
            return rejection("lot_size.board_lot", "\(lots): buy \(nearest) shares instead")
        case .minimumThenIncrement(let minimum):
            let min = FixedDecimal(minimum)
            if qty >= min { return nil }
            if side == .sell && qty == held { return nil }
            extra = ("minimum", String(minimum))
            if side == .sell {
                return rejection(
                    "lot_size.minimum_sell",
                    "qty \(qty) for \(symbol) is below the minimum of \(minimum) shares; fewer can only be sold as the whole remaining position (\(held) shares)"
                )
            }
            return rejection(
                "lot_size.minimum", "qty \(qty) for \(symbol) is below the minimum order of \(minimum) shares")
        }
    }

    /// The usual order size shown to users (round lot).
    public var roundLot: Int {
        switch self {
        case .anyWholeShares, .fractional: return 1
        case .boardLot(let lot): return lot
        case .minimumThenIncrement(let minimum): return minimum
        }
    }
}
