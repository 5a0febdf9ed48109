import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Corporate actions in Alpaca's two shapes, from the feed (the simulated market's schedule; providers that have
/// none answer none): the Trading API's announcements (`/v2/corporate_actions/announcements`) and the Market Data
/// API's corporate actions (`/v1/corporate-actions`). Only actions declared by now are shown. Without a symbol
/// every stock and ETF of the directory is searched.
struct CorporateActionsController {
    let market: MarketView

    func addRoutes(v2: RouterGroup<AppContext>, v1: RouterGroup<AppContext>) {
        v2.get("corporate_actions/announcements", use: announcements)
        v2.get("corporate_actions/announcements/{id}", use: announcement)
        v1.get("corporate-actions", use: marketData)
    }

    // MARK: Reading

    func date(_ request: Request, _ name: String) throws -> CivilDate? { try request.dateQuery(name) }

    func list(_ request: Request, _ name: String) -> [String]? {
        guard let text = request.query(name), !text.isEmpty else { return nil }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The actions of `symbols` (every stock and ETF when nil) with ex-dates in the window, declared by now.
    func actions(_ symbols: [String]?, from: CivilDate, through: CivilDate) async throws -> [CorporateAction] {
        let candidates =
            symbols?.map { $0.uppercased() }
            ?? market.directory.entries.filter { $0.instrument.kind == .stock || $0.instrument.kind == .etf }
            .map(\.symbol)
        var out: [CorporateAction] = []
        for symbol in candidates {
            guard market.directory.entry(symbol) != nil else {
                if symbols != nil { throw APIError.notFound("asset not found for \(symbol)") }
                continue
            }
            do throws(FeedError) {
                out += try await market.feed.corporateActions(symbol, from: from, through: through)
            } catch {
                throw APIError(feed: error)
            }
        }
        return out
    }

    // MARK: Trading API announcements

    static let types: [String: Set<CorporateAction.Kind>] = [
        "dividend": [.cashDividend, .stockDividend], "split": [.forwardSplit, .reverseSplit],
        "merger": [], "spinoff": [],
    ]

    /// `ca_types` (dividend, split, merger, spinoff; required), `since` and `until` (required, at most 90 days
    /// apart), `symbol`, `cusip` (none are known here), `date_type` (declaration_date, ex_date (the default),
    /// record_date, payable_date): which date the window applies to.
    @Sendable func announcements(_ request: Request, context: AppContext) async throws -> Response {
        guard let types = list(request, "ca_types") else { throw APIError.unprocessable("ca_types is required") }
        var kinds: Set<CorporateAction.Kind> = []
        for type in types {
            guard let set = Self.types[type.lowercased()] else {
                throw APIError.unprocessable("invalid ca_types \(type); expected dividend, merger, spinoff or split")
            }
            kinds.formUnion(set)
        }
        guard let since = try date(request, "since"), let until = try date(request, "until") else {
            throw APIError.unprocessable("since and until are required")
        }
        guard since <= until else { throw APIError.unprocessable("since must not be after until") }
        guard until.daysSinceEpoch - since.daysSinceEpoch <= 90 else {
            throw APIError.unprocessable("the range from since to until must not exceed 90 days")
        }
        let dateType = request.query("date_type") ?? "ex_date"
        let dateOf: (CorporateAction) -> CivilDate
        // The window is on one date; ex-dates lie within about a month of the others, so the search widens by that.
        switch dateType {
        case "ex_date": dateOf = \.exDate
        case "declaration_date": dateOf = \.declarationDate
        case "record_date": dateOf = \.recordDate
        case "payable_date": dateOf = \.payableDate
        default:
            throw APIError.unprocessable(
                "invalid date_type \(dateType); expected declaration_date, ex_date, record_date or payable_date")
        }
        if request.query("cusip") != nil { return JSONValue.array([]).response() }
        let symbol = request.query("symbol").map { [$0] }
        let found = try await actions(symbol, from: since.adding(days: -45), through: until.adding(days: 45))
            .filter { kinds.contains($0.kind) && dateOf($0) >= since && dateOf($0) <= until }
            .sorted { (dateOf($0), $0.symbol) < (dateOf($1), $1.symbol) }
        return JSONValue.array(found.map(Self.announcement)).response()
    }

    @Sendable func announcement(_ request: Request, context: AppContext) async throws -> Response {
        let text = try context.parameters.require("id")
        guard let id = Identifier(text), let key = Self.decode(id),
            let action = try? await actions([key.symbol], from: key.exDate, through: key.exDate)
                .first(where: { $0.kind == key.kind })
        else {
            throw APIError.notFound("corporate action announcement not found")
        }
        return Self.announcement(action).response()
    }

    static func announcement(_ a: CorporateAction) -> JSONValue {
        let (type, subType): (String, String) =
            switch a.kind {
            case .cashDividend: ("dividend", "cash")
            case .stockDividend: ("dividend", "stock")
            case .forwardSplit: ("split", "stock_split")
            case .reverseSplit: ("split", "reverse_split")
            }
        return .object([
            "id": .string(encode(a).description), "corporate_action_id": .string(a.id), "ca_type": .string(type),
            "ca_sub_type": .string(subType), "initiating_symbol": .string(a.symbol),
            "initiating_original_cusip": .string(""), "target_symbol": .string(a.symbol),
            "target_original_cusip": .string(""), "declaration_date": .string(a.declarationDate.description),
            "ex_date": .string(a.exDate.description), "record_date": .string(a.recordDate.description),
            "payable_date": .string(a.payableDate.description), "cash": .decimal(a.cash),
            "old_rate": .decimal(a.oldRate), "new_rate": .decimal(a.newRate),
        ])
    }

    // MARK: Announcement ids

    /// An announcement's UUID names its action (version 8, RFC 9562's custom layout): up to 12 ASCII characters of
    /// the symbol, the kind, and the ex-date as days since 2000-01-01, so `/announcements/{id}` needs no table.
    static func encode(_ a: CorporateAction) -> Identifier {
        var c = [UInt8](a.symbol.utf8.prefix(12))
        c += [UInt8](repeating: 0, count: 12 - c.count)
        let kind = UInt64(CorporateAction.Kind.allCases.firstIndex(of: a.kind) ?? 0)
        let days = UInt64(UInt16(clamping: a.exDate.daysSinceEpoch - epoch.daysSinceEpoch))
        var high: UInt64 = 0
        for byte in c[0..<6] { high = high << 8 | UInt64(byte) }
        high = high << 8 | (0x80 | kind)
        high = high << 8 | UInt64(c[6])
        var low: UInt64 = 0x80
        for byte in c[7..<12] { low = low << 8 | UInt64(byte) }
        low = low << 16 | days
        return Identifier(high: high, low: low)
    }

    static let epoch = CivilDate(2000, 1, 1)

    static func decode(_ id: Identifier) -> (symbol: String, kind: CorporateAction.Kind, exDate: CivilDate)? {
        let versionByte = UInt8(truncatingIfNeeded: id.high >> 8)
        guard versionByte >> 4 == 8, id.low >> 56 == 0x80 else { return nil }
        let kinds = CorporateAction.Kind.allCases
        let kind = Int(versionByte & 0x0F)
        guard kind < kinds.count else { return nil }
        var bytes: [UInt8] = (0..<6).map { UInt8(truncatingIfNeeded: id.high >> (56 - 8 * $0)) }
        bytes.append(UInt8(truncatingIfNeeded: id.high))
        bytes += (0..<5).map { UInt8(truncatingIfNeeded: id.low >> (48 - 8 * $0)) }
        let symbol = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        guard !symbol.isEmpty else { return nil }
        return (symbol, kinds[kind], epoch.adding(days: Int(id.low & 0xFFFF)))
    }

    // MARK: Market Data API

    static let dataTypes: [String: CorporateAction.Kind] = [
        "cash_dividend": .cashDividend, "stock_dividend": .stockDividend, "forward_split": .forwardSplit,
        "reverse_split": .reverseSplit,
    ]
    /// Types Alpaca has that the simulated market never makes: accepted, and empty.
    static let otherDataTypes: Set<String> = [
        "unit_split", "spin_off", "cash_merger", "stock_merger", "stock_and_cash_merger", "redemption", "name_change",
        "worthless_removal", "rights_distribution",
    ]

    /// `symbols`, `types`, `start` and `end` (ex-dates; both default to today), `limit` (1–1000, default 1000),
    /// `sort` (asc|desc), `page_token`; `ids` (announcement UUIDs) instead of the other filters.
    @Sendable func marketData(_ request: Request, context: AppContext) async throws -> Response {
        var kinds = Set(CorporateAction.Kind.allCases)
        if let types = list(request, "types") {
            kinds = []
            for type in types {
                if let kind = Self.dataTypes[type] {
                    kinds.insert(kind)
                } else if !Self.otherDataTypes.contains(type) {
                    throw APIError.unprocessable("invalid types \(type)")
                }
            }
        }
        let limit = try request.integerQuery("limit", in: 1...1000, default: 1000)
        let descending = try request.sortsDescending(default: false)
        var found: [CorporateAction]
        if let ids = list(request, "ids") {
            found = []
            for text in ids {
                guard let id = Identifier(text), let key = Self.decode(id) else { continue }
                found += try await actions([key.symbol], from: key.exDate, through: key.exDate).filter {
                    $0.kind == key.kind
                }
            }
        } else {
            let today = ExchangeTimeZone.newYork.localTime(of: market.clock.now()).date
            let start = try date(request, "start") ?? today
            let end = try date(request, "end") ?? today
            guard start <= end else { throw APIError.unprocessable("start must not be after end") }
            let symbols = list(request, "symbols")
            // Every stock of the directory over a long span is a lot of history: name symbols for more than a year.
            guard symbols != nil || end.daysSinceEpoch - start.daysSinceEpoch <= 366 else {
                throw APIError.unprocessable("without symbols, start and end may be at most 366 days apart")
            }
            found = try await actions(symbols, from: start, through: end)
        }
        found = found.filter { kinds.contains($0.kind) }
            .sorted { ($0.exDate, $0.symbol, $0.kind.rawValue) < ($1.exDate, $1.symbol, $1.kind.rawValue) }
        if descending { found.reverse() }
        let offset = try request.pageOffset(count: found.count)
        let page = found[offset..<min(found.count, offset + limit)]
        var groups: [String: [JSONValue]] = [:]
        for action in page { groups[action.kind.rawValue + "s", default: []].append(Self.dataItem(action)) }
        let next = offset + limit < found.count ? JSONValue.string(String(offset + limit)) : .null
        return JSONValue.object([
            "corporate_actions": .object(groups.mapValues { .array($0) }), "next_page_token": next,
        ]).response()
    }

    static func dataItem(_ a: CorporateAction) -> JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(encode(a).description), "symbol": .string(a.symbol),
            "ex_date": .string(a.exDate.description), "record_date": .string(a.recordDate.description),
            "payable_date": .string(a.payableDate.description),
        ]
        switch a.kind {
        case .cashDividend:
            o["cusip"] = .string("")
            o["rate"] = .number(a.cash.description)
            o["special"] = .bool(false)
            o["foreign"] = .bool(false)
            o["process_date"] = .string(a.payableDate.description)
        case .stockDividend:
            o["cusip"] = .string("")
            // Bonus shares per share held: 10送3 is 0.3.
            o["rate"] = .number(((a.newRate - a.oldRate).divided(by: a.oldRate, rule: .halfEven) ?? .zero).description)
            o["process_date"] = .string(a.exDate.description)
        case .forwardSplit:
            o["cusip"] = .string("")
            o["new_rate"] = .number(a.newRate.description)
            o["old_rate"] = .number(a.oldRate.description)
            o["process_date"] = .string(a.exDate.description)
        case .reverseSplit:
            o["old_cusip"] = .string("")
            o["new_cusip"] = .string("")
            o["new_rate"] = .number(a.newRate.description)
            o["old_rate"] = .number(a.oldRate.description)
            o["process_date"] = .string(a.exDate.description)
        }
        return .object(o)
    }
}
