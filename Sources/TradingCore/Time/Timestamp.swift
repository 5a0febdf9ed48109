/// An instant: nanoseconds since 1970-01-01T00:00:00Z. The core never reads a clock; callers pass time in.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// Seconds since the epoch; beyond what 64-bit nanoseconds hold (years 1677–2262) it saturates at
    /// `distantPast`/`distantFuture` rather than trapping.
    public init(seconds: Int64) {
        let (n, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        nanoseconds = overflow ? (seconds < 0 ? .min : .max) : n
    }

    /// The instant a wall-clock time happens in `zone`.
    public init(_ date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0, in zone: ExchangeTimeZone) {
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.init(seconds: local - Int64(zone.utcOffsetSeconds(forLocalSeconds: local)))
    }

    @inlinable public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static let distantPast = Timestamp(nanoseconds: .min)
    public static let distantFuture = Timestamp(nanoseconds: .max)

    public var seconds: Int64 { nanoseconds.floorDivided(by: 1_000_000_000) }

    /// This instant moved by `delta`. Time arithmetic is total: past the ends of what a Timestamp holds it saturates at
    /// `distantPast`/`distantFuture` (a duration or date from a request can never trap the process; the check costs
    /// what the trapping `+` did).
    @inlinable public func adding(nanoseconds delta: Int64) -> Timestamp {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(delta)
        return Timestamp(nanoseconds: overflow ? (delta < 0 ? .min : .max) : sum)
    }
    public func adding(seconds delta: Int64) -> Timestamp {
        let (n, overflow) = delta.multipliedReportingOverflow(by: 1_000_000_000)
        return adding(nanoseconds: overflow ? (delta < 0 ? .min : .max) : n)
    }

    /// RFC 3339 in UTC with nanoseconds, e.g. "2026-11-20T14:30:00.000000001Z".
    public var description: String { rfc3339(in: .utc) }

    /// RFC 3339 with the zone's offset, e.g. "2022-04-29T09:30:00-04:00" (Alpaca's clock format).
    public func rfc3339(in zone: ExchangeTimeZone, fractionalDigits: Int = 9) -> String {
        let text = RFC3339Text(self, zone: zone, fractionalDigits: fractionalDigits)
        guard text.isFast else { return text.slow() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.length)
        text.append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `rfc3339(in:fractionalDigits:)`'s UTF-8 bytes to `out`: every API answer carries several times,
    /// and its writers append them in place instead of making a `String` each.
    public func appendRFC3339(in zone: ExchangeTimeZone = .utc, fractionalDigits: Int = 9, to out: inout [UInt8]) {
        let text = RFC3339Text(self, zone: zone, fractionalDigits: fractionalDigits)
        guard text.isFast else { return out.append(contentsOf: text.slow().utf8) }
        text.append(to: &out)
    }
}

/// An instant's RFC 3339 text, worked out once and written into a string or a byte buffer.
struct RFC3339Text {
    let date: CivilDate
    let secondOfDay: Int
    let nanos: Int
    let digits: Int
    let offset: Int
    let utc: Bool

    init(_ t: Timestamp, zone: ExchangeTimeZone, fractionalDigits: Int) {
        offset = zone.utcOffsetSeconds(forUTCSeconds: t.seconds)
        let local = t.seconds + Int64(offset)
        date = CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400)))
        secondOfDay = Int(local - Int64(date.daysSinceEpoch) * 86_400)
        // The remainder, not `nanoseconds - seconds * 10⁹`: that product overflows for `distantPast`.
        let remainder = t.nanoseconds % 1_000_000_000
        nanos = Int(remainder < 0 ? remainder + 1_000_000_000 : remainder)
        digits = min(max(fractionalDigits, 0), 9)
        utc = offset == 0 && zone == .utc
    }

    /// Four-digit years (all but `distantPast`/`distantFuture`) are written directly.
    var isFast: Bool { (0...9999).contains(date.year) }
    var length: Int { 19 + (digits > 0 ? 1 + digits : 0) + (utc ? 1 : 6) }

    /// Appends `length` bytes.
    func append(to out: inout [UInt8]) {
        func put(_ value: Int, _ width: Int) {
            var scale = 1
            for _ in 1..<width { scale *= 10 }
            while scale > 0 {
                out.append(UInt8(truncatingIfNeeded: 48 + value / scale % 10))
                scale /= 10
            }
        }
        func put(_ byte: Unicode.Scalar) { out.append(UInt8(ascii: byte)) }
        put(date.year, 4)
        put("-")
        put(date.month, 2)
        put("-")
        put(date.day, 2)
        put("T")
        put(secondOfDay / 3600, 2)
        put(":")
        put(secondOfDay / 60 % 60, 2)
        put(":")
        put(secondOfDay % 60, 2)
        if digits > 0 {
            put(".")
            var scale = 1
            for _ in digits..<9 { scale *= 10 }
            put(nanos / scale, digits)
        }
        if utc {
            put("Z")
        } else {
            put(offset < 0 ? "-" : "+")
            put(abs(offset) / 3600, 2)
            put(":")
            put(abs(offset) / 60 % 60, 2)
        }
    }

    /// Years outside 0…9999.
    func slow() -> String {
        var text =
            date.description + "T" + pad(secondOfDay / 3600) + ":" + pad(secondOfDay / 60 % 60) + ":"
            + pad(secondOfDay % 60)
        if digits > 0 {
            let fraction = String(nanos)
            text += "." + (String(repeating: "0", count: 9 - fraction.count) + fraction).prefix(digits)
        }
        if utc { return text + "Z" }
        return text + (offset < 0 ? "-" : "+") + pad(abs(offset) / 3600) + ":" + pad(abs(offset) / 60 % 60)
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
