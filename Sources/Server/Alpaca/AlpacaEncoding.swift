import Brokerage
import JSON
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

    /// The `asset_id` of what an order or position trades: an option contract's id, else the symbol's asset id.
    static func tradedAssetIdentifier(_ symbol: String) -> Identifier {
        guard OptionContract.multiplier(ofSymbol: symbol) != nil, let contract = OptionContract(occSymbol: symbol)
        else { return assetIdentifier(symbol) }
        return OptionContractID.id(contract)
    }

    /// `us_option` for an option contract's symbol, `crypto` for a pair's (`BTC/USD`), else `us_equity`.
    static func assetClass(_ symbol: String) -> String {
        if symbol.contains("/") { return "crypto" }
        return OptionContract.multiplier(ofSymbol: symbol) != nil ? "us_option" : "us_equity"
    }

    /// An instrument's asset class as Alpaca names it.
    static func assetClass(_ instrument: Instrument) -> String {
        switch instrument.kind {
        case .crypto: return "crypto"
        case .option: return "us_option"
        // Not one of Alpaca's classes: no Alpaca list or lookup shows a currency pair.
        case .forex: return "forex"
        default: return "us_equity"
        }
    }

    /// A position's symbol as Alpaca lists it: a crypto pair without its slash (`BTCUSD`), as Alpaca's positions do.
    static func positionSymbol(_ instrument: Instrument) -> String {
        instrument.kind == .crypto ? instrument.symbol.replacingOccurrences(of: "/", with: "") : instrument.symbol
    }

    static func time(_ t: Timestamp?) -> JSONValue { t.map { .string($0.description) } ?? .null }

    /// Exchanges alpaca-py accepts; SSE, SZSE and BSE map to "" with an `exchange:` attribute (documented in docs/API.md),
    /// options to "" as Alpaca writes them.
    static func exchange(_ e: Exchange) -> String {
        switch e {
        case .nyse: return "NYSE"
        case .nasdaq: return "NASDAQ"
        case .arca: return "ARCA"
        case .amex: return "AMEX"
        case .bats: return "BATS"
        case .otc: return "OTC"
        case .sse, .szse, .bse: return ""
        // Alpaca writes option positions' exchange empty (alpaca-py's AssetExchange.EMPTY).
        case .opra: return ""
        // alpaca-py's AssetExchange.CRYPTO.
        case .crypto: return "CRYPTO"
        // Alpaca lists no currency pairs; its asset list leaves them out.
        case .idealpro: return ""
        }
    }

    /// An Alpaca order field: its name, and its value made from `Order.Field` (or derived from the order).
    typealias OrderField = (key: JSONKey, value: @Sendable (Order) -> OrderFieldValue)

    /// The Alpaca names an order field is shown under (none: not shown). `legs` are written by `order(_:legs:)` as
    /// nested orders.
    static func alpacaNames(_ field: Order.Field) -> [String] {
        switch field {
        case .id: return ["id"]
        case .clientOrderID: return ["client_order_id"]
        case .symbol: return ["symbol"]
        case .side: return ["side"]
        case .type: return ["order_type", "type"]
        case .timeInForce: return ["time_in_force"]
        case .orderClass: return ["order_class"]
        case .qty: return ["qty"]
        case .notional: return ["notional"]
        case .filledQty: return ["filled_qty"]
        case .limitPrice: return ["limit_price"]
        case .stopPrice: return ["stop_price"]
        case .trailPrice: return ["trail_price"]
        case .trailPercent: return ["trail_percent"]
        case .hwm: return ["hwm"]
        case .extendedHours: return ["extended_hours"]
        case .status: return ["status"]
        case .createdAt: return ["created_at"]
        case .updatedAt: return ["updated_at"]
        case .submittedAt: return ["submitted_at"]
        case .filledAt: return ["filled_at"]
        case .expiredAt: return ["expired_at"]
        case .canceledAt: return ["canceled_at"]
        case .failedAt: return ["failed_at"]
        case .replacedAt: return ["replaced_at"]
        case .expiresAt: return ["expires_at"]
        case .replacedBy: return ["replaced_by"]
        case .replaces: return ["replaces"]
        case .positionIntent: return ["position_intent"]
        // papertrade extensions, ignored by Alpaca clients:
        case .fees: return ["fees"]
        case .reason: return ["reject_reason"]
        case .note: return ["note"]
        case .accountID, .instrument, .filledValue, .legs, .parentID, .triggered, .eligibleAt, .reservedCash,
            .reservedShares:
            return []
        }
    }

    /// What Alpaca shows that the order does not store.
    private static let derivedOrderFields: [OrderField] = [
        (JSONKey("asset_id"), { .id(tradedAssetIdentifier($0.symbol)) }),
        (JSONKey("asset_class"), { .text(assetClass($0.symbol)) }),
        (JSONKey("filled_avg_price"), { .decimal($0.filledAvgPrice) }),
        (JSONKey("source"), { _ in .text(nil) }),
        (JSONKey("subtag"), { _ in .text(nil) }), (JSONKey("ratio_qty"), { _ in .text(nil) }),
    ]

    /// An order's Alpaca fields (all but `legs`), sorted by name: the one list behind both the JSON value and the
    /// byte writer that answers order placements without building a dictionary.
    static let orderFields: [OrderField] =
        (Order.Field.allCases.flatMap { field in
            alpacaNames(field).map { name -> OrderField in (JSONKey(name), { field.value(of: $0) }) }
        } + derivedOrderFields).sorted { $0.key.name < $1.key.name }

    /// A field value as Alpaca writes it: times RFC 3339, decimals as strings, absent values null.
    static func json(_ value: OrderFieldValue) -> JSONValue {
        switch value {
        case .id(let id): return .text(id?.description)
        case .ids(let ids): return .array(ids.map { .string($0.description) })
        case .time(let t): return time(t)
        case .decimal(let d): return .decimal(d)
        case .text(let s): return .text(s)
        case .integer(let n): return .number(String(n))
        case .flag(let b): return .bool(b)
        }
    }

    /// The same bytes as `json(value).write(to:)`.
    static func write(_ value: OrderFieldValue, to out: inout [UInt8]) {
        switch value {
        case .id(let id?): id.appendQuoted(to: &out)
        case .time(let t?): t.appendQuotedRFC3339(to: &out)
        case .decimal(let d?): d.appendQuoted(to: &out)
        case .text(let s?): JSONText.appendQuoted(s, to: &out)
        case .flag(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .integer, .ids: json(value).write(to: &out)
        case .id(nil), .time(nil), .decimal(nil), .text(nil): out.append(contentsOf: "null".utf8)
        }
    }

    static func order(_ o: Order, legs: [Order] = []) -> JSONValue {
        var object = [String: JSONValue](minimumCapacity: orderFields.count + 1)
        for field in orderFields { object[field.key.name] = json(field.value(o)) }
        guard o.orderClass == .mleg, o.parentID == nil else {
            object["legs"] = o.legs.isEmpty ? .null : .array(legs.map { order($0) })
            return .object(object)
        }
        // A multi-leg order's parent names no single asset or side (Alpaca leaves them out); each leg says its
        // ratio to the parent's units.
        for key in ["symbol", "asset_id", "asset_class", "side"] { object[key] = .null }
        object["legs"] = .array(
            legs.map { leg in
                guard case .object(var fields) = order(leg) else { return order(leg) }
                let units = o.qty ?? .one
                fields["ratio_qty"] = .text(leg.qty.flatMap { $0.divided(by: units, rule: .down) }?.description)
                return .object(fields)
            })
        return .object(object)
    }

    private static let legsKey = JSONKey("legs")

    /// The same JSON as `order(o).serializedBytes` for an order without legs, written field by field.
    static func orderBytes(_ o: Order) -> [UInt8] {
        var w = JSONObjectWriter(capacity: 1024)
        var legsWritten = false
        for field in orderFields {
            if !legsWritten, field.key.name > "legs" {
                w.key(legsKey)
                w.bytes.append(contentsOf: "null".utf8)
                legsWritten = true
            }
            w.key(field.key)
            write(field.value(o), to: &w.bytes)
        }
        if !legsWritten {
            w.key(legsKey)
            w.bytes.append(contentsOf: "null".utf8)
        }
        return w.finish()
    }

    static func account(_ s: AccountSummary) -> JSONValue {
        let a = s.account
        let m = s.margin
        let equity = s.equity
        let lastEquity = equity - s.dayChange
        let zero = JSONValue.string("0")
        return .object([
            "id": .string(a.id.description), "account_number": .text(s.record?.accountNumber),
            "status": .string("ACTIVE"),
            "crypto_status": .string("INACTIVE"), "currency": .string(a.currency.rawValue),
            "cash": .decimal(a.cash), "portfolio_value": .decimal(equity), "equity": .decimal(equity),
            "last_equity": .decimal(lastEquity), "buying_power": .decimal(m.buyingPower),
            "regt_buying_power": .decimal(m.regtBuyingPower),
            "daytrading_buying_power": .decimal(m.daytradingBuyingPower),
            "effective_buying_power": .decimal(m.buyingPower),
            "non_marginable_buying_power": .decimal(m.nonMarginableBuyingPower),
            "long_market_value": .decimal(m.longMarketValue), "short_market_value": .decimal(m.shortMarketValue),
            "initial_margin": .decimal(m.initialMargin), "maintenance_margin": .decimal(m.maintenanceMargin),
            "last_maintenance_margin": .decimal(m.maintenanceMargin),
            "sma": .decimal(m.isMargin ? Swift.max(.zero, equity - m.initialMargin) : .zero),
            "multiplier": .string(String(m.multiplier)),
            "shorting_enabled": .bool(s.shortingEnabled), "pattern_day_trader": .bool(s.patternDayTrader),
            "daytrade_count": .int(s.dayTradeCount),
            "trading_blocked": .bool(false), "transfers_blocked": .bool(false), "account_blocked": .bool(false),
            "trade_suspended_by_user": .bool(false), "created_at": time(s.record?.createdAt),
            "accrued_fees": .decimal(a.totalFees), "pending_transfer_in": zero, "pending_transfer_out": zero,
            "options_trading_level": .int(a.optionsTradingLevel.rawValue),
            "options_approved_level": .int(a.optionsApprovedLevel.rawValue),
            "options_buying_power": .decimal(s.optionsBuyingPower),
        ])
    }

    static func position(_ p: PositionSummary, date: CivilDate) -> JSONValue {
        let option = p.instrument.kind == .option
        let marginable =
            p.instrument.market == .us && !option && p.instrument.kind != .crypto
            && p.current >= MarginRates().marginablePrice
        return .object([
            "asset_id": .string(tradedAssetIdentifier(p.position.symbol).description),
            "symbol": .string(positionSymbol(p.instrument)), "exchange": .string(exchange(p.instrument.exchange)),
            "asset_class": .string(assetClass(p.instrument)),
            "asset_marginable": .bool(marginable), "avg_entry_price": .decimal(p.position.averageEntryPrice),
            "qty": .decimal(p.position.qty),
            "qty_available": .decimal(p.quantityAvailable(on: date)),
            "side": .string(p.position.isShort ? "short" : "long"), "market_value": .decimal(p.valuation.marketValue),
            "cost_basis": .decimal(p.position.costBasis), "unrealized_pl": .decimal(p.valuation.unrealizedPnL),
            "unrealized_plpc": .decimal(p.valuation.unrealizedPnLPercent),
            "unrealized_intraday_pl": .decimal(p.valuation.dayChange),
            "unrealized_intraday_plpc": .decimal(p.dayChangePercent ?? .zero),
            "current_price": .decimal(p.current), "lastday_price": .decimal(p.previousClose ?? p.current),
            "change_today": .decimal(p.priceChangeToday ?? .zero),
        ])
    }

    static func asset(_ e: DirectoryEntry) -> JSONValue {
        let i = e.instrument
        if i.kind == .crypto, case .fractional(let minimum, let increment) = i.lot {
            // A pair as Alpaca's crypto assets are: never marginable or shortable, fractional to its steps.
            return .object([
                "id": .string(assetID(i.symbol)), "class": .string("crypto"), "exchange": .string("CRYPTO"),
                "symbol": .string(i.symbol), "name": .string(i.name), "status": .string("active"),
                "tradable": .bool(true), "marginable": .bool(false), "shortable": .bool(false),
                "easy_to_borrow": .bool(false), "fractionable": .bool(true),
                "maintenance_margin_requirement": .int(100),
                "min_order_size": .string(minimum.description), "min_trade_increment": .string(increment.description),
                "price_increment": .string(i.tick.tick(at: .one).description), "attributes": .array([]),
            ])
        }
        var attributes: [JSONValue] = []
        if i.market == .cn { attributes.append(.string("exchange:\(i.exchange.rawValue)")) }
        if i.fractionable { attributes.append(.string("fractional_eh_enabled")) }
        if OptionMarket.optionClass(of: e) != nil { attributes.append(.string("has_options")) }
        // US stocks and ETFs are marginable (a holding under $2.50 still takes equity in full, priced at order time).
        let marginable = i.market == .us && (i.kind == .stock || i.kind == .etf)
        let borrow = i.borrow
        return .object([
            "id": .string(assetID(i.symbol)), "class": .string("us_equity"), "exchange": .string(exchange(i.exchange)),
            "symbol": .string(i.symbol), "name": .string(i.name), "status": .string("active"),
            "tradable": .bool(i.kind != .index),
            "marginable": .bool(marginable), "shortable": .bool(borrow.shortable),
            "easy_to_borrow": .bool(borrow.easyToBorrow), "fractionable": .bool(i.fractionable),
            "maintenance_margin_requirement": .int(marginable ? 30 : 100),
            "min_order_size": .string(String(i.lot.roundLot == 100 && i.market == .cn ? 100 : 1)),
            "min_trade_increment": .string(i.market == .cn ? "100" : "1"),
            "price_increment": .string(i.tick.tick(at: .one).description), "attributes": .array(attributes),
        ])
    }
}
