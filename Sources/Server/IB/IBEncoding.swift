import Brokerage
import Foundation
import JSON
import MarketData
import TradingCore

/// Papertrade's records in the Client Portal's JSON shapes. Amounts are written as exact decimal numbers (IB sends
/// JSON numbers for amounts and strings for prices in some places; each field follows IB).
enum IBEncoding {
    static func exact(_ value: FixedDecimal) -> JSONValue { .number(value.description) }
    static func money(_ value: FixedDecimal) -> JSONValue {
        .number(value.rounded(places: 2, rule: .halfEven).description)
    }
    static func millis(_ t: Timestamp) -> JSONValue { .int(Int(t.nanoseconds / 1_000_000)) }

    /// "231121150004": IB's yyMMddHHmmss in UTC.
    static func compactTime(_ t: Timestamp) -> String {
        let (date, second) = ExchangeTimeZone.utc.localTime(of: t)
        func two(_ n: Int) -> String { String(format: "%02d", n % 100) }
        return two(date.year) + two(date.month) + two(date.day) + two(second / 3600) + two(second / 60 % 60)
            + two(second % 60)
    }

    /// "20231211-18:00:49" in UTC.
    static func tradeTime(_ t: Timestamp) -> String {
        let (date, second) = ExchangeTimeZone.utc.localTime(of: t)
        return String(
            format: "%04d%02d%02d-%02d:%02d:%02d", date.year, date.month, date.day, second / 3600, second / 60 % 60,
            second % 60)
    }

    // MARK: Accounts

    static func account(_ ib: String, _ record: AccountRecord) -> JSONValue {
        .object([
            "id": .string(ib), "accountId": .string(ib), "accountVan": .string(ib),
            "accountTitle": .string(record.name),
            "displayName": .string(ib), "accountAlias": .string(record.name), "desc": .string(ib),
            "accountStatus": millis(record.createdAt), "currency": .string(record.market.currency.rawValue),
            "type": .string("DEMO"), "tradingType": .string("STKCASH"), "businessType": .string("IB_PROSERVE"),
            "category": .string(""), "ibEntity": .string(record.market == .us ? "IBLLC-US" : "IB-HK"),
            "faclient": .bool(false), "clearingStatus": .string("O"), "covestor": .bool(false),
            "noClientTrading": .bool(false), "trackVirtualFXPortfolio": .bool(false),
            "acctCustType": .string("INDIVIDUAL"),
            "brokerageAccess": .bool(true),
            "parent": .object([
                "mmc": .array([]), "accountId": .string(""), "isMParent": .bool(false), "isMChild": .bool(false),
                "isMultiplex": .bool(false),
            ]),
        ])
    }

    struct Totals {
        var cash: FixedDecimal
        var settled: FixedDecimal
        var buyingPower: FixedDecimal
        var marketValue: FixedDecimal
        var equity: FixedDecimal
        var unrealized: FixedDecimal
        var realized: FixedDecimal
        var dayChange: FixedDecimal
        var currency: String

        init(_ summary: AccountSummary) {
            cash = summary.account.cash
            settled = summary.account.cash
            buyingPower = summary.buyingPower
            marketValue = summary.marketValue
            equity = summary.equity
            unrealized = summary.positions.reduce(.zero) { $0 + $1.valuation.unrealizedPnL }
            realized = summary.positions.reduce(.zero) { $0 + $1.position.realizedPnL }
            dayChange = summary.dayChange
            currency = summary.account.currency.rawValue
        }
    }

    /// `/portfolio/{acct}/summary`: every key lower-case, each `{amount, currency, isNull, timestamp, value, severity}`.
    static func summary(_ ib: String, _ summary: AccountSummary, at now: Timestamp) -> JSONValue {
        let t = Totals(summary)
        let stamp = millis(now)
        func amount(_ value: FixedDecimal) -> JSONValue {
            .object([
                "amount": money(value), "currency": .string(t.currency), "isNull": .bool(false), "timestamp": stamp,
                "value": .null, "severity": .int(0),
            ])
        }
        func text(_ value: String) -> JSONValue {
            .object([
                "amount": .number("0"), "currency": .null, "isNull": .bool(false), "timestamp": stamp,
                "value": .string(value), "severity": .int(0),
            ])
        }
        var object: [String: JSONValue] = [
            "accountcode": text(ib), "accounttype": text("DEMO"), "accountready": text("true"),
            "tradingtype-s": text("STKCASH"), "currency": text(t.currency),
        ]
        let amounts: [(String, FixedDecimal)] = [
            ("netliquidation", t.equity), ("totalcashvalue", t.cash + summary.foreignCash), ("settledcash", t.settled),
            ("availablefunds", t.buyingPower), ("buyingpower", t.buyingPower), ("equitywithloanvalue", t.equity),
            ("grosspositionvalue", t.marketValue), ("excessliquidity", t.buyingPower), ("initmarginreq", .zero),
            ("maintmarginreq", .zero), ("fullavailablefunds", t.buyingPower), ("fullexcessliquidity", t.buyingPower),
            ("fullinitmarginreq", .zero), ("fullmaintmarginreq", .zero), ("accruedcash", .zero),
            ("stockmarketvalue", t.marketValue), ("unrealizedpnl", t.unrealized), ("realizedpnl", t.realized),
            ("previousdayequitywithloanvalue", t.equity - t.dayChange), ("sma", .zero), ("regtmargin", .zero),
            ("leverage-s", .zero), ("lookaheadavailablefunds", t.buyingPower),
            ("lookaheadexcessliquidity", t.buyingPower),
            ("lookaheadinitmarginreq", .zero), ("lookaheadmaintmarginreq", .zero),
            ("daytradesremaining", FixedDecimal(-1)),
        ]
        for (key, value) in amounts { object[key] = amount(value) }
        object["cushion"] = .object([
            "amount": .number("1"), "currency": .null, "isNull": .bool(false), "timestamp": stamp, "value": .null,
            "severity": .int(0),
        ])
        return .object(object)
    }

    /// `/iserver/account/{acct}/summary` (the newer summary ibind's `account_summary` reads).
    static func iserverSummary(_ summary: AccountSummary) -> JSONValue {
        let t = Totals(summary)
        return .object([
            "accountType": .string("DEMO"), "status": .string(""), "balance": money(t.cash), "SMA": .number("0"),
            "buyingPower": money(t.buyingPower), "availableFunds": money(t.buyingPower),
            "excessLiquidity": money(t.buyingPower), "netLiquidationValue": money(t.equity),
            "equityWithLoanValue": money(t.equity), "regTLoan": .number("0"), "securitiesGVP": money(t.marketValue),
            "totalCashValue": money(t.cash + summary.foreignCash), "accruedInterest": .number("0"),
            "regTMargin": .number("0"),
            "initialMargin": .number("0"), "maintenanceMargin": .number("0"),
            "cashBalances": .array(
                [
                    .object([
                        "currency": .string(t.currency), "balance": money(t.cash), "settledCash": money(t.settled),
                    ])
                ]
                    + summary.currencies.map {
                        .object([
                            "currency": .string($0.balance.currency.rawValue), "balance": money($0.balance.amount),
                            "settledCash": money($0.balance.amount),
                        ])
                    }),
        ])
    }

    /// One currency's ledger (`/portfolio/{acct}/ledger`, also the WebSocket's `sld`): its cash, its value in the
    /// base currency's terms (`exchangerate`: base units per unit), and for the account's own currency and `BASE`
    /// the positions, equity and profits (IB books those in the currency they trade in: here always the account's).
    struct LedgerFigures {
        var key: String
        var cash: FixedDecimal
        var rate: FixedDecimal
        var netLiquidation: FixedDecimal
        var stockValue: FixedDecimal = .zero
        var unrealized: FixedDecimal = .zero
        var realized: FixedDecimal = .zero
    }

    static func ledgerEntry(_ ib: String, _ f: LedgerFigures, at now: Timestamp) -> JSONValue {
        var object: [String: JSONValue] = [
            "acctcode": .string(ib), "currency": .string(f.key), "key": .string("LedgerList"),
            "secondkey": .string(f.key), "exchangerate": exact(f.rate), "sessionid": .int(1), "severity": .int(0),
            "timestamp": .int(Int(now.nanoseconds / 1_000_000_000)),
        ]
        let amounts: [(String, FixedDecimal)] = [
            ("cashbalance", f.cash), ("settledcash", f.cash), ("netliquidationvalue", f.netLiquidation),
            ("stockmarketvalue", f.stockValue), ("unrealizedpnl", f.unrealized), ("realizedpnl", f.realized),
            ("dividends", .zero), ("interest", .zero), ("funds", .zero), ("moneyfunds", .zero),
            ("commoditymarketvalue", .zero), ("futuremarketvalue", .zero), ("corporatebondsmarketvalue", .zero),
            ("warrantsmarketvalue", .zero), ("issueroptionsmarketvalue", .zero), ("stockoptionmarketvalue", .zero),
            ("futuresonlypnl", .zero), ("tbondsmarketvalue", .zero), ("futureoptionmarketvalue", .zero),
            ("cashbalancefxsegment", .zero), ("tbillsmarketvalue", .zero), ("billable", .zero),
        ]
        for (name, value) in amounts { object[name] = money(value) }
        return .object(object)
    }

    /// Every currency the account holds (its own always) and `BASE`, the whole account in its own currency.
    static func ledger(_ ib: String, _ summary: AccountSummary, at now: Timestamp) -> JSONValue {
        let t = Totals(summary)
        let home = summary.account.currency.rawValue
        let foreignRealized = summary.currencies.reduce(FixedDecimal.zero) { $0 + $1.balance.realizedPnL }
        let foreignUnrealized = summary.currencies.reduce(FixedDecimal.zero) { $0 + $1.unrealizedPnL }
        var object: [String: JSONValue] = [
            home: ledgerEntry(
                ib,
                LedgerFigures(
                    key: home, cash: t.cash, rate: .one, netLiquidation: t.cash + t.marketValue,
                    stockValue: t.marketValue, unrealized: t.unrealized, realized: t.realized), at: now),
            "BASE": ledgerEntry(
                ib,
                LedgerFigures(
                    key: "BASE", cash: t.cash + summary.foreignCash, rate: .one, netLiquidation: t.equity,
                    stockValue: t.marketValue, unrealized: t.unrealized + foreignUnrealized,
                    realized: t.realized + foreignRealized), at: now),
        ]
        for currency in summary.currencies {
            let key = currency.balance.currency.rawValue
            object[key] = ledgerEntry(
                ib,
                LedgerFigures(
                    key: key, cash: currency.balance.amount, rate: currency.rate,
                    netLiquidation: currency.balance.amount),
                at: now)
        }
        return .object(object)
    }

    /// A currency held as IB lists it among positions: a `CASH` row in the pair that prices it, signed as the pair is
    /// written — euros are EUR.USD bought (the euros), yen are USD.JPY sold (dollars' worth at the pair's price) — with
    /// the average rate paid, and its value and profit in the account's currency.
    static func currencyPosition(_ ib: String, _ c: CurrencySummary, pair: Instrument) -> JSONValue {
        let b = c.balance
        let price =
            c.pairPrice
            ?? (b.isPairBase
                ? b.averageCost : c.rate.isPositive ? (FixedDecimal.one.divided(by: c.rate) ?? .zero) : .zero)
        let quantity =
            b.isPairBase
            ? b.amount : -(price.isPositive ? b.amount.divided(by: price, places: 2, rule: .halfEven) ?? .zero : .zero)
        // The average price in the pair's terms: dollars per euro paid; yen per dollar received.
        let average =
            b.isPairBase
            ? b.averageCost.rounded(places: 6, rule: .halfEven)
            : (b.cost.isPositive ? b.amount.divided(by: b.cost, places: 6, rule: .halfEven) ?? .zero : .zero)
        return .object([
            "acctId": .string(ib), "conid": .int(IBConid.conid(pair)), "contractDesc": .string(pair.symbol),
            "position": exact(quantity), "mktPrice": exact(price), "mktValue": money(c.value),
            "currency": .string(pair.currency.rawValue), "avgCost": exact(average), "avgPrice": exact(average),
            "realizedPnl": money(b.realizedPnL), "unrealizedPnl": money(c.unrealizedPnL),
            "exchs": .null, "expiry": .null, "putOrCall": .null, "multiplier": .null, "strike": .number("0"),
            "exerciseStyle": .null, "conExchMap": .array([]), "assetClass": .string("CASH"), "undConid": .int(0),
            "model": .string(""), "ticker": .string(pair.currencyPair?.base.rawValue ?? pair.symbol),
            "name": .string(pair.name), "fullName": .string(pair.symbol), "isUS": .bool(false),
            "listingExchange": .string("IDEALPRO"), "sector": .null, "group": .null, "hasOptions": .bool(false),
            "pageSize": .int(100),
        ])
    }

    static func position(_ ib: String, _ p: PositionSummary, entry: DirectoryEntry?) -> JSONValue {
        let instrument = p.instrument
        let conid = IBConid.conid(instrument)
        let average = p.position.averageEntryPrice.rounded(places: 4, rule: .halfEven)
        var object: [String: JSONValue] = [
            "acctId": .string(ib), "conid": .int(conid), "contractDesc": .string(instrument.symbol),
            "position": exact(p.position.qty), "mktPrice": exact(p.current), "mktValue": money(p.valuation.marketValue),
            "currency": .string(instrument.currency.rawValue), "avgCost": exact(average), "avgPrice": exact(average),
            "realizedPnl": money(p.position.realizedPnL), "unrealizedPnl": money(p.valuation.unrealizedPnL),
            "exchs": .null, "expiry": .null, "putOrCall": .null, "multiplier": .null, "strike": .number("0"),
            "exerciseStyle": .null, "conExchMap": .array([]), "assetClass": .string(IBMarketFields.secType(instrument)),
            "undConid": .int(0),
            "model": .string(""), "ticker": .string(instrument.symbol), "name": .string(instrument.name),
            "fullName": .string(instrument.symbol), "isUS": .bool(instrument.market == .us),
            "listingExchange": .string(IBMarketFields.listingExchange(instrument)),
            "sector": .text(entry.flatMap { $0.sector.isEmpty ? nil : $0.sector }),
            "group": .text(entry.flatMap { $0.industry.isEmpty ? nil : $0.industry }),
            "hasOptions": .bool(false), "pageSize": .int(100),
        ]
        if let contract = instrument.option {
            // IB's option rows: the cost per contract (premium × 100), the price per share.
            object["assetClass"] = .string("OPT")
            object["avgCost"] = exact(average.times(contract.multiplier))
            object["putOrCall"] = .string(contract.right == .call ? "C" : "P")
            object["strike"] = exact(contract.strike)
            object["expiry"] = .string(IBOptionRoutes.maturity(contract.expiration))
            object["multiplier"] = .string(String(contract.multiplier))
            object["exerciseStyle"] = .string("A")
            object["undConid"] = .int(IBConid.conid(symbol: contract.underlying, market: .us) ?? 0)
            object["ticker"] = .string(contract.underlying)
            object["contractDesc"] = .string(IBOrderTicket.optionName(contract))
            object["listingExchange"] = .string("SMART")
        }
        return .object(object)
    }

    // MARK: Contracts

    static func contract(_ entry: DirectoryEntry) -> JSONValue {
        let i = entry.instrument
        return .object([
            "conid": .int(IBConid.conid(i)), "exchange": .string(IBMarketFields.listingExchange(i)),
            "isUS": .bool(i.market == .us),
        ])
    }

    static func contractInfo(_ entry: DirectoryEntry) -> JSONValue {
        let i = entry.instrument
        return .object([
            "con_id": .int(IBConid.conid(i)), "symbol": .string(i.currencyPair.map { $0.base.rawValue } ?? i.symbol),
            "local_symbol": .string(i.symbol), "company_name": .string(i.name),
            "instrument_type": .string(IBMarketFields.secType(i)),
            "currency": .string(i.currency.rawValue),
            "exchange": .string(IBMarketFields.listingExchange(i)),
            "valid_exchanges": .string(IBMarketFields.listingExchange(i)),
            "trading_class": .string(
                i.kind == .forex ? i.symbol : i.market == .us ? "NMS" : i.board.rawValue.uppercased()),
            "industry": .string(entry.sector), "category": .string(entry.industry), "multiplier": .string(""),
            "contract_clarification_type": .null, "allow_sell_long": .bool(false),
            "is_zero_commission_security": .bool(false),
            "r_t_h": .bool(true), "maturity_date": .null, "text": .null, "underlying_con_id": .int(0),
            "cusip": .null, "classifier": .null, "contract_month": .null, "underlying_issuer": .null,
            "fullName": .string(i.symbol), "smart_available": .bool(true),
        ])
    }

    /// Order rules: lot size, tick, price band for A-shares, allowed order types.
    static func rules(_ entry: DirectoryEntry, quote: MarketQuote?) -> JSONValue {
        let i = entry.instrument
        let last = quote?.last ?? .zero
        let tick = i.tick.tick(at: last.isPositive ? last : FixedDecimal.one)
        let lot = FixedDecimal(i.lot.roundLot)
        var rules: [String: JSONValue] = [
            "algoEligible": .bool(false), "overnightEligible": .bool(false), "costReport": .bool(false),
            "canTradeAcctIds": .array([]), "error": .null,
            "orderTypes": .array(["limit", "market", "stop", "stop_limit", "trailing_stop"].map(JSONValue.string)),
            "orderTypesOutside": .array([JSONValue.string("limit")]),
            "defaultSize": exact(i.market == .us ? FixedDecimal(100) : lot), "cashSize": .number("0"),
            "sizeIncrement": exact(i.market == .us ? .one : lot),
            "tifTypes": .array(
                ["DAY/o,a", "GTC/o,a", "IOC/MARKET,LIMIT,o", "FOK/MARKET,LIMIT,o", "OPG/LIMIT,MARKET,a"].map(
                    JSONValue.string)),
            "tifDefault": .string("DAY"), "limitPrice": quote.map { exact($0.last) } ?? .null,
            "stopprice": quote.map { exact($0.last) } ?? .null, "orderOrigination": .null, "preview": .bool(true),
            "displaySize": .null, "fraqTypes": .array([]), "fraqInt": .int(0), "cqtTypes": .array([]),
            "orderDefaults": .object(["LMT": .object(["LP": .string(last.formatted(minimumPlaces: 2))])]),
            "cqtDefault": .number("0"), "increment": exact(tick), "incrementDigits": .int(tick.fractionalDigits),
            "negativeCapable": .bool(false), "incrementType": .int(1), "hasSecondary": .bool(false),
            "modTypes": .array([]),
            "increment_rules": .array([
                .object(["lowerEdge": .number("0"), "increment": exact(tick)])
            ]),
            "lotSize": exact(lot), "roundLot": .int(i.lot.roundLot),
            "sellableSameDay": .bool(i.sellableSameDay),
        ]
        if let up = quote?.limitUp, let down = quote?.limitDown {
            rules["limitUp"] = exact(up)
            rules["limitDown"] = exact(down)
        }
        if let max = i.maximumOrderQty { rules["maxSize"] = exact(max) }
        return .object(rules)
    }

    // MARK: Orders

    /// IB's order status: untriggered stops and orders waiting for the session are PreSubmitted.
    static func status(_ order: Order, now: Timestamp) -> String {
        switch order.status {
        case .filled: return "Filled"
        case .canceled, .expired, .doneForDay, .replaced: return "Cancelled"
        case .rejected, .suspended: return "Inactive"
        case .pendingCancel: return "PendingCancel"
        case .held: return "PreSubmitted"
        case .pendingNew: return "PendingSubmit"
        default:
            let waitingStop = [.stop, .stopLimit, .trailingStop].contains(order.type) && !order.triggered
            return waitingStop || order.eligibleAt > now ? "PreSubmitted" : "Submitted"
        }
    }

    static func orderTypeName(_ type: OrderType) -> String {
        switch type {
        case .market: return "Market"
        case .limit: return "Limit"
        case .stop: return "Stop"
        case .stopLimit: return "Stop Limit"
        case .trailingStop: return "Trailing Stop"
        }
    }

    static func origOrderType(_ type: OrderType) -> String {
        switch type {
        case .market: return "MARKET"
        case .limit: return "LIMIT"
        case .stop: return "STOP"
        case .stopLimit: return "STOP_LIMIT"
        case .trailingStop: return "TRAILING STOP"
        }
    }

    static func tif(_ tif: TimeInForce) -> String {
        switch tif {
        case .day: return "DAY"
        case .gtc: return "GTC"
        case .ioc: return "IOC"
        case .fok: return "FOK"
        case .opg: return "OPG"
        case .cls: return "CLS"
        }
    }

    static func description(_ order: Order, combo: Bool = false) -> String {
        let verb = order.side == .buy || combo ? "Buy" : "Sell"
        var text = "\(verb) \((order.qty ?? order.filledQty).formatted(minimumPlaces: 0)) \(orderTypeName(order.type))"
        if let limit = order.limitPrice { text += " \(limit.formatted(minimumPlaces: 2))" }
        if let stop = order.stopPrice, order.type != .trailingStop {
            text += " Stop \(stop.formatted(minimumPlaces: 2))"
        }
        return text + ", " + (order.timeInForce == .gtc ? "GTC" : tif(order.timeInForce).capitalized)
    }

    /// A leg of a multi-leg order: IB shows the combo as one order, so its legs are not listed apart.
    static func isComboLeg(_ order: Order) -> Bool { order.orderClass == .mleg && order.parentID != nil }

    /// A multi-leg order's `conidex` as IB writes a combo: "28812380;;;{conid}/{ratio},…", sold legs negative.
    static func comboConidex(_ parent: Order, legs: [Order]) -> String {
        let units = parent.qty ?? .one
        let items = legs.map { leg in
            let ratio = (leg.qty ?? units).divided(by: units, rule: .down)?.integerPart ?? 1
            return "\(IBConid.optionConid(leg.symbol) ?? 0)/\(leg.side == .buy ? ratio : -ratio)"
        }
        return "\(IBOrderTicket.usdSpreadConid);;;" + items.joined(separator: ",")
    }

    /// One row of `/iserver/account/orders` (and of the WebSocket's `sor`). `combo`: a multi-leg order's legs — the
    /// row is then IB's combo ("BAG"), bought at the net (negative: a credit).
    static func liveOrder(
        _ order: Order, number: Int, ib: String, entry: DirectoryEntry?, now: Timestamp,
        carried: IBGateway.Fills = .init(), combo: [Order]? = nil
    ) -> JSONValue {
        let conid =
            combo != nil
            ? IBOrderTicket.usdSpreadConid
            : entry.map { IBConid.conid($0.instrument) } ?? IBConid.optionConid(order.symbol) ?? 0
        let conidex = combo.map { comboConidex(order, legs: $0) } ?? String(conid)
        let (total, filled, remaining, average) = sizes(order, carried: carried)
        var object: [String: JSONValue] = [
            "acct": .string(ib), "account": .string(ib), "conid": .int(conid), "conidex": .string(conidex),
            "orderId": .int(number), "cashCcy": .string(entry?.instrument.currency.rawValue ?? ""),
            "sizeAndFills": .string("\(filled.formatted(minimumPlaces: 0))/\(total.formatted(minimumPlaces: 0))"),
            "orderDesc": .string(description(order)), "description1": .string(order.symbol),
            "ticker": .string(order.symbol),
            "secType": .string(
                entry.map { IBMarketFields.secType($0.instrument) }
                    ?? (OptionContract(occSymbol: order.symbol) == nil ? "STK" : "OPT")),
            "listingExchange": .string(entry.map { IBMarketFields.listingExchange($0.instrument) } ?? ""),
            "remainingQuantity": exact(remaining), "filledQuantity": exact(filled),
            "totalSize": exact(total), "companyName": .string(entry?.name ?? order.symbol),
            "status": .string(status(order, now: now)), "order_ccp_status": .string(status(order, now: now)),
            "origOrderType": .string(origOrderType(order.type)), "supportsTaxOpt": .string("1"),
            "lastExecutionTime": .string(compactTime(order.updatedAt)), "lastExecutionTime_r": millis(order.updatedAt),
            "orderType": .string(orderTypeName(order.type)), "bgColor": .string("#FFFFFF"),
            "fgColor": .string("#000000"),
            "order_ref": .string(order.clientOrderID.text), "timeInForce": .string(tif(order.timeInForce)),
            "side": .string(order.side == .buy ? "BUY" : "SELL"), "isEventTrading": .string("0"),
            "outsideRTH": .bool(order.extendedHours),
        ]
        if let price = order.limitPrice { object["price"] = .string(price.description) }
        if let stop = order.stopPrice { object[order.type == .stop ? "price" : "auxPrice"] = .string(stop.description) }
        if let average { object["avgPrice"] = .string(average.rounded(places: 4, rule: .halfEven).description) }
        if let reason = order.reason, order.status == .rejected || order.status == .canceled {
            object["text"] = .string(reason)
        }
        if combo != nil {
            object["secType"] = .string("BAG")
            object["side"] = .string("BUY")
            object["orderDesc"] = .string(description(order, combo: true))
        }
        return .object(object)
    }

    /// `/iserver/account/order/status/{id}`.
    static func orderStatus(
        _ order: Order, number: Int, ib: String, entry: DirectoryEntry?, now: Timestamp,
        carried: IBGateway.Fills = .init(), combo: [Order]? = nil
    ) -> JSONValue {
        let conid =
            combo != nil
            ? IBOrderTicket.usdSpreadConid
            : entry.map { IBConid.conid($0.instrument) } ?? IBConid.optionConid(order.symbol) ?? 0
        let conidex = combo.map { comboConidex(order, legs: $0) } ?? String(conid)
        let (total, filled, remaining, average) = sizes(order, carried: carried)
        let state = status(order, now: now)
        var object: [String: JSONValue] = [
            "sub_type": .null, "request_id": .string("0"), "server_id": .string("0"), "order_id": .int(number),
            "conidex": .string(conidex), "conid": .int(conid), "symbol": .string(order.symbol),
            "side": .string(order.side == .buy ? "B" : "S"), "contract_description_1": .string(order.symbol),
            "listing_exchange": .string(entry.map { IBMarketFields.listingExchange($0.instrument) } ?? ""),
            "option_acct": .string("c"), "company_name": .string(entry?.name ?? order.symbol),
            "size": .string(remaining.description), "total_size": .string(total.description),
            "currency": .string(entry?.instrument.currency.rawValue ?? ""), "account": .string(ib),
            "order_type": .string(origOrderType(order.type)), "cum_fill": .string(filled.description),
            "order_status": .string(state), "order_ccp_status": .string(state),
            "order_status_description": .string(statusDescription(state)), "tif": .string(tif(order.timeInForce)),
            "fgColor": .string("#FFFFFF"), "bgColor": .string("#000000"),
            "order_not_editable": .bool(!order.status.isOpen), "editable_fields": .string(""),
            "cannot_cancel_order": .bool(!order.status.isOpen), "deactivate_order": .bool(false),
            "sec_type": .string("STK"), "available_chart_periods": .string("#R|1"),
            "order_description": .string(description(order)),
            "order_description_with_contract": .string(order.symbol + " " + description(order)),
            "alert_active": .int(1), "child_order_type": .string("0"), "order_clearing_account": .string(ib),
            "size_and_fills": .string(filled.formatted(minimumPlaces: 0)),
            "allowed_duplicate_opposite": .bool(true), "order_time": .string(compactTime(order.createdAt)),
            "order_ref": .string(order.clientOrderID.text),
        ]
        if let price = order.limitPrice { object["limit_price"] = .string(price.description) }
        if let stop = order.stopPrice { object["stop_price"] = .string(stop.description) }
        if let average {
            object["average_price"] = .string(average.rounded(places: 4, rule: .halfEven).description)
        }
        if let reason = order.reason { object["text"] = .string(reason) }
        if combo != nil {
            object["sec_type"] = .string("BAG")
            object["side"] = .string("B")
            object["order_description"] = .string(description(order, combo: true))
            object["order_description_with_contract"] = .string(order.symbol + " " + description(order, combo: true))
        }
        return .object(object)
    }

    /// An order's sizes as IB shows them: a modified order is one order, so fills of the orders it replaced count.
    static func sizes(_ order: Order, carried: IBGateway.Fills) -> (
        total: Quantity, filled: Quantity, remaining: Quantity, average: Price?
    ) {
        let filled = carried.qty + order.filledQty
        let total = carried.qty + (order.qty ?? order.filledQty)
        let remaining = order.status.isOpen ? (order.leavesQty ?? .zero) : .zero
        let value = carried.value + order.filledValue
        let average = filled.isPositive ? value.divided(by: filled, places: 9, rule: .halfEven) : nil
        return (total, filled, remaining, average)
    }

    static func statusDescription(_ state: String) -> String {
        switch state {
        case "Filled": return "Order Filled"
        case "Cancelled": return "Order Cancelled"
        case "Inactive": return "Order Inactive"
        case "PreSubmitted": return "Order Submitted, waiting for the trigger or the session"
        default: return "Order Submitted"
        }
    }

    /// One execution of `/iserver/account/trades` (and of the WebSocket's `str`).
    static func trade(
        _ fill: Fill, at time: Timestamp, commission: FixedDecimal, order: Order?, number: Int, ib: String,
        entry: DirectoryEntry?
    ) -> JSONValue {
        let conid = entry.map { IBConid.conid($0.instrument) } ?? IBConid.optionConid(fill.symbol) ?? 0
        let verb = fill.side == .buy ? "Bought" : "Sold"
        let venue = entry.map { IBMarketFields.listingExchange($0.instrument) } ?? ""
        let net = fill.side == .buy ? fill.value + commission : fill.value - commission
        return .object([
            "execution_id": .string(IBOrderNumber.execution(fill.executionID)), "symbol": .string(fill.symbol),
            "supports_tax_opt": .string("1"), "side": .string(fill.side == .buy ? "B" : "S"),
            "order_description": .string(
                "\(verb) \(fill.qty.formatted(minimumPlaces: 0)) @ \(fill.price.formatted(minimumPlaces: 2)) on \(venue)"
            ),
            "trade_time": .string(tradeTime(time)), "trade_time_r": millis(time), "size": exact(fill.qty),
            "price": .string(fill.price.description), "order_ref": .string(order?.clientOrderID.text ?? ""),
            "submitter": .string(ib), "exchange": .string(venue),
            "commission": .string(commission.formatted(places: 2)),
            "net_amount": money(net), "account": .string(ib), "accountCode": .string(ib),
            "account_allocation_name": .string(ib), "company_name": .string(entry?.name ?? fill.symbol),
            "contract_description_1": .string(fill.symbol), "sec_type": .string("STK"),
            "listing_exchange": .string(venue),
            "conid": .string(String(conid)), "conidEx": .string(String(conid)), "clearing_id": .string("IB"),
            "clearing_name": .string("IB"), "liquidation_trade": .string("0"), "is_event_trading": .string("0"),
            "order_id": .int(number),
        ])
    }
}
