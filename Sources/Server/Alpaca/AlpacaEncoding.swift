import Brokerage
import MarketData
import Storage
import TradingCore

/// Alpaca's JSON shapes (see ../shared/reference/alpaca-api.md): decimals as strings, nulls present, enums exact.
enum AlpacaEncoding {
    /// A stable UUID per symbol for `asset_id`.
    static func assetID(_ symbol: String) -> String {
        var a: UInt64 = 0xCBF2_9CE4_8422_2325, b: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in symbol.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37
        }
        return Identifier(high: (a & ~0xF000) | 0x5000, low: (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000).description
    }

    static func time(_ t: Timestamp?) -> JSONValue { t.map { .string($0.description) } ?? .null }

    /// Exchanges alpaca-py accepts; SSE, SZSE and BSE map to "" with an `exchange:` attribute (documented in README).
    static func exchange(_ e: Exchange) -> String {
        switch e {
        case .nyse: return "NYSE"
        case .nasdaq: return "NASDAQ"
        case .arca: return "ARCA"
        case .amex: return "AMEX"
        case .bats: return "BATS"
        case .otc: return "OTC"
        case .sse, .szse, .bse: return ""
        }
    }

    static func order(_ o: Order, legs: [Order] = []) -> JSONValue {
        let legsValue: JSONValue = o.legs.isEmpty ? .null : .array(legs.map { order($0) })
        return .object([
            "id": .string(o.id.description), "client_order_id": .string(o.clientOrderID),
            "created_at": time(o.createdAt), "updated_at": time(o.updatedAt), "submitted_at": time(o.submittedAt),
            "filled_at": time(o.filledAt), "expired_at": time(o.expiredAt), "canceled_at": time(o.canceledAt),
            "failed_at": time(o.failedAt), "replaced_at": time(o.replacedAt),
            "expires_at": time(o.expiresAt),
            "replaced_by": .text(o.replacedBy?.description), "replaces": .text(o.replaces?.description),
            "asset_id": .string(assetID(o.symbol)), "symbol": .string(o.symbol), "asset_class": .string("us_equity"),
            "notional": .decimal(o.notional), "qty": .decimal(o.qty), "filled_qty": .decimal(o.filledQty),
            "filled_avg_price": .decimal(o.filledAvgPrice), "order_class": .string(o.orderClass.rawValue),
            "order_type": .string(o.type.rawValue), "type": .string(o.type.rawValue), "side": .string(o.side.rawValue),
            "time_in_force": .string(o.timeInForce.rawValue), "limit_price": .decimal(o.limitPrice),
            "stop_price": .decimal(o.stopPrice), "status": .string(o.status.rawValue),
            "extended_hours": .bool(o.extendedHours), "legs": legsValue, "trail_percent": .decimal(o.trailPercent),
            "trail_price": .decimal(o.trailPrice), "hwm": .decimal(o.hwm), "position_intent": .null,
            "source": .null, "subtag": .null, "ratio_qty": .null,
            // papertrade extensions, ignored by Alpaca clients:
            "fees": .decimal(o.fees), "reject_reason": .text(o.reason),
        ])
    }

    static func account(_ s: AccountSummary) -> JSONValue {
        let a = s.account
        let equity = s.equity
        let lastEquity = equity - s.dayChange
        let zero = JSONValue.string("0")
        return .object([
            "id": .string(a.id.description), "account_number": .text(s.record?.accountNumber), "status": .string("ACTIVE"),
            "crypto_status": .string("INACTIVE"), "currency": .string(a.currency.rawValue),
            "cash": .decimal(a.cash), "portfolio_value": .decimal(equity), "equity": .decimal(equity),
            "last_equity": .decimal(lastEquity), "buying_power": .decimal(a.buyingPower),
            "regt_buying_power": .decimal(a.buyingPower), "daytrading_buying_power": zero,
            "effective_buying_power": .decimal(a.buyingPower), "non_marginable_buying_power": .decimal(a.buyingPower),
            "long_market_value": .decimal(s.marketValue), "short_market_value": zero, "initial_margin": zero,
            "maintenance_margin": zero, "last_maintenance_margin": zero, "sma": zero, "multiplier": .string("1"),
            "shorting_enabled": .bool(false), "pattern_day_trader": .bool(false), "daytrade_count": .int(0),
            "trading_blocked": .bool(false), "transfers_blocked": .bool(false), "account_blocked": .bool(false),
            "trade_suspended_by_user": .bool(false), "created_at": time(s.record?.createdAt),
            "accrued_fees": .decimal(a.totalFees), "pending_transfer_in": zero, "pending_transfer_out": zero,
            "options_trading_level": .int(0),
        ])
    }

    static func position(_ p: PositionSummary, date: CivilDate) -> JSONValue {
        let change = p.previousClose.flatMap { prev in
            prev.isPositive ? (p.current - prev).divided(by: prev, places: 6, rule: .halfEven) : nil
        }
        let intradayBase = p.previousClose.map { p.position.qty.multiplied(by: $0) }
        let intradayPercent = intradayBase.flatMap { base in
            base.isPositive ? p.valuation.dayChange.divided(by: base, places: 6, rule: .halfEven) : nil
        }
        return .object([
            "asset_id": .string(assetID(p.position.symbol)), "symbol": .string(p.position.symbol),
            "exchange": .string(exchange(p.instrument.exchange)), "asset_class": .string("us_equity"),
            "asset_marginable": .bool(false), "avg_entry_price": .decimal(p.position.averageEntryPrice),
            "qty": .decimal(p.position.qty), "qty_available": .decimal(p.position.availableToSell(on: date)),
            "side": .string("long"), "market_value": .decimal(p.valuation.marketValue),
            "cost_basis": .decimal(p.position.costBasis), "unrealized_pl": .decimal(p.valuation.unrealizedPnL),
            "unrealized_plpc": .decimal(p.valuation.unrealizedPnLPercent),
            "unrealized_intraday_pl": .decimal(p.valuation.dayChange), "unrealized_intraday_plpc": .decimal(intradayPercent ?? .zero),
            "current_price": .decimal(p.current), "lastday_price": .decimal(p.previousClose ?? p.current),
            "change_today": .decimal(change ?? .zero),
        ])
    }

    static func asset(_ e: DirectoryEntry) -> JSONValue {
        let i = e.instrument
        var attributes: [JSONValue] = []
        if i.market == .cn { attributes.append(.string("exchange:\(i.exchange.rawValue)")) }
        if i.fractionable { attributes.append(.string("fractional_eh_enabled")) }
        return .object([
            "id": .string(assetID(i.symbol)), "class": .string("us_equity"), "exchange": .string(exchange(i.exchange)),
            "symbol": .string(i.symbol), "name": .string(i.name), "status": .string("active"), "tradable": .bool(i.kind != .index),
            "marginable": .bool(false), "shortable": .bool(false), "easy_to_borrow": .bool(false),
            "fractionable": .bool(i.fractionable), "maintenance_margin_requirement": .int(100),
            "min_order_size": .string(String(i.lot.roundLot == 100 && i.market == .cn ? 100 : 1)),
            "min_trade_increment": .string(i.market == .cn ? "100" : "1"),
            "price_increment": .string(i.tick.tick(at: .one).description), "attributes": .array(attributes),
        ])
    }
}
