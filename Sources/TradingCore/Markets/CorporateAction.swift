/// A corporate action on one instrument, announced ahead of its ex-date: a cash dividend, a stock dividend (A-shares'
/// 送股/转增: bonus shares per 10 held), or a forward or reverse split. On the ex-date it changes what holders have:
/// cash per share held, or shares multiplied by `newRate / oldRate` (2:1 forward split, 1:10 reverse, 13:10 for
/// 10送3); prices from then on are divided by the same ratio (or lowered by the dividend).
public struct CorporateAction: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case cashDividend = "cash_dividend"
        case stockDividend = "stock_dividend"
        case forwardSplit = "forward_split"
        case reverseSplit = "reverse_split"

        /// Whether it changes the number of shares (and the price per share) rather than paying cash.
        public var changesShares: Bool { self != .cashDividend }
    }

    /// Stable across runs: symbol, kind and ex-date.
    public var id: String
    public var symbol: String
    public var kind: Kind
    public var declarationDate: CivilDate
    /// The first trading day the shares trade without the entitlement: holdings are adjusted before it opens.
    public var exDate: CivilDate
    public var recordDate: CivilDate
    public var payableDate: CivilDate
    /// Cash per share (cash dividends; zero otherwise), exact: A-shares declare it per 10 shares.
    public var cash: FixedDecimal
    /// Shares after (`newRate`) for shares before (`oldRate`); 1:1 for cash dividends.
    public var newRate: FixedDecimal
    public var oldRate: FixedDecimal

    public init(
        symbol: String, kind: Kind, declarationDate: CivilDate, exDate: CivilDate, recordDate: CivilDate,
        payableDate: CivilDate, cash: FixedDecimal = .zero, newRate: FixedDecimal = .one, oldRate: FixedDecimal = .one
    ) {
        id = "\(symbol):\(kind.rawValue):\(exDate)"
        self.symbol = symbol
        self.kind = kind
        self.declarationDate = declarationDate
        self.exDate = exDate
        self.recordDate = recordDate
        self.payableDate = payableDate
        self.cash = cash
        self.newRate = newRate
        self.oldRate = oldRate
    }

    /// Shares after the action per share before it, to 9 places.
    public var ratio: FixedDecimal { newRate.divided(by: oldRate, rule: .halfEven) ?? .one }
}

/// What a corporate action did to one account's position, as its ledger entry records it.
public struct CorporateActionBooking: Sendable, Codable, Hashable {
    public var actionID: String
    public var symbol: String
    public var kind: CorporateAction.Kind
    /// Shares held (negative: short) before the ex-date's adjustment and after it.
    public var qtyBefore: Quantity
    public var qtyAfter: Quantity
    /// Cash per share (dividends).
    public var cashPerShare: FixedDecimal
    public var newRate: FixedDecimal
    public var oldRate: FixedDecimal
    /// The fraction of a share a split left over, paid out in cash (cash in lieu; the entry's cash change), and the
    /// part of the cost basis it took with it.
    public var fractionPaid: Quantity
    public var releasedCost: FixedDecimal

    public init(
        actionID: String, symbol: String, kind: CorporateAction.Kind, qtyBefore: Quantity, qtyAfter: Quantity,
        cashPerShare: FixedDecimal, newRate: FixedDecimal, oldRate: FixedDecimal, fractionPaid: Quantity = .zero,
        releasedCost: FixedDecimal = .zero
    ) {
        self.actionID = actionID
        self.symbol = symbol
        self.kind = kind
        self.qtyBefore = qtyBefore
        self.qtyAfter = qtyAfter
        self.cashPerShare = cashPerShare
        self.newRate = newRate
        self.oldRate = oldRate
        self.fractionPaid = fractionPaid
        self.releasedCost = releasedCost
    }
}

extension LedgerMath {
    /// Books a corporate action's entry into a holding (shares and cost basis) and returns the P&L it realized:
    /// a split's cash in lieu less the cost it released (dividends are cash, realizing nothing here). Shared by the
    /// live ledger and its replay.
    static func apply(
        _ booking: CorporateActionBooking, cashChange: FixedDecimal, to held: inout Quantity,
        costBasis: inout FixedDecimal
    ) -> FixedDecimal {
        guard booking.kind.changesShares else { return .zero }
        held = booking.qtyAfter
        costBasis -= booking.releasedCost
        return cashChange - booking.releasedCost
    }
}

extension TradingEngine {
    /// Applies a corporate action to one account on its ex-date: a cash dividend credits (a short position pays)
    /// cash per share; a split or stock dividend multiplies the shares by its ratio, keeping the cost basis, and pays
    /// any fraction of a share left over in cash at `referencePrice` (the ex-date's reference price, already
    /// adjusted) when the account held whole shares. The account's open orders in the instrument are adjusted as
    /// Alpaca does: quantities multiplied by the ratio (whole shares rounded down), prices divided by it (to the
    /// tick); an order left with less than one share is canceled. Returns the ledger entry, nil when the account
    /// holds none of it.
    @discardableResult
    public mutating func applyCorporateAction(
        _ action: CorporateAction, to accountID: AccountID, referencePrice: Price?, at time: Timestamp
    ) -> LedgerEntry? {
        guard let id = symbols[action.symbol], var account = accounts[accountID] else { return nil }
        let instrument = instruments[Int(id.index)]
        if action.kind.changesShares { adjustOpenOrders(of: accountID, instrument: id, for: action, at: time) }
        account = accounts[accountID] ?? account
        guard var position = account.positions[id], !position.qty.isZero else { return nil }
        let currency = account.currency
        let before = position.qty
        var booking = CorporateActionBooking(
            actionID: action.id, symbol: action.symbol, kind: action.kind, qtyBefore: before, qtyAfter: before,
            cashPerShare: action.cash, newRate: action.newRate, oldRate: action.oldRate)
        var cashChange = FixedDecimal.zero
        if action.kind.changesShares {
            let ratio = action.ratio
            let exact = before.magnitude.multiplied(by: ratio, rule: .down)
            var whole = exact
            if before.isInteger || !instrument.fractionable { whole = exact.rounded(places: 0, rule: .down) }
            let fraction = exact - whole
            let sign = before.isNegative ? FixedDecimal.one.times(-1) : .one
            booking.qtyAfter = whole.multiplied(by: sign)
            if fraction.isPositive, exact.isPositive {
                booking.fractionPaid = fraction
                booking.releasedCost =
                    position.costBasis.multiplied(by: fraction, places: FixedDecimal.scale, rule: .halfEven)
                    .divided(by: exact, rule: .halfEven) ?? .zero
                let price = referencePrice ?? (position.averageEntryPrice.divided(by: ratio, rule: .halfEven) ?? .zero)
                cashChange = LedgerMath.tradeValue(price: price, qty: fraction, currency: currency).multiplied(by: sign)
            }
            if position.lockedQty.isPositive {
                position.lockedQty = position.lockedQty.multiplied(by: ratio, rule: .down).rounded(
                    places: 0, rule: .down)
            }
            if let opened = position.openedToday {
                position.openedToday?.qty = opened.qty.multiplied(by: ratio, rule: .down)
            }
        } else {
            cashChange = before.multiplied(by: action.cash, places: currency.minorUnitDigits, rule: .halfUp)
        }
        position.realizedPnL += LedgerMath.apply(
            booking, cashChange: cashChange, to: &position.qty, costBasis: &position.costBasis)
        accounts[accountID]?.positions[id] = position.qty.isZero && position.reservedForSale.isZero ? nil : position
        return record(.corporateAction(booking), cashChange: cashChange, account: accountID, at: time)
    }

    /// Marks the account's corporate actions as applied through `date` (its market's trading date): the brokerage
    /// applies each ex-date once, and a server that was down applies what it missed.
    public mutating func markCorporateActions(through date: CivilDate, for accountID: AccountID) {
        accounts[accountID]?.corporateActionsThrough = date
    }

    /// Alpaca's rule for open orders across a split: quantity × ratio (rounded down to whole shares unless the order
    /// was fractional), limit, stop and trail prices ÷ ratio on the tick grid; less than one share left cancels it.
    mutating func adjustOpenOrders(
        of accountID: AccountID, instrument id: InstrumentID, for action: CorporateAction, at time: Timestamp
    ) {
        let instrument = instruments[Int(id.index)]
        let ratio = action.ratio
        func price(_ p: Price?) -> Price? {
            p.flatMap { $0.divided(by: ratio, rule: .halfEven) }.map { instrument.tick.round($0, .halfUp) }
        }
        for orderID in openOrders.sorted() {
            guard var order = orders[orderID], order.accountID == accountID, order.instrument == id,
                order.notional == nil, let qty = order.qty
            else { continue }
            releaseReservations(orderID)
            let fractional = !qty.isInteger
            var newQty = qty.multiplied(by: ratio, rule: .down)
            var filled = order.filledQty.multiplied(by: ratio, rule: .down)
            if !fractional {
                newQty = newQty.rounded(places: 0, rule: .down)
                filled = filled.rounded(places: 0, rule: .down)
            }
            guard newQty > filled else {
                orders[orderID] = order
                finish(
                    orderID, .canceled,
                    reason:
                        "\(action.symbol) \(action.kind.rawValue.replacingUnderscores) left less than one share to trade",
                    at: time)
                continue
            }
            order.qty = newQty
            order.filledQty = filled
            order.limitPrice = price(order.limitPrice)
            order.stopPrice = price(order.stopPrice)
            order.trailPrice = price(order.trailPrice)
            order.hwm = price(order.hwm)
            order.updatedAt = time
            removeFromBook(orderID)
            orders[orderID] = order
            if order.status != .held {
                reserve(orderID)
                addToBook(orderID)
            }
        }
    }
}
