import TradingCore

/// Alpaca gives every option contract a UUID, and clients look contracts up by it. papertrade's are the contract
/// itself, written into a version-8 (custom) UUID: the root (six characters of six bits), the expiration (days since
/// 2000), call or put and the strike in thousandths — 80 bits — and 42 bits of a hash of them, so an id is stable on
/// every node and across restarts, needs no table of the millions of contracts that could be listed, and a random
/// UUID is not mistaken for one (one chance in 4 × 10¹²).
enum OptionContractID {
    static let epoch = CivilDate(2000, 1, 1).daysSinceEpoch

    /// Six bits per root character: 0 pads, 1–26 are A–Z, 27–36 are 0–9.
    static func code(_ byte: UInt8) -> UInt128? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt128(byte - UInt8(ascii: "A") + 1)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt128(byte - UInt8(ascii: "0") + 27)
        default: return nil
        }
    }

    static func character(_ code: UInt128) -> UInt8? {
        switch code {
        case 1...26: return UInt8(ascii: "A") + UInt8(code - 1)
        case 27...36: return UInt8(ascii: "0") + UInt8(code - 27)
        default: return nil
        }
    }

    static func checksum(_ payload: UInt128) -> UInt128 {
        var x = UInt64(truncatingIfNeeded: payload) ^ UInt64(truncatingIfNeeded: payload >> 64) &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 29)) &* 0x94D0_49BB_1331_11EB
        return UInt128(x ^ (x >> 32)) & ((1 << 42) - 1)
    }

    /// The id of a contract.
    static func id(_ contract: OptionContract) -> Identifier {
        var root: UInt128 = 0
        for byte in contract.root.utf8.prefix(6) { root = root << 6 | (code(byte) ?? 0) }
        root <<= 6 * UInt128(6 - min(contract.root.utf8.count, 6))
        let days = UInt128(max(contract.expiration.daysSinceEpoch - epoch, 0)) & 0xFFFF
        let strike = UInt128(max(contract.strike.raw / (FixedDecimal.one.raw / 1000), 0)) & ((1 << 27) - 1)
        let payload = root << 44 | days << 28 | (contract.right == .put ? 1 : 0) << 27 | strike
        let value = payload << 42 | checksum(payload)
        // 122 bits around the version nibble (8) and the RFC 4122 variant bits (10).
        let high =
            UInt64(truncatingIfNeeded: value >> 74) << 16 | 0x8000 | UInt64(truncatingIfNeeded: value >> 62) & 0xFFF
        let low = UInt64(truncatingIfNeeded: value) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return Identifier(high: high, low: low)
    }

    /// The contract an id names, or nil when it is not one of these ids. The caller still checks that the
    /// contract is listed.
    static func contract(_ id: Identifier) -> OptionContract? {
        guard id.high & 0xF000 == 0x8000, id.low >> 62 == 0b10 else { return nil }
        let value =
            UInt128(id.high >> 16) << 74 | UInt128(id.high & 0xFFF) << 62 | UInt128(id.low & 0x3FFF_FFFF_FFFF_FFFF)
        let payload = value >> 42
        guard value & ((1 << 42) - 1) == checksum(payload) else { return nil }
        var rootBytes: [UInt8] = []
        for n in (0..<6).reversed() {
            let code = payload >> (44 + 6 * UInt128(n)) & 0x3F
            if code == 0 { break }
            guard let byte = character(code) else { return nil }
            rootBytes.append(byte)
        }
        let root = String(decoding: rootBytes, as: UTF8.self)
        let days = Int(payload >> 28 & 0xFFFF)
        let right: OptionRight = payload >> 27 & 1 == 1 ? .put : .call
        let strike = Int(payload & ((1 << 27) - 1))
        return OptionContract(
            underlying: OptionContract.underlying(ofRoot: root), expiration: CivilDate(daysSinceEpoch: epoch + days),
            right: right, strike: FixedDecimal(units: strike, exponent: 3), root: root)
    }
}
