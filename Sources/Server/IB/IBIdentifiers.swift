import Brokerage
import MarketData
import Synchronization
import TradingCore

/// The integer contract id ("conid") IB clients know an instrument by. It is a pure function of the market and the
/// symbol, so it is the same in every process, after restarts, and for symbols added to the directory later; and it
/// reads back to the symbol without a table:
///
///     conid = bijective base-43 value of the symbol (digits 1…43 for A–Z, 0–9, ". - $ / + ^ =") × 2 + market (0 US, 1 CN)
///
/// Bijective numerals have no zero digit, so "A" and "AA" never share a value. Symbols of up to 9 characters keep every
/// conid below 2⁵³, inside the integers JSON (and JavaScript) carry exactly.
enum IBConid {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-$/+^=".utf8)

    static func conid(symbol: String, market: Market) -> Int? {
        let bytes = Array(symbol.utf8)
        guard (1...9).contains(bytes.count) else { return nil }
        var value = 0
        for byte in bytes {
            guard let digit = alphabet.firstIndex(of: byte) else { return nil }
            value = value * alphabet.count + digit + 1
        }
        return value * 2 + (market == .cn ? 1 : 0)
    }

    static func conid(_ instrument: Instrument) -> Int {
        conid(symbol: instrument.symbol, market: instrument.market) ?? 0
    }

    /// The symbol and market a conid stands for (nil for a number no symbol encodes to).
    static func decode(_ conid: Int) -> (symbol: String, market: Market)? {
        guard conid > 1 else { return nil }
        let market: Market = conid % 2 == 1 ? .cn : .us
        var value = conid / 2
        var bytes: [UInt8] = []
        while value > 0 {
            let digit = (value - 1) % alphabet.count
            bytes.append(alphabet[digit])
            value = (value - 1) / alphabet.count
        }
        guard !bytes.isEmpty else { return nil }
        return (String(decoding: bytes.reversed(), as: UTF8.self), market)
    }

    /// The directory entry of a conid given as text, when it names a listed instrument of that market.
    static func entry(_ text: String, in directory: SymbolDirectory) -> DirectoryEntry? {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), let (symbol, market) = decode(number),
            let entry = directory.entry(symbol), entry.instrument.market == market
        else { return nil }
        return entry
    }
}

/// IB account ids for papertrade accounts: "DU" (IB's prefix for paper accounts) and the last seven digits of the
/// account's number (itself taken from the account's id), so an account has the same IB id everywhere, always.
enum IBAccountID {
    static func make(_ account: AccountID) -> String {
        let digits = String(account.high % 10_000_000)
        return "DU" + String(repeating: "0", count: 7 - digits.count) + digits
    }
}

/// IB order ids are integers; papertrade's are UUIDs (time-ordered, so their leading bits are alike). An order's
/// IB id is 30 bits of a mix of all 128 — the same number whenever and wherever the order is shown. The gateway remembers the numbers it has handed out
/// and, for one it has not seen (after a restart), looks through the account's orders.
enum IBOrderNumber {
    static func make(_ id: OrderID) -> Int {
        var x = id.high ^ (id.low &* 0x9E37_79B9_7F4A_7C15)
        x ^= x >> 31
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 29
        return Int(x >> 34) + 1
    }

    /// Execution ids in IB's style ("0000e0d5.6575e0c1.01.01"), from the fill's id.
    static func execution(_ id: ExecutionID) -> String {
        format8(id.high & 0xFFFF_FFFF) + "." + format8(id.low & 0xFFFF_FFFF) + ".01.01"
    }

    static func format8(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 8 - text.count)) + text
    }
}
