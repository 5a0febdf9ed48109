import Brokerage
import JSON
import MarketData
import TradingCore

/// The native API's shapes (/api/v1 and the app's WebSocket): its own, chosen for the web app and the CLI, never
/// the Alpaca surface's encoders (that surface follows Alpaca's documents; this one follows our users).
enum NativeEncoding {
    /// `name`: the name to show (`Brokerage.displayName(of:)`: a default name in the owner's language).
    static func account(_ record: AccountRecord, summary: AccountSummary, name: String) -> JSONValue {
        .object([
            "id": .string(record.id.description), "name": .string(name),
            "market": .string(record.market.rawValue),
            "currency": .string(summary.account.currency.rawValue), "account_number": .string(record.accountNumber),
            "cash": .decimal(summary.account.cash), "buying_power": .decimal(summary.buyingPower),
            "equity": .decimal(summary.equity), "market_value": .decimal(summary.marketValue),
            "day_change": .decimal(summary.dayChange), "starting_cash": .decimal(summary.account.startingCash),
            "type": .string(summary.account.terms.type.rawValue), "multiplier": .int(summary.margin.multiplier),
            // A game account: every player starts with the same cash, so it takes no deposits or withdrawals.
            "in_game": .bool(summary.account.inGame),
            // A class's game that asks for a journal note on every order (the trade sheet asks for one).
            "journal_required": .bool(summary.account.gameRules?.journalRequired ?? false),
            "max_margin_multiplier": .int(summary.account.terms.maxMultiplier),
            "maintenance_margin": .decimal(summary.margin.maintenanceMargin),
            "margin_deficit": .decimal(summary.margin.deficit),
            // Cash in other currencies (bought on currency pairs), and all of it in the account's currency.
            "foreign_cash": .decimal(summary.foreignCash), "balances": .array(summary.currencies.map(balance)),
        ])
    }

    /// A currency the account holds besides its own: the amount and what open orders hold of it, the pair that
    /// prices it and the rate, its worth, cost and profit in the account's currency.
    static func balance(_ c: CurrencySummary) -> JSONValue {
        .object([
            "currency": .string(c.balance.currency.rawValue), "amount": .decimal(c.balance.amount),
            "available": .decimal(c.balance.available), "pair": .string(c.balance.pairSymbol),
            "pair_price": .decimal(c.pairPrice), "rate": .decimal(c.rate), "value": .decimal(c.value),
            "cost": .decimal(c.balance.cost), "unrealized_pl": .decimal(c.unrealizedPnL),
            "realized_pl": .decimal(c.balance.realizedPnL),
        ])
    }

    static func quote(_ q: MarketQuote, entry: DirectoryEntry?) -> JSONValue {
        func levels(_ side: BookSide) -> JSONValue {
            .array(
                (0..<side.count).map { .object(["price": .decimal(side[$0].price), "size": .decimal(side[$0].size)]) })
        }
        return .object([
            "symbol": .string(q.symbol), "name": .text(entry?.name),
            // The name in Chinese where the directory has one (比特币, 苹果), for the app's Chinese screens.
            "chinese_name": .text(entry.flatMap { $0.chineseName.isEmpty ? nil : $0.chineseName }),
            "exchange": .text(entry?.instrument.exchange.rawValue),
            "market": .text(entry?.instrument.market.rawValue), "currency": .text(entry?.instrument.currency.rawValue),
            "kind": .text(entry?.instrument.kind.rawValue), "time": .string(q.time.description),
            "last": .decimal(q.last), "open": .decimal(q.open),
            "high": .decimal(q.high),
            "low": .decimal(q.low), "previous_close": .decimal(q.previousClose), "change": .decimal(q.change),
            "change_percent": .decimal(q.changePercent), "volume": .decimal(q.volume), "turnover": .decimal(q.turnover),
            "bids": levels(q.bids), "asks": levels(q.asks), "limit_up": .decimal(q.limitUp),
            "limit_down": .decimal(q.limitDown),
            "phase": .string(q.phase.rawValue), "trading_date": .string(q.tradingDate.description),
            "halted": .bool(q.isHalted), "halt": q.halt.map(halt) ?? .null,
        ])
    }

    /// A trading halt: why, when it started and when trading resumes.
    static func halt(_ h: TradingHalt) -> JSONValue {
        .object([
            "reason": .string(h.reason.rawValue), "code": .string(h.reason.code), "start": .string(h.start.description),
            "end": .string(h.end.description),
        ])
    }

    /// A time as the native API writes it: RFC 3339 UTC, or null.
    static func time(_ t: Timestamp?) -> JSONValue { t.map { .string($0.description) } ?? .null }

    /// An order as the web app and the CLI read it: what was asked, what happened, and why when it was refused.
    /// Bracket and OCO children are nested under `legs`.
    static func order(_ o: Order, legs: [Order] = []) -> JSONValue {
        .object([
            "id": .string(o.id.description), "client_order_id": .string(o.clientOrderID.text),
            "account_id": .string(o.accountID.description), "symbol": .string(o.symbol),
            "side": .string(o.side.rawValue), "type": .string(o.type.rawValue),
            "time_in_force": .string(o.timeInForce.rawValue), "order_class": .string(o.orderClass.rawValue),
            "position_intent": .text(o.positionIntent?.rawValue), "extended_hours": .bool(o.extendedHours),
            "qty": .decimal(o.qty), "notional": .decimal(o.notional), "limit_price": .decimal(o.limitPrice),
            "stop_price": .decimal(o.stopPrice), "trail_price": .decimal(o.trailPrice),
            "trail_percent": .decimal(o.trailPercent), "hwm": .decimal(o.hwm),
            "status": .string(o.status.rawValue), "filled_qty": .decimal(o.filledQty),
            "filled_avg_price": .decimal(o.filledAvgPrice), "fees": .decimal(o.fees), "reject_reason": .text(o.reason),
            "created_at": time(o.createdAt), "updated_at": time(o.updatedAt), "submitted_at": time(o.submittedAt),
            "filled_at": time(o.filledAt), "expired_at": time(o.expiredAt), "canceled_at": time(o.canceledAt),
            "failed_at": time(o.failedAt), "replaced_at": time(o.replacedAt), "expires_at": time(o.expiresAt),
            "replaced_by": .text(o.replacedBy?.description), "replaces": .text(o.replaces?.description),
            "legs": o.legs.isEmpty ? .null : .array(legs.map { order($0) }), "note": .text(o.note),
        ])
    }

    /// A position valued now: quantity (negative when short), what may be sold today, value, cost and P&L (the
    /// percentages as fractions: 0.05 = +5%).
    static func position(_ p: PositionSummary, date: CivilDate) -> JSONValue {
        .object([
            "symbol": .string(p.position.symbol), "name": .string(p.instrument.name),
            "market": .string(p.instrument.market.rawValue), "currency": .string(p.instrument.currency.rawValue),
            "side": .string(p.position.isShort ? "short" : "long"), "qty": .decimal(p.position.qty),
            "qty_available": .decimal(p.quantityAvailable(on: date)),
            "avg_entry_price": .decimal(p.position.averageEntryPrice), "cost_basis": .decimal(p.position.costBasis),
            "current_price": .decimal(p.current), "lastday_price": .decimal(p.previousClose ?? p.current),
            "change_today": .decimal(p.priceChangeToday ?? .zero), "market_value": .decimal(p.valuation.marketValue),
            "unrealized_pl": .decimal(p.valuation.unrealizedPnL),
            "unrealized_plpc": .decimal(p.valuation.unrealizedPnLPercent),
            "unrealized_intraday_pl": .decimal(p.valuation.dayChange),
            "unrealized_intraday_plpc": .decimal(p.dayChangePercent ?? .zero),
            "realized_pl": .decimal(p.position.realizedPnL),
            // The holding's part of the account's day change (today's purchases from their price, sales, fees).
            "day_pl": .decimal(p.dayProfit ?? p.valuation.dayChange),
            // An option position: its contract (quantities are contracts of `multiplier` shares each).
            "asset_class": .string(p.instrument.kind == .option ? "option" : "stock"),
            "multiplier": .int(p.instrument.option?.multiplier ?? 1),
            "underlying": .text(p.instrument.option?.underlying),
            // Shares one contract delivers (100; an adjusted contract's after a split), and whether its owner asked
            // that it not be exercised at expiry.
            "deliverable": p.instrument.option.map { .int($0.deliverable) } ?? .null,
            "do_not_exercise": .bool(p.position.doNotExercise == true),
            // An option's greeks, where the account detail asks the model for them (`AccountsController.greeks`).
            "greeks": .null, "position_delta": .null, "position_theta": .null,
        ])
    }
}
