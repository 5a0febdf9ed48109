import JSON
import MarketData
import TradingCore

/// One order of a Client Portal `POST /iserver/account/{acct}/orders` body, read exactly (numbers keep their text)
/// and turned into the brokerage's `OrderRequest`.
///
/// IB's fields: `conid` (or `conidex` "265598@SMART"), `side` BUY/SELL, `quantity`, `orderType` MKT, LMT, STP,
/// STOP_LIMIT (also "STP LMT"), TRAIL; `price` (the limit price; the stop price of a STP), `auxPrice` (the stop price
/// of a STOP_LIMIT), `trailingAmt` + `trailingType` ("amt" or "%"), `tif` DAY/GTC/IOC/OPG/FOK, `cOID`,
/// `outsideRTH`, `cashQty` (a buy for an amount of money).
///
/// A combo (IB's "BAG": a spread of option contracts of one underlying, one order) has no `conid` and a `conidex` of
/// `"28812380;;;{conid}/{ratio},{conid}/{ratio}"` — IB's USD spread conid, then each leg's contract and its ratio,
/// negative for a leg sold. Selling the combo sells what it buys and buys what it sells; its `price` is the net per
/// unit (negative: a credit). It becomes Alpaca's multi-leg (`mleg`) order.
struct IBOrderTicket: Sendable, Equatable {
    /// A stock, or an option contract (its conid is `IBOptionConid`'s); a combo's first leg.
    var instrument: Instrument
    /// A combo's legs as bought (`side` BUY) — each sold leg's side is `.sell`; nil for one contract.
    var combo: [OrderRequest.OptionLeg]?
    var side: OrderSide
    var type: OrderType
    var quantity: Quantity
    var cashQuantity: FixedDecimal?
    var limitPrice: Price?
    var stopPrice: Price?
    var trailAmount: FixedDecimal?
    var trailPercent: FixedDecimal?
    var timeInForce: TimeInForce
    var clientOrderID: String?
    var outsideRTH: Bool
    /// How an order on a currency pair gave its size when not as a quantity of the base currency (nil otherwise):
    /// `sized(at:)` works it into one with the pair's quote before the order is placed.
    var forexSize: ForexSize?

    /// The sizes of an order on a currency pair other than its `quantity` of the base currency.
    enum ForexSize: Sendable, Equatable {
        /// A conversion (`isCcyConv`) of this much of the currency it pays with (`fxQty`).
        case convertFrom(FixedDecimal)
        /// A conversion (`isCcyConv`) into this much of the currency it receives (`quantity`).
        case convertTo(FixedDecimal)
        /// This much of the quote currency (`cashQty`).
        case cash(FixedDecimal)
    }

    var currency: String { instrument.currency.rawValue }
    /// Whether the order is sized by an amount of money (`cashQty`, a conversion's `fxQty`): IB asks two more questions.
    var expressedInMoney: Bool {
        switch forexSize {
        case .cash, .convertFrom: true
        case .convertTo: false
        case nil: cashQuantity != nil
        }
    }
    var symbol: String { instrument.symbol }

    /// IB's spread conid for combos in US dollars.
    static let usdSpreadConid = 28_812_380

    static let knownFields: Set<String> = [
        "conid", "conidex", "side", "quantity", "orderType", "price", "auxPrice", "trailingAmt", "trailingType", "tif",
        "cOID", "outsideRTH", "cashQty", "acctId", "ticker", "secType", "listingExchange", "isSingleGroup",
        "manualIndicator", "referrer", "useAdaptive", "isCcyConv", "allocationMethod", "extOperator", "strategy",
        "parentId", "isClose", "deactivated", "fxQty", "customerAccount", "isProCustomer", "manualOrderTime",
    ]

    /// "BUY 100 AAPL NASDAQ.NMS @ 189.50" — how IB names an order in its questions ("BUY 1 AAPL Dec18'26 250 Call
    /// SMART @ 5.20" for an option).
    var description: String {
        let venue =
            instrument.kind == .option
            ? "SMART"
            : instrument.market == .us && instrument.kind != .forex
                ? "NASDAQ.NMS" : IBMarketFields.listingExchange(instrument)
        var name = instrument.option.map(IBOrderTicket.optionName) ?? instrument.symbol
        if let combo {
            name = combo.map { leg in
                let contract = OptionContract(occSymbol: leg.symbol)
                return
                    "\(leg.side == .buy ? "+" : "-")\(leg.ratio) \(contract.map(IBOrderTicket.optionName) ?? leg.symbol)"
            }.joined(separator: ", ")
        }
        var text = "\(side == .buy ? "BUY" : "SELL") \(quantity.formatted(minimumPlaces: 0)) \(name) \(venue)"
        if let limitPrice { text += " @ \(limitPrice.formatted(minimumPlaces: 2))" }
        if type == .stop || type == .stopLimit, let stopPrice {
            text += " STP \(stopPrice.formatted(minimumPlaces: 2))"
        }
        return text
    }

    /// IB's local name of a contract: "AAPL Dec18'26 250 Call".
    static func optionName(_ c: OptionContract) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = c.expiration.day < 10 ? "0\(c.expiration.day)" : "\(c.expiration.day)"
        let year = c.expiration.year % 100
        return "\(c.underlying) \(months[c.expiration.month - 1])\(day)'\(year < 10 ? "0" : "")\(year) "
            + "\(c.strike.formatted(minimumPlaces: 0)) \(c.right == .call ? "Call" : "Put")"
    }

    /// Reads one order; `instrument` finds what a conid (as text) names (`IBConid.instrument`).
    init(_ json: JSONValue, instrument find: (String) -> Instrument?) throws(IBError) {
        guard let o = json.object else { throw IBError(.badRequest, "each order must be a JSON object") }
        if let unknown = o.keys.filter({ !Self.knownFields.contains($0) }).sorted().first {
            throw IBError(.badRequest, "unknown order field \(unknown)")
        }
        var conidText = o["conid"].flatMap { $0.int.map(String.init) ?? $0.string }
        let conidex = o["conidex"]?.string
        if let conidex, conidex.contains(";;;"), conidText == nil {
            let (first, legs) = try Self.combo(conidex, instrument: find)
            instrument = first
            combo = legs
        } else {
            if conidText == nil, let conidex {
                conidText = String(conidex.split(separator: "@").first ?? "")
            }
            guard let conidText else { throw IBError(.badRequest, "conid is required") }
            guard let instrument = find(conidText) else {
                throw IBError(.badRequest, "invalid conid \(conidText): no such contract")
            }
            self.instrument = instrument
        }
        switch o["side"]?.string?.uppercased() {
        case "BUY": side = .buy
        case "SELL": side = .sell
        default: throw IBError(.badRequest, "side must be BUY or SELL")
        }
        let orderType = (o["orderType"]?.string ?? "").uppercased()
        if combo != nil, orderType != "MKT", orderType != "LMT" {
            throw IBError(.badRequest, "a combo order is MKT or LMT")
        }
        switch orderType {
        case "MKT": type = .market
        case "LMT": type = .limit
        case "STP": type = .stop
        case "STOP_LIMIT", "STP LMT", "STP_LMT": type = .stopLimit
        case "TRAIL": type = .trailingStop
        case "": throw IBError(.badRequest, "orderType is required")
        default:
            throw IBError(
                .badRequest, "orderType \(orderType) is not supported; use MKT, LMT, STP, STOP_LIMIT or TRAIL")
        }
        func decimal(_ key: String) throws(IBError) -> FixedDecimal? {
            guard let value = o[key], !value.isNull else { return nil }
            guard let number = value.decimal else { throw IBError(.badRequest, "\(key) must be a number") }
            return number
        }
        cashQuantity = try decimal("cashQty")
        let conversion = o["isCcyConv"]?.bool ?? false
        let fxQuantity = try decimal("fxQty")
        if instrument.kind == .forex {
            forexSize = try Self.forexSize(
                conversion: conversion, fxQuantity: fxQuantity, quantity: try decimal("quantity"),
                cashQuantity: cashQuantity)
        } else if conversion || fxQuantity != nil {
            throw IBError(.badRequest, "isCcyConv and fxQty apply to currency pairs (secType CASH) only")
        }
        if combo != nil, cashQuantity != nil || o["auxPrice"].map({ !$0.isNull }) == true {
            throw IBError(
                .badRequest,
                "a combo order takes quantity (units of the combo) and price (the net), not cashQty or auxPrice")
        }
        if forexSize != nil {
            quantity = .zero
        } else if let cash = cashQuantity {
            guard cash.isPositive, side == .buy, type == .market else {
                throw IBError(.badRequest, "cashQty must be positive and is accepted on market buy orders only")
            }
            quantity = .zero
        } else {
            guard let q = try decimal("quantity"), q.isPositive else {
                throw IBError(.badRequest, "quantity must be a positive number")
            }
            quantity = q
        }
        let price = try decimal("price")
        let aux = try decimal("auxPrice")
        switch type {
        case .limit:
            guard let price else { throw IBError(.badRequest, "price is required for LMT orders") }
            limitPrice = price
        case .stop:
            guard let stop = aux ?? price else { throw IBError(.badRequest, "price is required for STP orders") }
            stopPrice = stop
        case .stopLimit:
            guard let price, let aux else {
                throw IBError(.badRequest, "STOP_LIMIT orders need price (the limit) and auxPrice (the stop)")
            }
            limitPrice = price
            stopPrice = aux
        case .trailingStop:
            guard let amount = try decimal("trailingAmt"), amount.isPositive else {
                throw IBError(.badRequest, "trailingAmt must be a positive number for TRAIL orders")
            }
            switch (o["trailingType"]?.string ?? "amt").lowercased() {
            case "amt": trailAmount = amount
            case "%": trailPercent = amount
            default: throw IBError(.badRequest, "trailingType must be amt or %")
            }
        case .market: break
        }
        switch (o["tif"]?.string ?? "DAY").uppercased() {
        case "DAY": timeInForce = .day
        case "GTC": timeInForce = .gtc
        case "IOC": timeInForce = .ioc
        case "FOK": timeInForce = .fok
        case "OPG": timeInForce = .opg
        case let other: throw IBError(.badRequest, "tif \(other) is not supported; use DAY, GTC, IOC, FOK or OPG")
        }
        if let value = o["cOID"], !value.isNull {
            guard let text = value.string, !text.isEmpty, text.count <= 128 else {
                throw IBError(.badRequest, "cOID must be a string of 1 to 128 characters")
            }
            clientOrderID = text
        }
        outsideRTH = o["outsideRTH"]?.bool ?? false
    }

    /// A combo's `conidex` read: its legs (2 to 4 option contracts) as bought, and the first leg's instrument.
    static func combo(_ conidex: String, instrument find: (String) -> Instrument?) throws(IBError) -> (
        Instrument, [OrderRequest.OptionLeg]
    ) {
        let parts = conidex.components(separatedBy: ";;;")
        guard parts.count == 2, Int(parts[0]) == usdSpreadConid else {
            throw IBError(
                .badRequest,
                "conidex \(conidex) is not a combo papertrade knows: write \(usdSpreadConid);;;{conid}/{ratio},{conid}/{ratio} (US dollar spreads of option contracts)"
            )
        }
        var first: Instrument?
        var legs: [OrderRequest.OptionLeg] = []
        for item in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "/", omittingEmptySubsequences: false)
            guard pair.count == 2, let ratio = Int(pair[1].trimmingCharacters(in: .whitespaces)), ratio != 0,
                (-1000...1000).contains(ratio)
            else {
                throw IBError(
                    .badRequest,
                    "each combo leg is {conid}/{ratio}, a whole ratio from -1000 to 1000 but not 0: \(item)")
            }
            guard let instrument = find(String(pair[0])), instrument.option != nil else {
                throw IBError(.badRequest, "combo leg \(pair[0]) is not an option contract")
            }
            first = first ?? instrument
            legs.append(.init(symbol: instrument.symbol, ratio: abs(ratio), side: ratio > 0 ? .buy : .sell))
        }
        guard let first, (2...4).contains(legs.count) else {
            throw IBError(.badRequest, "a combo has 2 to 4 legs")
        }
        return (first, legs)
    }

    /// Reads how an order on a pair is sized: `quantity` of the base currency; or a conversion (`isCcyConv`) of
    /// `fxQty` of the currency paid or into `quantity` of the currency received, never both; or `cashQty` of the
    /// quote currency.
    static func forexSize(
        conversion: Bool, fxQuantity: FixedDecimal?, quantity: FixedDecimal?, cashQuantity: FixedDecimal?
    ) throws(IBError) -> ForexSize? {
        if let fxQuantity {
            guard conversion else {
                throw IBError(.badRequest, "fxQty is the amount of a currency conversion: set isCcyConv true with it")
            }
            guard quantity == nil, cashQuantity == nil else {
                throw IBError(
                    .badRequest,
                    "give fxQty (the amount to convert from) or quantity (the amount to convert to), never both")
            }
            guard fxQuantity.isPositive else { throw IBError(.badRequest, "fxQty must be a positive number") }
            return .convertFrom(fxQuantity)
        } else if let cash = cashQuantity {
            guard quantity == nil else { throw IBError(.badRequest, "give cashQty or quantity, not both") }
            guard cash.isPositive, !conversion else {
                throw IBError(
                    .badRequest, "cashQty must be positive; a conversion (isCcyConv) gives fxQty or quantity instead")
            }
            return .cash(cash)
        } else if conversion, let quantity, quantity.isPositive {
            return .convertTo(quantity)
        }
        return nil
    }

    /// The order with its size worked into a quantity of the pair's base currency at the quote it would trade at
    /// (the limit, else the ask for a purchase and the bid for a sale), rounded down to the base currency's minor
    /// unit. Itself when it gave a quantity.
    func sized(bid: Price?, ask: Price?) throws(IBError) -> IBOrderTicket {
        guard let size = forexSize, let pair = instrument.currencyPair else { return self }
        let price = limitPrice ?? (side == .buy ? ask : bid)
        let places = pair.base.minorUnitDigits
        func base(_ quote: FixedDecimal) throws(IBError) -> Quantity {
            guard let price, price.isPositive else {
                throw IBError(.badRequest, "no quote for \(symbol) yet: give quantity, or a limit price")
            }
            return quote.divided(by: price, places: places, rule: .down) ?? .zero
        }
        var sized = self
        switch size {
        case .cash(let amount): sized.quantity = try base(amount)
        // Buying the pair pays its quote currency and receives its base; selling the reverse.
        case .convertFrom(let amount): sized.quantity = side == .buy ? try base(amount) : amount
        case .convertTo(let amount): sized.quantity = side == .buy ? amount : try base(amount)
        }
        sized.quantity = sized.quantity.rounded(places: places, rule: .down)
        sized.cashQuantity = nil
        guard sized.quantity.isPositive else {
            throw IBError(.badRequest, "the amount is too small: it converts to no \(pair.base.rawValue)")
        }
        return sized
    }

    var request: OrderRequest {
        if let combo {
            // Selling a combo turns every leg around, and its price is then what it brings in.
            let legs = combo.map { leg in
                var leg = leg
                if side == .sell { leg.side = leg.side == .buy ? .sell : .buy }
                return leg
            }
            var request = OrderRequest(
                symbol: "", side: .buy, type: type, timeInForce: timeInForce, qty: quantity,
                limitPrice: limitPrice.map { side == .buy ? $0 : -$0 },
                clientOrderID: clientOrderID.map { ClientOrderID($0) }, orderClass: .mleg)
            request.legs = legs
            return request
        }
        return OrderRequest(
            symbol: instrument.symbol, side: side, type: type, timeInForce: timeInForce,
            qty: cashQuantity == nil ? quantity : nil, notional: cashQuantity, limitPrice: limitPrice,
            stopPrice: stopPrice, trailPrice: trailAmount, trailPercent: trailPercent, extendedHours: outsideRTH,
            clientOrderID: clientOrderID.map { ClientOrderID($0) })
    }
}
