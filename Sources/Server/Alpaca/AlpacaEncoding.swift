import Brokerage
import MarketData
import TradingCore

/// Alpaca's JSON shapes (see ../shared/reference/alpaca-api.md): decimals as strings, nulls present, enums exact.
enum AlpacaEncoding {
    /// A stable UUID per symbol for `asset_id`.
    static func assetID(_ symbol: String) -> String { assetIdentifier(symbol).description }

    static func assetIdentifier(_ symbol: String) -> Identifier {
        var a: UInt64 = 0xCBF2_9CE4_8422_2325, b: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in symbol.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37
        }
        return Identifier(high: (a & ~0xF000) | 0x5000, low: (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
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

    /// An order field's value: ids and times stay typed until written, so the byte writer that answers order
    /// placements never makes strings for them.
    enum OrderFieldValue {
        case id(Identifier?), time(Timestamp?), decimal(FixedDecimal?), string(String?), bool(Bool)

        var json: JSONValue {
            switch self {
            case .id(let id): return .text(id?.description)
            case .time(let t): return AlpacaEncoding.time(t)
            case .decimal(let d): return .decimal(d)
            case .string(let s): return .text(s)
            case .bool(let b): return .bool(b)
            }
        }

        /// The same bytes as `json.write(to:)`.
        func write(to out: inout [UInt8]) {
            switch self {
            case .id(let id?): id.appendQuoted(to: &out)
            case .time(let t?): t.appendQuotedRFC3339(to: &out)
            case .decimal(let d?): JSONText.appendQuoted(d.description, to: &out)
            case .string(let s?): JSONText.appendQuoted(s, to: &out)
            case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
            case .id(nil), .time(nil), .decimal(nil), .string(nil): out.append(contentsOf: "null".utf8)
            }
        }
    }

    /// An order's fields (all but `legs`), sorted by key: the one definition behind both the JSON value and the
    /// byte writer that answers order placements without building a dictionary.
    typealias OrderField = (key: String, value: @Sendable (Order) -> OrderFieldValue)
    private static func f(_ key: String, _ value: @escaping @Sendable (Order) -> OrderFieldValue) -> OrderField {
        (key, value)
    }

    static let orderFields: [OrderField] = [
        f("id", { .id($0.id.uuid) }), f("client_order_id", { .string($0.clientOrderID.text) }),
        f("created_at", { .time($0.createdAt) }), f("updated_at", { .time($0.updatedAt) }),
        f("submitted_at", { .time($0.submittedAt) }),
        f("filled_at", { .time($0.filledAt) }), f("expired_at", { .time($0.expiredAt) }),
        f("canceled_at", { .time($0.canceledAt) }),
        f("failed_at", { .time($0.failedAt) }), f("replaced_at", { .time($0.replacedAt) }),
        f("expires_at", { .time($0.expiresAt) }),
        f("replaced_by", { .id($0.replacedBy?.uuid) }), f("replaces", { .id($0.replaces?.uuid) }),
        f("asset_id", { .id(assetIdentifier($0.symbol)) }), f("symbol", { .string($0.symbol) }),
        f("asset_class", { _ in .string("us_equity") }),
        f("notional", { .decimal($0.notional) }), f("qty", { .decimal($0.qty) }),
        f("filled_qty", { .decimal($0.filledQty) }),
        f("filled_avg_price", { .decimal($0.filledAvgPrice) }), f("order_class", { .string($0.orderClass.rawValue) }),
        f("order_type", { .string($0.type.rawValue) }), f("type", { .string($0.type.rawValue) }),
        f("side", { .string($0.side.rawValue) }),
        f("time_in_force", { .string($0.timeInForce.rawValue) }), f("limit_price", { .decimal($0.limitPrice) }),
        f("stop_price", { .decimal($0.stopPrice) }), f("status", { .string($0.status.rawValue) }),
        f("extended_hours", { .bool($0.extendedHours) }), f("trail_percent", { .decimal($0.trailPercent) }),
        f("trail_price", { .decimal($0.trailPrice) }), f("hwm", { .decimal($0.hwm) }),
        f("position_intent", { _ in .string(nil) }),
        f("source", { _ in .string(nil) }), f("subtag", { _ in .string(nil) }), f("ratio_qty", { _ in .string(nil) }),
        // papertrade extensions, ignored by Alpaca clients:
        f("fees", { .decimal($0.fees) }), f("reject_reason", { .string($0.reason) }),
    ].sorted { $0.key < $1.key }

    static func order(_ o: Order, legs: [Order] = []) -> JSONValue {
        var object = [String: JSONValue](minimumCapacity: orderFields.count + 1)
        for field in orderFields { object[field.key] = field.value(o).json }
        object["legs"] = o.legs.isEmpty ? .null : .array(legs.map { order($0) })
        return .object(object)
    }

    /// Each field's `"key":`, as bytes, made once.
    private static let orderFieldKeys: [[UInt8]] = orderFields.map { field in
        var bytes: [UInt8] = []
        JSONText.appendQuoted(field.key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        return bytes
    }

    /// The same JSON as `order(o).serializedBytes` for an order without legs, written field by field.
    static func orderBytes(_ o: Order) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(1024)
        var legsWritten = false
        for (i, field) in orderFields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if !legsWritten, field.key > "legs" {
                out.append(contentsOf: #""legs":null,"#.utf8)
                legsWritten = true
            }
            out.append(contentsOf: orderFieldKeys[i])
            field.value(o).write(to: &out)
        }
        if !legsWritten { out.append(contentsOf: #","legs":null"#.utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func account(_ s: AccountSummary) -> JSONValue {
        let a = s.account
        let equity = s.equity
        let lastEquity = equity - s.dayChange
        let zero = JSONValue.string("0")
        return .object([
            "id": .string(a.id.description), "account_number": .text(s.record?.accountNumber),
            "status": .string("ACTIVE"),
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
            "unrealized_intraday_pl": .decimal(p.valuation.dayChange),
            "unrealized_intraday_plpc": .decimal(intradayPercent ?? .zero),
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
            "symbol": .string(i.symbol), "name": .string(i.name), "status": .string("active"),
            "tradable": .bool(i.kind != .index),
            "marginable": .bool(false), "shortable": .bool(false), "easy_to_borrow": .bool(false),
            "fractionable": .bool(i.fractionable), "maintenance_margin_requirement": .int(100),
            "min_order_size": .string(String(i.lot.roundLot == 100 && i.market == .cn ? 100 : 1)),
            "min_trade_increment": .string(i.market == .cn ? "100" : "1"),
            "price_increment": .string(i.tick.tick(at: .one).description), "attributes": .array(attributes),
        ])
    }
}
