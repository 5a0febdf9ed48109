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

    /// A stock's conid, or an option contract's (`IBOptionConid`) when the symbol is an OCC symbol.
    static func conid(symbol: String, market: Market) -> Int? {
        if OptionContract.multiplier(ofSymbol: symbol) != nil { return optionConid(symbol) }
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
        if instrument.kind == .forex { return forex[instrument.symbol] ?? 0 }
        return conid(symbol: instrument.symbol, market: instrument.market) ?? 0
    }

    /// The currency pairs' conids are IB's own (`EUR.USD` is 12087792 in every IB client's code), not encoded from
    /// the symbol: clients hard-code them. (IB's values; they sit far from the encoded symbols they could be
    /// mistaken for — `IBConidTests` checks that no listed symbol encodes to one.)
    static let forex: [String: Int] = [
        "EUR.USD": 12_087_792, "GBP.USD": 12_087_797, "AUD.USD": 14_433_401, "NZD.USD": 39_453_441,
        "USD.JPY": 15_016_059, "USD.CHF": 12_087_820, "USD.CAD": 15_016_062, "USD.SEK": 37_893_486,
        "USD.NOK": 37_971_206, "USD.CNH": 113_342_317,
    ]
    static let forexSymbols = Dictionary(uniqueKeysWithValues: forex.map { ($0.value, $0.key) })

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

    /// An option contract's conid from its OCC symbol (nil for any other symbol).
    static func optionConid(_ symbol: String) -> Int? {
        guard OptionContract.multiplier(ofSymbol: symbol) != nil else { return nil }
        return OptionContract(occSymbol: symbol).flatMap(IBOptionConid.conid)
    }

    /// The instrument a conid given as text names: a listed stock of that market, or an option contract of an
    /// optionable underlying (whether it is listed is the order's to find out).
    static func instrument(_ text: String, market: MarketView) -> Instrument? {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        if let contract = IBOptionConid.contract(number) { return market.instrument(contract.occSymbol) }
        return entry(text, in: market.directory)?.instrument
    }

    /// The directory entry of a conid given as text, when it names a listed instrument of that market.
    static func entry(_ text: String, in directory: SymbolDirectory) -> DirectoryEntry? {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        if let pair = forexSymbols[number] { return directory.entry(pair) }
        guard let (symbol, market) = decode(number),
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

/// Conids of option contracts. A stock's conid (`IBConid`) stays below 2⁵⁰; an option's is 2⁵⁰ plus the contract
/// written in mixed radix — root (1–5 letters, bijective base 26), expiration (weekdays since 2024-01-01, through
/// 2068), right, strike in half dollars (below $12,000) — so it reads back to the contract without a table, is the
/// same on every node and after restarts, and stays below 2⁵³, an integer JSON carries exactly.
enum IBOptionConid {
    static let base: Int = 1 << 50
    static let firstMonday = CivilDate(2024, 1, 1)
    static let weekdays = 11_480
    static let halfDollars = 24_000

    static func conid(_ contract: OptionContract) -> Int? {
        let letters = Array(contract.root.utf8)
        guard (1...5).contains(letters.count) else { return nil }
        var root = 0
        for byte in letters {
            guard byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") else { return nil }
            root = root * 26 + Int(byte - UInt8(ascii: "A")) + 1
        }
        let days = contract.expiration.daysSinceEpoch - firstMonday.daysSinceEpoch
        let weekday = days % 7
        guard days >= 0, weekday < 5 else { return nil }
        let day = days / 7 * 5 + weekday
        let half = FixedDecimal(units: 5, exponent: 1)
        guard day < weekdays, contract.strike.isMultiple(of: half),
            let units = contract.strike.divided(by: half)?.integerPart, units > 0, units < halfDollars
        else { return nil }
        return base + ((root * weekdays + day) * 2 + (contract.right == .put ? 1 : 0)) * halfDollars + units
    }

    /// The contract a conid encodes (nil for a stock's conid or a number no contract encodes to); the caller checks
    /// that it is listed.
    static func contract(_ conid: Int) -> OptionContract? {
        guard conid > base, conid < 1 << 53 else { return nil }
        var value = conid - base
        let units = value % halfDollars
        value /= halfDollars
        let right: OptionRight = value % 2 == 1 ? .put : .call
        value /= 2
        let day = value % weekdays
        var root = value / weekdays
        var bytes: [UInt8] = []
        while root > 0 {
            bytes.append(UInt8(ascii: "A") + UInt8((root - 1) % 26))
            root = (root - 1) / 26
        }
        guard (1...5).contains(bytes.count), units > 0 else { return nil }
        let symbol = String(decoding: bytes.reversed(), as: UTF8.self)
        let expiration = firstMonday.adding(days: day / 5 * 7 + day % 5)
        return OptionContract(
            underlying: symbol, expiration: expiration, right: right,
            strike: FixedDecimal(units: units * 5, exponent: 1))
    }
}
