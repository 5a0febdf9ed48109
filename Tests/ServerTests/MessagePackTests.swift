import NIOCore
import Testing
import TradingCore

@testable import Server

@Suite("MessagePack")
struct MessagePackTests {
    @Test("round-trips maps, arrays, strings, integers, floats, booleans, nil and timestamps")
    func roundTrip() throws {
        let t = Timestamp(nanoseconds: 1_790_000_000_123_456_789)
        let value = MessagePack.Value.map([
            ("action", .string("subscribe")), ("quotes", .array([.string("AAPL"), .string("MSFT")])),
            ("n", .int(-5)), ("big", .int(1 << 40)), ("p", .double(150.25)), ("ok", .bool(true)), ("none", .null),
            ("t", .timestamp(t)), ("long", .string(String(repeating: "x", count: 300))),
        ])
        let decoded = try MessagePack.decode(MessagePack.encode(value))
        #expect(decoded["quotes"]?.strings == ["AAPL", "MSFT"])
        #expect(decoded["action"]?.string == "subscribe")
        #expect(decoded["long"]?.string?.count == 300)
        #expect(decoded["t"] == .timestamp(t))
        #expect(decoded["p"] == .double(150.25))
        #expect(decoded["big"] == .int(1 << 40))
        // The timestamp is the ext type −1 with 12 bytes: nanoseconds then seconds.
        let bytes = Array(MessagePack.encode(.timestamp(t)).readableBytesView)
        #expect(bytes.prefix(3) == [0xC7, 12, 0xFF])
    }

    @Test("truncated or hostile input is an error, not a crash")
    func malformed() {
        for bytes: [UInt8] in [
            [], [0x82, 0xA1], [0xDD, 0xFF, 0xFF, 0xFF, 0xFF], [0xC1], [0x91] + Array(repeating: 0x91, count: 100),
        ] {
            #expect(throws: (any Error).self) { try MessagePack.decode(ByteBuffer(bytes: bytes)) }
        }
    }
}
