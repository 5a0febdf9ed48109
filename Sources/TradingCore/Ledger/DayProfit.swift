/// An account's profit or loss since a close — what a broker's app shows as "today's P&L" (今日盈亏) — and each
/// holding's part of it.
///
/// The account's figure is what it is worth now, less what it was worth at the close, less the money moved in since
/// (deposits, withdrawals, a reset): so it counts shares bought today from their price, not from yesterday's close,
/// sales, fees, dividends and interest, and it is the same figure as the performance report's total return over the
/// day. A holding's part is its value now, less its value at the close, plus the cash its own entries moved since
/// (sales in, purchases out, its fees and dividends): a holding sold out today still has one.
///
/// A reset starts the figure afresh: from then on it counts from the new starting cash, as if the account had
/// opened with it (a learner who resets sees nothing gained or lost, not the day's loss before the reset).
public struct DayProfitTracker: Sendable {
    /// The close the profit counts from (nil: the account opened after it, and counts from nothing).
    public let since: CivilDate?
    public private(set) var lastSequence: Int64
    private var flows: EquityDayBuilder
    private var startEquity: FixedDecimal
    /// Money moved in before the figure last started afresh (a reset), which it no longer counts.
    private var flowsBeforeStart = FixedDecimal.zero
    private var startValues: [String: FixedDecimal]
    private var cash: [String: FixedDecimal] = [:]

    /// Counting from `close` (the account's row at the close), or — for an account that opened after it — from its
    /// `openingCash` (which then counts as money moved in).
    public init(close: EquityDay?, currency: Currency, openingCash: FixedDecimal, accountID: AccountID) {
        if let close {
            since = close.date
            flows = EquityDayBuilder(continuing: close, currency: currency)
            startEquity = close.equity
            startValues = close.holdings.reduce(into: [:]) { values, holding in
                guard let mark = close.marks[holding.key] else { return }
                values[holding.key] = EquityDayBuilder.value(
                    of: holding.key, qty: holding.value, at: mark, currency: currency)
            }
        } else {
            since = nil
            flows = EquityDayBuilder(accountID: accountID, currency: currency, openingCash: openingCash)
            startEquity = .zero
            startValues = [:]
        }
        lastSequence = flows.lastSequence
    }

    /// Folds one more entry in (entries in sequence order; ones already folded are skipped).
    public mutating func apply(_ entry: LedgerEntry) {
        guard entry.sequence > lastSequence else { return }
        lastSequence = entry.sequence
        flows.apply(entry)
        if case .reset(let start) = entry.kind {
            // Everything held was replaced by the new cash: the figure and the holdings' parts start again from it.
            startEquity = start
            flowsBeforeStart = flows.pendingFlow
            startValues = [:]
            cash = [:]
        } else if let symbol = entry.symbol {
            cash[symbol, default: .zero] += entry.cashChange
        }
    }

    /// The profit with the account now worth `equity` and its holdings `values` (market value by symbol).
    public func profit(equity: FixedDecimal, values: [String: FixedDecimal]) -> DayProfit {
        var bySymbol: [String: FixedDecimal] = [:]
        for symbol in Set(values.keys).union(startValues.keys).union(cash.keys) {
            bySymbol[symbol] =
                values[symbol, default: .zero] - startValues[symbol, default: .zero]
                + cash[symbol, default: .zero]
        }
        let moved = flows.pendingFlow - flowsBeforeStart
        return DayProfit(
            total: equity - startEquity - moved, startEquity: startEquity, flows: moved, bySymbol: bySymbol)
    }
}

/// See `DayProfitTracker`.
public struct DayProfit: Sendable, Hashable {
    /// Equity now − equity at the close − money moved in since.
    public var total: FixedDecimal
    public var startEquity: FixedDecimal
    public var flows: FixedDecimal
    /// Each holding's part (held now or traded since the close); fees, dividends and borrow fees included, margin
    /// interest not (it belongs to no holding).
    public var bySymbol: [String: FixedDecimal]
}

extension LedgerEntry {
    /// The instrument an entry belongs to, if any.
    public var symbol: String? {
        switch kind {
        case .fill(let fill): return fill.symbol
        case .fee(_, _, let symbol): return symbol
        case .cryptoFee(let fee): return fee.symbol
        case .borrowFee(let symbol, _, _, _): return symbol
        case .corporateAction(let booking): return booking.symbol
        case .optionEvent(let event): return event.symbol
        case .optionDelivery(let delivery): return delivery.symbol
        case .deposit, .withdrawal, .transfer, .reset, .interest, .marginCall: return nil
        }
    }
}
