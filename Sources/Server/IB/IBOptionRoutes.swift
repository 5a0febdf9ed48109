import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Options on the IB surface, as ibind walks a chain: the underlying's search result carries an OPT section with its
/// months, `secdef/strikes` lists a month's strikes, `secdef/info` the contracts (one per expiration in the month) of
/// a strike and right, and option conids (`IBOptionConid`) answer `contract/{conid}/info` and snapshots with the
/// option fields (greeks, implied volatility, open interest, option volume).
struct IBOptionRoutes {
    let gateway: IBGateway
    var market: MarketView { gateway.market }
    var options: OptionMarket { market.options }

    func addRoutes(to api: RouterGroup<AppContext>) {
        api.get("iserver/secdef/strikes", use: strikes)
    }

    static let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    /// The venues an option class trades on, as IB lists them.
    static let exchanges =
        "SMART;AMEX;BATS;BOX;CBOE;CBOE2;EDGX;EMERALD;GEMINI;IBUSOPT;ISE;MERCURY;MIAX;NASDAQOM;PEARL;PHLX;PSE"

    /// "DEC26" for December 2026.
    /// A date as IB writes expirations: "20261218".
    static func maturity(_ e: CivilDate) -> String {
        String(e.year) + (e.month < 10 ? "0" : "") + String(e.month) + (e.day < 10 ? "0" : "") + String(e.day)
    }

    static func month(_ date: CivilDate) -> String {
        months[date.month - 1] + String(date.year % 100 < 10 ? "0\(date.year % 100)" : "\(date.year % 100)")
    }

    /// The expirations listed today, and their months in order.
    func listing(_ optionClass: OptionClass) -> (expirations: [CivilDate], months: [String]) {
        let expirations = optionClass.expirations.listed(on: options.today())
        var months: [String] = []
        for e in expirations where months.last != Self.month(e) { months.append(Self.month(e)) }
        return (expirations, months)
    }

    /// The OPT section and `opt` field of an optionable underlying's search result (nil for one without options).
    func searchFields(_ entry: DirectoryEntry) -> (section: JSONValue, opt: JSONValue)? {
        guard let optionClass = options.optionClass(entry.symbol) else { return nil }
        let (expirations, months) = listing(optionClass)
        let dates = expirations.map(Self.maturity)
        return (
            .object([
                "secType": .string("OPT"), "months": .string(months.joined(separator: ";")),
                "exchange": .string(Self.exchanges),
            ]),
            .string(dates.joined(separator: ";"))
        )
    }

    /// The option class of an underlying's conid, with IB's refusal for anything else.
    func optionClass(_ conid: String?) throws -> OptionClass {
        guard let conid, !conid.isEmpty else { throw IBError(.badRequest, "conid is required") }
        guard let entry = IBConid.entry(conid, in: market.directory) else {
            throw IBError(.badRequest, "invalid conid \(conid): no such contract")
        }
        guard let optionClass = options.optionClass(entry.symbol) else {
            throw IBError(.badRequest, "\(entry.symbol) has no listed options")
        }
        return optionClass
    }

    func sectype(_ request: Request) throws {
        guard let text = request.query("sectype") ?? request.query("secType") else {
            throw IBError(.badRequest, "sectype is required")
        }
        guard text.uppercased() == "OPT" else { throw IBError(.badRequest, "sectype \(text) is not supported; OPT is") }
    }

    /// A listed month's chain: the contracts of today's chain expiring in `month` ("DEC26").
    func contracts(_ optionClass: OptionClass, month: String?) async throws -> [OptionContract] {
        guard let month, !month.isEmpty else { throw IBError(.badRequest, "month is required") }
        guard listing(optionClass).months.contains(month.uppercased()) else {
            throw IBError(.badRequest, "no \(optionClass.underlying) options expire in \(month)")
        }
        do {
            let chain = try await options.chain(optionClass.underlying)
            // (IB's option conids name standard contracts only.)
            return chain.contracts.filter { Self.month($0.expiration) == month.uppercased() && !$0.isAdjusted }
        } catch { throw IBError(.serviceUnavailable, "market data unavailable for \(optionClass.underlying)") }
    }

    /// `GET /iserver/secdef/strikes?conid=&sectype=OPT&month=DEC26[&exchange=SMART]` → `{"call": […], "put": […]}`.
    @Sendable func strikes(_ request: Request, context: AppContext) async throws -> Response {
        try sectype(request)
        let optionClass = try optionClass(request.query("conid"))
        let contracts = try await contracts(optionClass, month: request.query("month"))
        func strikes(_ right: OptionRight) -> JSONValue {
            .array(Set(contracts.filter { $0.right == right }.map(\.strike)).sorted().map { .number($0) })
        }
        return JSONValue.object(["call": strikes(.call), "put": strikes(.put)]).response()
    }

    /// IB's contract description of an option: `desc2` reads "DEC 18 '26 250 Call".
    static func info(_ contract: OptionContract, conid: Int) -> JSONValue {
        let e = contract.expiration
        let yy = e.year % 100 < 10 ? "0\(e.year % 100)" : "\(e.year % 100)"
        let day = e.day < 10 ? "0\(e.day)" : "\(e.day)"
        let date = maturity(e)
        return .object([
            "conid": .int(conid), "symbol": .string(contract.underlying), "secType": .string("OPT"),
            "exchange": .string("SMART"), "listingExchange": .null,
            "right": .string(contract.right == .call ? "C" : "P"),
            "strike": .number(contract.strike), "currency": .string("USD"), "cusip": .null,
            "coupon": .string("No Coupon"),
            "desc1": .string(contract.underlying),
            "desc2": .string(
                "\(months[e.month - 1]) \(day) '\(yy) \(contract.strike.description) \(contract.right == .call ? "Call" : "Put")"
            ),
            "maturityDate": .string(date), "multiplier": .string(String(contract.multiplier)),
            "tradingClass": .string(contract.root),
            "validExchanges": .string(exchanges.replacingOccurrences(of: ";", with: ",")),
        ])
    }

    /// `secdef/info` for options: the contracts of `month` at `strike` with `right` (C or P), one per expiration.
    func secdefInfo(_ request: Request) async throws -> Response {
        let optionClass = try optionClass(request.query("conid"))
        guard let strikeText = request.query("strike"), let strike = FixedDecimal(strikeText) else {
            throw IBError(.badRequest, "strike is required for options")
        }
        let right: OptionRight
        switch request.query("right")?.uppercased() {
        case "C", "CALL": right = .call
        case "P", "PUT": right = .put
        default: throw IBError(.badRequest, "right is required for options: C or P")
        }
        let found = try await contracts(optionClass, month: request.query("month")).filter {
            $0.right == right && $0.strike == strike
        }
        guard !found.isEmpty else {
            throw IBError(.badRequest, "no \(optionClass.underlying) \(right.rawValue) at \(strikeText) in that month")
        }
        return JSONValue.array(found.compactMap { c in IBOptionConid.conid(c).map { Self.info(c, conid: $0) } })
            .response()
    }

    /// The listed option contract a conid names, or nil when the conid is not an option's.
    func listed(_ conid: String?) async throws -> OptionContract? {
        guard let text = conid?.trimmingCharacters(in: .whitespaces), let number = Int(text),
            let contract = IBOptionConid.contract(number)
        else { return nil }
        guard await options.contract(contract.occSymbol) != nil else {
            throw IBError(.badRequest, "invalid conid \(text): no such contract")
        }
        return contract
    }

    /// `contract/{conid}/info` of an option.
    static func contractInfo(_ contract: OptionContract, conid: Int, underlying: Int) -> JSONValue {
        .object([
            "con_id": .int(conid), "symbol": .string(contract.underlying), "local_symbol": .string(contract.occSymbol),
            "company_name": .string(contract.name), "instrument_type": .string("OPT"), "currency": .string("USD"),
            "exchange": .string("SMART"),
            "valid_exchanges": .string(exchanges.replacingOccurrences(of: ";", with: ",")),
            "trading_class": .string(contract.root), "multiplier": .string(String(contract.multiplier)),
            "maturity_date": .string(maturity(contract.expiration)),
            "contract_month": .string(month(contract.expiration)), "underlying_con_id": .int(underlying),
            "strike": .number(contract.strike), "right": .string(contract.right == .call ? "C" : "P"),
            "r_t_h": .bool(true), "smart_available": .bool(true), "allow_sell_long": .bool(false),
            "is_zero_commission_security": .bool(false), "fullName": .string(contract.name), "text": .null,
        ])
    }

    /// A snapshot entry of an option conid: quote fields, greeks (7308–7311), implied volatility (7633, percent),
    /// open interest (7638), option volume (7089), right (201), mark (7635), underlying conid (6457), secType (6070).
    func snapshot(_ contract: OptionContract, conid: Int, fields: [String]) async throws -> JSONValue {
        let found: OptionSnapshot?
        do { found = try await options.snapshot(contract.occSymbol) } catch {
            throw IBError(.serviceUnavailable, "market data unavailable for \(contract.underlying)")
        }
        guard let s = found else { throw IBError(.badRequest, "invalid conid \(conid): no such contract") }
        func fixed(_ x: Double, _ places: Int) -> String { x.isFinite ? String(format: "%.\(places)f", x) : "" }
        let underlying = IBConid.conid(symbol: contract.underlying, market: .us) ?? 0
        let values: [String: String] = [
            "31": s.last?.formatted(places: 2) ?? "", "84": s.bid.formatted(places: 2),
            "86": s.ask.formatted(places: 2),
            "88": String(s.bidSize), "85": String(s.askSize), "87": String(s.volume), "7762": String(s.volume),
            "55": contract.underlying, "7051": contract.name, "201": contract.right == .call ? "C" : "P",
            "7308": fixed(s.greeks.delta, 4), "7309": fixed(s.greeks.gamma, 4), "7310": fixed(s.greeks.theta, 4),
            "7311": fixed(s.greeks.vega, 4), "7633": fixed(s.impliedVolatility * 100, 1) + "%",
            "7638": String(s.openInterest), "7089": String(s.volume), "7635": s.mid.formatted(places: 3),
            "6457": String(underlying), "6070": "OPT", "6008": String(conid), "7059": "1",
            "7094": "\(conid)@SMART", "6509": "RpB",
        ]
        var object: [String: JSONValue] = [
            "conid": .int(conid), "conidEx": .string(String(conid)),
            "_updated": .int(Int(market.clock.now().nanoseconds / 1_000_000)),
            "server_id": .string("q\(conid % 1000)"),
            "6119": .string("q\(conid % 1000)"),
        ]
        for (id, value) in values where (fields.isEmpty || fields.contains(id)) && !value.isEmpty {
            object[id] = .string(value)
        }
        return .object(object)
    }
}
