/// An instant: nanoseconds since 1970-01-01T00:00:00Z. The core never reads a clock; callers pass time in.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public init(seconds: Int64) { nanoseconds = seconds * 1_000_000_000 }

    /// The instant a wall-clock time happens in `zone`.
    public init(_ date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0, in zone: ExchangeTimeZone) {
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.init(seconds: local - Int64(zone.utcOffsetSeconds(forLocalSeconds: local)))
    }

    @inlinable public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static let distantPast = Timestamp(nanoseconds: .min)
    public static let distantFuture = Timestamp(nanoseconds: .max)

    public var seconds: Int64 { nanoseconds.floorDivided(by: 1_000_000_000) }

    @inlinable public func adding(nanoseconds delta: Int64) -> Timestamp { Timestamp(nanoseconds: nanoseconds + delta) }
    public func adding(seconds delta: Int64) -> Timestamp { Timestamp(nanoseconds: nanoseconds + delta * 1_000_000_000) }

    /// RFC 3339 in UTC with nanoseconds, e.g. "2026-11-20T14:30:00.000000001Z".
    public var description: String { rfc3339(in: .utc) }

    /// RFC 3339 with the zone's offset, e.g. "2022-04-29T09:30:00-04:00" (Alpaca's clock format).
    public func rfc3339(in zone: ExchangeTimeZone, fractionalDigits: Int = 9) -> String {
        let offset = zone.utcOffsetSeconds(forUTCSeconds: seconds)
        let local = seconds + Int64(offset)
        let date = CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400)))
        let secondOfDay = Int(local - Int64(date.daysSinceEpoch) * 86_400)
        var text = date.description + "T" + pad(secondOfDay / 3600) + ":" + pad(secondOfDay / 60 % 60) + ":" + pad(secondOfDay % 60)
        let nanos = nanoseconds - seconds * 1_000_000_000
        if fractionalDigits > 0 {
            var fraction = String(nanos)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            text += "." + fraction.prefix(fractionalDigits)
        }
        if offset == 0 && zone == .utc {
            text += "Z"
        } else {
            let sign = offset < 0 ? "-" : "+"
            let magnitude = abs(offset)
            text += sign + pad(magnitude / 3600) + ":" + pad(magnitude / 60 % 60)
        }
        return text
    }

    private func pad(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }
}

extension Int64 {
    @usableFromInline func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}

/// A length of time in nanoseconds.
public enum Duration64 {
    public static let second: Int64 = 1_000_000_000
    public static let minute: Int64 = 60 * second
    public static let hour: Int64 = 60 * minute
    public static let day: Int64 = 24 * hour
}

/// Stored as a bare integer of nanoseconds. Rows written before that (`{"nanoseconds": n}`) still decode.
extension Timestamp: Codable {
    private enum CodingKeys: String, CodingKey { case nanoseconds }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: CodingKeys.self), keyed.contains(.nanoseconds) {
            nanoseconds = try keyed.decode(Int64.self, forKey: .nanoseconds)
        } else {
            nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanoseconds)
    }
}
