import Foundation
import NIOCore

/// Just enough of the two wire formats to find each market message's type and server stamp: Alpaca's MessagePack
/// (an array of maps with `T` and `t`) and the app's JSON text (`"type":"quote"` … `"time":"…"`). Written here, apart
/// from the server's encoder, so the benchmark also reads what the server sends as an outside client would.
enum Wire {
    /// Nanoseconds since 1970 on the wall clock (the server on the same machine stamps with the same clock).
    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// An Alpaca stream message's type (`T`), its stamp (`t`, nanoseconds) and, for errors, its text.
    struct Message {
        var type = ""
        var stamp: Int64?
        var text = ""
    }

    /// The messages of one MessagePack frame (an array of maps); nil when it is not one.
    static func messages(_ frame: ByteBuffer) -> [Message]? {
        var reader = MessagePackReader(buffer: frame)
        guard let count = reader.arrayCount() else { return nil }
        var out: [Message] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            guard let fields = reader.mapCount() else { return nil }
            var message = Message()
            for _ in 0..<fields {
                guard let key = reader.string() else { return nil }
                switch key {
                case "T": message.type = reader.string() ?? ""
                case "t": message.stamp = reader.timestamp()
                case "msg": message.text = reader.string() ?? ""
                default: guard reader.skip() else { return nil }
                }
            }
            out.append(message)
        }
        return out
    }

    /// The stamps of an app-socket quote message (`{"type":"quote"}`, or a second's `{"type":"quotes"}` batch): each
    /// quote's `"time":"2026-12-05T05:19:47.123456789Z"`; none for other messages.
    static func appQuoteStamps(_ text: ByteBuffer) -> [Int64] {
        text.withUnsafeReadableBytes { bytes -> [Int64] in
            guard find(quoteType, in: bytes, from: 0) != nil else { return [] }
            var stamps: [Int64] = []
            var at = 0
            while let found = find(timeKey, in: bytes, from: at) {
                if let stamp = rfc3339(bytes, from: found + timeKey.count) { stamps.append(stamp) }
                at = found + timeKey.count
            }
            return stamps
        }
    }
    /// (Both `"type":"quote"` and `"type":"quotes"` begin so.)
    static let quoteType = Array(#""type":"quote"#.utf8)
    static let timeKey = Array(#""time":""#.utf8)

    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = start
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0] {
                var k = 1
                while k < needle.count, bytes[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// YYYY-MM-DDTHH:MM:SS[.fraction]Z at `i`, as nanoseconds since 1970.
    static func rfc3339(_ b: UnsafeRawBufferPointer, from i: Int) -> Int64? {
        func number(_ at: Int, _ digits: Int) -> Int64? {
            guard at + digits <= b.count else { return nil }
            var n: Int64 = 0
            for k in at..<(at + digits) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                n = n * 10 + Int64(b[k] - 48)
            }
            return n
        }
        guard let year = number(i, 4), let month = number(i + 5, 2), let day = number(i + 8, 2),
            let hour = number(i + 11, 2), let minute = number(i + 14, 2), let second = number(i + 17, 2)
        else { return nil }
        var nanos: Int64 = 0
        var k = i + 19
        if k < b.count, b[k] == UInt8(ascii: ".") {
            var scale: Int64 = 100_000_000
            k += 1
            while k < b.count, b[k] >= 48, b[k] <= 57 {
                nanos += Int64(b[k] - 48) * scale
                scale /= 10
                k += 1
            }
        }
        // Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60_000_000_000 + second * 1_000_000_000 + nanos
    }
}

/// Reads MessagePack values one at a time, skipping what is not asked for.
struct MessagePackReader {
    var buffer: ByteBuffer

    mutating func byte() -> UInt8? { buffer.readInteger(as: UInt8.self) }

    mutating func arrayCount() -> Int? {
        guard let b = byte() else { return nil }
        switch b {
        case 0x90...0x9F: return Int(b & 0x0F)
        case 0xDC: return buffer.readInteger(as: UInt16.self).map(Int.init)
        case 0xDD: return buffer.readInteger(as: UInt32.self).map(Int.init)
        default: return nil
        }
    }

    mutating func mapCount() -> Int? {
        guard let b = byte() else { return nil }
        switch b {
        case 0x80...0x8F: return Int(b & 0x0F)
        case 0xDE: return buffer.readInteger(as: UInt16.self).map(Int.init)
        case 0xDF: return buffer.readInteger(as: UInt32.self).map(Int.init)
        default: return nil
        }
    }

    mutating func string() -> String? {
        guard let b = byte() else { return nil }
        let length: Int?
        switch b {
        case 0xA0...0xBF: length = Int(b & 0x1F)
        case 0xD9: length = byte().map(Int.init)
        case 0xDA: length = buffer.readInteger(as: UInt16.self).map(Int.init)
        case 0xDB: length = buffer.readInteger(as: UInt32.self).map(Int.init)
        default: return nil
        }
        return length.flatMap { buffer.readString(length: $0) }
    }

    /// The Timestamp extension (type −1) in its three sizes, as nanoseconds since 1970.
    mutating func timestamp() -> Int64? {
        guard let b = byte() else { return nil }
        switch b {
        case 0xD6:
            guard byte() == 0xFF, let seconds = buffer.readInteger(as: UInt32.self) else { return nil }
            return Int64(seconds) * 1_000_000_000
        case 0xD7:
            guard byte() == 0xFF, let packed = buffer.readInteger(as: UInt64.self) else { return nil }
            return Int64(packed & 0x3_FFFF_FFFF) * 1_000_000_000 + Int64(packed >> 34)
        case 0xC7:
            guard byte() == 12, byte() == 0xFF, let nanos = buffer.readInteger(as: UInt32.self),
                let seconds = buffer.readInteger(as: Int64.self)
            else { return nil }
            return seconds * 1_000_000_000 + Int64(nanos)
        default: return nil
        }
    }

    /// Skips one value of any kind; false when the frame ends first or holds an unknown type.
    mutating func skip() -> Bool {
        guard let b = byte() else { return false }
        func drop(_ n: Int) -> Bool {
            guard buffer.readableBytes >= n else { return false }
            buffer.moveReaderIndex(forwardBy: n)
            return true
        }
        func length(_ size: Int) -> Int? {
            switch size {
            case 1: return byte().map(Int.init)
            case 2: return buffer.readInteger(as: UInt16.self).map(Int.init)
            default: return buffer.readInteger(as: UInt32.self).map(Int.init)
            }
        }
        func items(_ n: Int?) -> Bool {
            guard let n else { return false }
            for _ in 0..<n where !skip() { return false }
            return true
        }
        switch b {
        case 0x00...0x7F, 0xE0...0xFF, 0xC0, 0xC2, 0xC3: return true
        case 0x80...0x8F: return items(Int(b & 0x0F) * 2)
        case 0x90...0x9F: return items(Int(b & 0x0F))
        case 0xA0...0xBF: return drop(Int(b & 0x1F))
        case 0xCC, 0xD0: return drop(1)
        case 0xCD, 0xD1: return drop(2)
        case 0xCA, 0xCE, 0xD2: return drop(4)
        case 0xCB, 0xCF, 0xD3: return drop(8)
        case 0xD9, 0xC4: return length(1).map(drop) ?? false
        case 0xDA, 0xC5: return length(2).map(drop) ?? false
        case 0xDB, 0xC6: return length(4).map(drop) ?? false
        case 0xDC: return items(length(2))
        case 0xDD: return items(length(4))
        case 0xDE: return items(length(2).map { $0 * 2 })
        case 0xDF: return items(length(4).map { $0 * 2 })
        case 0xD4: return drop(2)
        case 0xD5: return drop(3)
        case 0xD6: return drop(5)
        case 0xD7: return drop(9)
        case 0xD8: return drop(17)
        case 0xC7: return length(1).map { drop($0 + 1) } ?? false
        case 0xC8: return length(2).map { drop($0 + 1) } ?? false
        case 0xC9: return length(4).map { drop($0 + 1) } ?? false
        default: return false
        }
    }
}
