import Foundation

/// An exact decimal as the server writes it: a JSON string ("321.58"), parsed digit for digit into `Decimal`
/// (never through `Double`). Wrapped properties read as plain `Decimal`.
@propertyWrapper
public struct ExactDecimal: Codable, Hashable, Sendable {
    public var wrappedValue: Decimal

    public init(wrappedValue: Decimal) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try Self.decode(from: decoder.singleValueContainer(), decoder: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.text(wrappedValue))
    }

    /// The server's text for an amount ("0.5", "-643.16", "100000").
    public static func text(_ value: Decimal) -> String {
        var value = value
        return NSDecimalString(&value, Self.posix)
    }

    /// An amount the server accepts: a string of digits with an optional sign and point.
    public static func parse(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") })
        else { return nil }
        return Decimal(string: trimmed, locale: posix)
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    static func decode(from container: any SingleValueDecodingContainer, decoder: any Decoder) throws -> Decimal {
        if let text = try? container.decode(String.self), let value = parse(text) { return value }
        if let whole = try? container.decode(Int.self) { return Decimal(whole) }
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "expected a decimal amount as a string"))
    }
}

/// `ExactDecimal` for a field the server may write as null or leave out.
@propertyWrapper
public struct OptionalExactDecimal: Codable, Hashable, Sendable {
    public var wrappedValue: Decimal?

    public init(wrappedValue: Decimal?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try ExactDecimal.decode(from: container, decoder: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(ExactDecimal.text(wrappedValue)) } else { try container.encodeNil() }
    }
}

/// An instant as the server writes it: RFC 3339 with up to nine fractional digits ("2026-11-26T19:21:36.390990761Z")
/// or with an offset ("2026-11-27T09:30:00-05:00"). Wrapped properties read as `Date`.
@propertyWrapper
public struct ServerTime: Codable, Hashable, Sendable {
    public var wrappedValue: Date

    public init(wrappedValue: Date) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected an RFC 3339 time, got \(text)"))
        }
        wrappedValue = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.text(wrappedValue))
    }

    /// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)". Foundation's ISO 8601 parser stops at milliseconds on some
    /// platforms, so the fraction is read here.
    public static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= chars.count else { return nil }
            var value = 0
            for c in chars[from..<(from + count)] {
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        guard chars.count >= 20, let year = number(0, 4), chars[4] == 45, let month = number(5, 2), chars[7] == 45,
            let day = number(8, 2), chars[10] == 84 || chars[10] == 116, let hour = number(11, 2), chars[13] == 58,
            let minute = number(14, 2), chars[16] == 58, let second = number(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < chars.count, chars[index] == 46 {
            index += 1
            var scale = 0.1
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 {
                fraction += Double(chars[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        guard index < chars.count else { return nil }
        switch chars[index] {
        case 90, 122: index += 1
        case 43, 45:
            guard let h = number(index + 1, 2), chars.count > index + 3, chars[index + 3] == 58,
                let m = number(index + 4, 2)
            else { return nil }
            offset = (h * 3600 + m * 60) * (chars[index] == 45 ? -1 : 1)
            index += 6
        default: return nil
        }
        guard index == chars.count else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        guard let base = utcCalendar.date(from: components) else { return nil }
        return base.addingTimeInterval(fraction - Double(offset))
    }

    /// RFC 3339 UTC with microseconds (what a `Date` holds exactly enough to round-trip).
    public static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let micros = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded())
        let whole = Date(timeIntervalSince1970: seconds + (micros == 1_000_000 ? 1 : 0))
        let c = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        func pad(_ v: Int?, _ width: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):"
            + "\(pad(c.second, 2)).\(pad(micros % 1_000_000, 6))Z"
    }

    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}

/// `ServerTime` for a field the server may write as null or leave out.
@propertyWrapper
public struct OptionalServerTime: Codable, Hashable, Sendable {
    public var wrappedValue: Date?

    public init(wrappedValue: Date?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try ServerTime(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(ServerTime.text(wrappedValue)) } else { try container.encodeNil() }
    }
}

// A wrapped optional whose key is absent decodes as nil (the synthesized decoder would otherwise demand the key).
extension KeyedDecodingContainer {
    public func decode(_ type: OptionalExactDecimal.Type, forKey key: Key) throws -> OptionalExactDecimal {
        try decodeIfPresent(type, forKey: key) ?? OptionalExactDecimal(wrappedValue: nil)
    }

    public func decode(_ type: OptionalServerTime.Type, forKey key: Key) throws -> OptionalServerTime {
        try decodeIfPresent(type, forKey: key) ?? OptionalServerTime(wrappedValue: nil)
    }
}

/// A value the server names by a string that may grow (an order status, a side): known values are constants, an
/// unknown one still decodes and round-trips, so a newer server never breaks an older app.
public protocol OpenEnumeration: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String {
    init(rawValue: String)
}

extension OpenEnumeration {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }
}

/// The coders the kit reads and writes the server's JSON with: models encode back to the server's own shapes
/// (snake_case keys, amounts as exact strings), so an app can cache them or print them as the API gave them.
public enum PapertradeJSON {
    public static func decoder() -> JSONDecoder { JSONDecoder() }

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
