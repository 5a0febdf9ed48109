import Foundation
import MarketData
import NIOCore
import TradingCore

/// MessagePack, as Alpaca's market-data stream speaks it (alpaca-py speaks nothing else there).
/// Values are written from `MessagePack.Value`; timestamps use the Timestamp extension (type −1).
enum MessagePack {
    indirect enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case int(Int64)
        /// Wire-format floats: market-data prices are float64 on Alpaca's stream (an edge conversion of exact
        /// decimals, done only here).
        case double(Double)
        case string(String)
        case array([Value])
        case map([(String, Value)])
        case timestamp(Timestamp)

        static func == (lhs: Value, rhs: Value) -> Bool {
            var a = ByteBuffer(), b = ByteBuffer()
            MessagePack.write(lhs, to: &a)
            MessagePack.write(rhs, to: &b)
            return a == b
        }

        /// An exact decimal as the float64 the wire carries.
        static func price(_ d: FixedDecimal) -> Value { .double(Double(d.description) ?? 0) }

        subscript(key: String) -> Value? {
            if case .map(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
            return nil
        }

        var string: String? { if case .string(let s) = self { return s } else { return nil } }
        var strings: [String]? {
            guard case .array(let items) = self else { return nil }
            return items.compactMap(\.string)
        }
    }

    struct DecodeError: Error, CustomStringConvertible {
        var description: String
    }

    static func encode(_ value: Value) -> ByteBuffer {
        var buffer = ByteBuffer()
        write(value, to: &buffer)
        return buffer
    }

    /// An array of values encoded already (a stream round encodes each message once and sends it to many): the same
    /// bytes as `encode(.array(values))`.
    static func array(ofEncoded items: [ByteBuffer]) -> ByteBuffer {
        var b = ByteBuffer()
        b.reserveCapacity(5 + items.reduce(0) { $0 + $1.readableBytes })
        writeArrayHeader(items.count, to: &b)
        for item in items { b.writeImmutableBuffer(item) }
        return b
    }

    static func writeArrayHeader(_ count: Int, to b: inout ByteBuffer) {
        if count < 16 {
            b.writeInteger(UInt8(0x90 | count))
        } else if count < 65_536 {
            b.writeInteger(UInt8(0xDC))
            b.writeInteger(UInt16(count))
        } else {
            b.writeInteger(UInt8(0xDD))
            b.writeInteger(UInt32(count))
        }
    }

    static func write(_ value: Value, to b: inout ByteBuffer) {
        switch value {
        case .null: b.writeInteger(UInt8(0xC0))
        case .bool(let v): b.writeInteger(UInt8(v ? 0xC3 : 0xC2))
        case .int(let v):
            if v >= 0 && v < 128 {
                b.writeInteger(UInt8(v))
            } else if v < 0 && v >= -32 {
                b.writeInteger(Int8(v))
            } else {
                b.writeInteger(UInt8(0xD3))
                b.writeInteger(v)
            }
        case .double(let v):
            b.writeInteger(UInt8(0xCB))
            b.writeInteger(v.bitPattern)
        case .string(let s):
            let bytes = Array(s.utf8)
            if bytes.count < 32 {
                b.writeInteger(UInt8(0xA0 | bytes.count))
            } else if bytes.count < 256 {
                b.writeInteger(UInt8(0xD9))
                b.writeInteger(UInt8(bytes.count))
            } else if bytes.count < 65_536 {
                b.writeInteger(UInt8(0xDA))
                b.writeInteger(UInt16(bytes.count))
            } else {
                b.writeInteger(UInt8(0xDB))
                b.writeInteger(UInt32(bytes.count))
            }
            b.writeBytes(bytes)
        case .array(let items):
            writeArrayHeader(items.count, to: &b)
            for item in items { write(item, to: &b) }
        case .map(let pairs):
            if pairs.count < 16 {
                b.writeInteger(UInt8(0x80 | pairs.count))
            } else {
                b.writeInteger(UInt8(0xDE))
                b.writeInteger(UInt16(pairs.count))
            }
            for (k, v) in pairs {
                write(.string(k), to: &b)
                write(v, to: &b)
            }
        case .timestamp(let t):
            // timestamp 96: ext 8, length 12, type −1, nanoseconds (u32) then seconds (i64).
            let seconds = t.seconds
            let nanos = UInt32(t.nanoseconds - seconds * 1_000_000_000)
            b.writeInteger(UInt8(0xC7))
            b.writeInteger(UInt8(12))
            b.writeInteger(Int8(-1))
            b.writeInteger(nanos)
            b.writeInteger(seconds)
        }
    }

    /// Decodes one value (what clients send: maps of strings, arrays and booleans; numbers and timestamps too).
    static func decode(_ buffer: ByteBuffer) throws -> Value {
        var b = buffer
        let value = try read(&b, depth: 0)
        return value
    }

    /// Extension values: timestamps (type −1, 4, 8 or 12 bytes); other types are refused.
    static func ext(_ b: inout ByteBuffer, length: Int) throws -> Value {
        guard let type: Int8 = b.readInteger(), b.readableBytes >= length else {
            throw DecodeError(description: "truncated extension")
        }
        guard type == -1 else { throw DecodeError(description: "unsupported extension type \(type)") }
        switch length {
        case 4:
            let seconds: UInt32 = b.readInteger() ?? 0
            return .timestamp(Timestamp(seconds: Int64(seconds)))
        case 8:
            let data: UInt64 = b.readInteger() ?? 0
            return .timestamp(Timestamp(nanoseconds: Int64(data & 0x3_FFFF_FFFF) * 1_000_000_000 + Int64(data >> 34)))
        case 12:
            let nanos: UInt32 = b.readInteger() ?? 0
            let seconds: Int64 = b.readInteger() ?? 0
            return .timestamp(Timestamp(nanoseconds: seconds * 1_000_000_000 + Int64(nanos)))
        default:
            throw DecodeError(description: "timestamp of \(length) bytes")
        }
    }

    static func read(_ b: inout ByteBuffer, depth: Int) throws -> Value {
        guard depth < 64 else { throw DecodeError(description: "nested too deeply") }
        guard let tag: UInt8 = b.readInteger() else { throw DecodeError(description: "truncated") }
        func string(_ count: Int) throws -> Value {
            guard let s = b.readString(length: count) else { throw DecodeError(description: "truncated string") }
            return .string(s)
        }
        func array(_ count: Int) throws -> Value {
            guard count <= b.readableBytes else { throw DecodeError(description: "array longer than the message") }
            return .array(try (0..<count).map { _ in try read(&b, depth: depth + 1) })
        }
        func map(_ count: Int) throws -> Value {
            guard count <= b.readableBytes else { throw DecodeError(description: "map longer than the message") }
            var pairs: [(String, Value)] = []
            for _ in 0..<count {
                guard case .string(let key) = try read(&b, depth: depth + 1) else {
                    throw DecodeError(description: "map key is not a string")
                }
                pairs.append((key, try read(&b, depth: depth + 1)))
            }
            return .map(pairs)
        }
        func int<T: FixedWidthInteger>(_: T.Type) throws -> Value {
            guard let v: T = b.readInteger() else { throw DecodeError(description: "truncated integer") }
            return .int(Int64(truncatingIfNeeded: v))
        }
        switch tag {
        case 0x00...0x7F: return .int(Int64(tag))
        case 0xE0...0xFF: return .int(Int64(Int8(bitPattern: tag)))
        case 0x80...0x8F: return try map(Int(tag & 0x0F))
        case 0x90...0x9F: return try array(Int(tag & 0x0F))
        case 0xA0...0xBF: return try string(Int(tag & 0x1F))
        case 0xC0: return .null
        case 0xC2: return .bool(false)
        case 0xC3: return .bool(true)
        case 0xCA:
            guard let bits: UInt32 = b.readInteger() else { throw DecodeError(description: "truncated float") }
            return .double(Double(Float(bitPattern: bits)))
        case 0xCB:
            guard let bits: UInt64 = b.readInteger() else { throw DecodeError(description: "truncated double") }
            return .double(Double(bitPattern: bits))
        case 0xCC: return try int(UInt8.self)
        case 0xCD: return try int(UInt16.self)
        case 0xCE: return try int(UInt32.self)
        case 0xCF: return try int(UInt64.self)
        case 0xD0: return try int(Int8.self)
        case 0xD1: return try int(Int16.self)
        case 0xD2: return try int(Int32.self)
        case 0xD3: return try int(Int64.self)
        case 0xD9:
            guard let n: UInt8 = b.readInteger() else { break }
            return try string(Int(n))
        case 0xDA:
            guard let n: UInt16 = b.readInteger() else { break }
            return try string(Int(n))
        case 0xDB:
            guard let n: UInt32 = b.readInteger() else { break }
            return try string(Int(n))
        case 0xDC:
            guard let n: UInt16 = b.readInteger() else { break }
            return try array(Int(n))
        case 0xDD:
            guard let n: UInt32 = b.readInteger() else { break }
            return try array(Int(n))
        case 0xDE:
            guard let n: UInt16 = b.readInteger() else { break }
            return try map(Int(n))
        case 0xDF:
            guard let n: UInt32 = b.readInteger() else { break }
            return try map(Int(n))
        case 0xD4: return try ext(&b, length: 1)
        case 0xD5: return try ext(&b, length: 2)
        case 0xD6: return try ext(&b, length: 4)
        case 0xD7: return try ext(&b, length: 8)
        case 0xD8: return try ext(&b, length: 16)
        case 0xC7:
            guard let n: UInt8 = b.readInteger() else { break }
            return try ext(&b, length: Int(n))
        case 0xC8:
            guard let n: UInt16 = b.readInteger() else { break }
            return try ext(&b, length: Int(n))
        case 0xC9:
            guard let n: UInt32 = b.readInteger() else { break }
            return try ext(&b, length: Int(n))
        default: break
        }
        throw DecodeError(description: String(format: "unsupported MessagePack type 0x%02x", tag))
    }
}
