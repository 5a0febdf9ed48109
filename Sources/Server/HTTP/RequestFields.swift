import Hummingbird
import JSON
import MarketData
import TradingCore

/// A JSON request body's fields, read with one set of rules by every surface: an absent or null field is nil; a
/// field of the wrong kind is a 422 that names it; with `allowed`, a field the operation does not take is a 422
/// too, so a typo never silently changes an order or a game.
struct BodyFields {
    let values: [String: JSONValue]
    /// Where these fields sit in the body, for messages ("take_profit." for a nested object).
    let path: String

    /// The body's fields. `allowed` lists the fields the operation takes; `unknownName` says what an unknown one
    /// is called in the message ("field", "rule").
    init(_ body: JSONValue, allowed: Set<String>? = nil, unknownName: String = "field", path: String = "") throws {
        guard case .object(let values) = body else {
            throw APIError.unprocessable(
                path.isEmpty ? "request body must be a JSON object" : "\(path) must be an object")
        }
        if let allowed, let unknown = values.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.unprocessable("unknown \(unknownName) \(unknown)")
        }
        self.values = values
        self.path = path
    }

    subscript(key: String) -> JSONValue? { values[key] }

    /// Whether the body has the field at all (null included): a PATCH tells "clear it" from "leave it".
    func contains(_ key: String) -> Bool { values[key] != nil }

    private func present(_ key: String) -> JSONValue? {
        guard let value = values[key], !value.isNull else { return nil }
        return value
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// A nested object's fields, or nil when absent or null.
    func object(_ key: String, allowed: Set<String>? = nil, unknownName: String = "field") throws -> BodyFields? {
        guard let value = present(key) else { return nil }
        return try BodyFields(value, allowed: allowed, unknownName: unknownName, path: name(key))
    }

    /// An array of objects' fields (`legs[0]`, `legs[1]`, … in messages), or nil when absent or null.
    func objects(_ key: String, allowed: Set<String>? = nil) throws -> [BodyFields]? {
        guard let value = present(key) else { return nil }
        guard case .array(let items) = value else { throw APIError.unprocessable("\(name(key)) must be an array") }
        return try items.enumerated().map { k, item in
            try BodyFields(item, allowed: allowed, path: "\(name(key))[\(k)]")
        }
    }

    /// An exact decimal from a JSON number (alpaca-py sends numbers) or a decimal string (browsers and most
    /// clients): never through a binary float.
    func decimal(_ key: String) throws -> FixedDecimal? {
        guard let value = present(key) else { return nil }
        switch value {
        case .number(let text), .string(let text):
            do { return try FixedDecimal(parsing: text) } catch {
                throw APIError.unprocessable("invalid \(name(key)) \(text): \(error.description)")
            }
        default: throw APIError.unprocessable("\(name(key)) must be a number or a decimal string")
        }
    }

    func string(_ key: String) throws -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.string else { throw APIError.unprocessable("\(name(key)) must be a string") }
        return text
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.bool else { throw APIError.unprocessable("\(name(key)) must be true or false") }
        return flag
    }

    /// A whole number given as a JSON number.
    func int(_ key: String) throws -> Int? {
        guard let value = present(key) else { return nil }
        guard case .number = value, let n = value.int else {
            throw APIError.unprocessable("\(name(key)) must be a whole number")
        }
        return n
    }

    /// An RFC 3339 time.
    func time(_ key: String) throws -> Timestamp? {
        guard let value = present(key) else { return nil }
        guard let text = value.string, let t = RFC3339.parse(text) else {
            throw APIError.unprocessable("\(name(key)) must be an RFC 3339 time such as 2026-12-01T14:30:00Z")
        }
        return t
    }

    /// One of an enumeration's raw values, in any letter case; the message lists the values allowed.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text.lowercased()) else {
            let allowed = T.allCases.map(\.rawValue).filter { !$0.isEmpty }.joined(separator: ", ")
            throw APIError.unprocessable("invalid \(name(key)) \"\(text)\"; expected one of \(allowed)")
        }
        return value
    }

    /// A field the operation cannot do without.
    func required<T>(_ key: String, _ read: (String) throws -> T?) throws -> T {
        guard let value = try read(key) else { throw APIError.unprocessable("\(name(key)) is required") }
        return value
    }
}

extension Request {
    /// An integer query parameter within `range` (`value` when absent); anything else is a 422 naming it.
    func integerQuery(_ name: String, in range: ClosedRange<Int>, default value: Int) throws -> Int {
        guard let text = query(name) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw APIError.unprocessable("\(name) must be \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// A time query parameter: RFC 3339, or a date (YYYY-MM-DD) meaning midnight in `zone`; 422 otherwise.
    func timeQuery(_ name: String, zone: ExchangeTimeZone) throws -> Timestamp? {
        guard let text = query(name) else { return nil }
        if let t = RFC3339.parse(text) { return t }
        if let d = CivilDate(text) { return Timestamp(d, in: zone) }
        throw APIError.unprocessable("invalid \(name) \(text); expected RFC 3339 or YYYY-MM-DD")
    }

    /// A date query parameter, YYYY-MM-DD — or, `timeAllowed`, an RFC 3339 time counted by its date, as Alpaca takes
    /// either where only the day matters; a 422 naming it otherwise. Every surface's one date reader.
    func dateQuery(_ name: String, timeAllowed: Bool = false) throws -> CivilDate? {
        guard let text = query(name) else { return nil }
        guard let date = CivilDate(timeAllowed ? String(text.prefix(10)) : text), timeAllowed || text.count == 10 else {
            throw APIError.unprocessable("invalid \(name) \(text): \(name) must be a date (YYYY-MM-DD)")
        }
        return date
    }

    /// A boolean query parameter: true/false or 1/0 in any letter case (alpaca-py sends "True"); else a 422.
    func boolQuery(_ name: String) throws -> Bool? {
        guard let text = query(name) else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw APIError.unprocessable("invalid \(name) \(text); expected true or false")
        }
    }

    /// A decimal query parameter, read exactly; a 422 naming it otherwise.
    func decimalQuery(_ name: String) throws -> FixedDecimal? {
        guard let text = query(name) else { return nil }
        guard let value = FixedDecimal(text) else { throw APIError.unprocessable("invalid \(name) \(text)") }
        return value
    }

    /// `sort`: asc or desc, in any letter case; `descending` when absent.
    func sortsDescending(default descending: Bool) throws -> Bool {
        switch query("sort")?.lowercased() {
        case nil: return descending
        case "asc": return false
        case "desc": return true
        case let other?: throw APIError.unprocessable("invalid sort \(other); expected asc or desc")
        }
    }

    /// A `page_token` that is an offset into a list of `count` items (0 when absent).
    func pageOffset(count: Int) throws -> Int {
        guard let token = query("page_token") else { return 0 }
        guard let n = Int(token), n >= 0, n <= count else {
            throw APIError.unprocessable("invalid page_token \(token)")
        }
        return n
    }
}
