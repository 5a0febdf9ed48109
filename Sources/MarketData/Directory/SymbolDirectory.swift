import Foundation
import TradingCore

/// One instrument of the directory, with the reference facts the apps show.
public struct DirectoryEntry: Sendable, Hashable {
    public var instrument: Instrument
    /// GICS sector and sub-industry (S&P 500 members), empty when unknown.
    public var sector: String
    public var industry: String
    /// SEC Central Index Key (US), empty when unknown.
    public var cik: String
    public var roundLot: Int
    /// The name Chinese-language brokers and media use for a US company (苹果 for AAPL), empty when there is none;
    /// search finds it, so a Chinese user can type 苹果. A-shares' own names are Chinese already.
    public var chineseName: String = ""
    /// Other spellings search finds an A-share by, never shown: its name in pinyin and the pinyin's initials
    /// ("guizhoumaotai gzmt"), and the English name its company goes by abroad (Kweichow Moutai) where it has one.
    public var aliases: String = ""

    public var symbol: String { instrument.symbol }
    public var name: String { instrument.name }

    /// Whether the listing is a warrant, a right or a SPAC's unit rather than a company's shares (set when the
    /// directory loads, by `SymbolDirectory.isWarrantRightOrUnit`). These trade, but nothing reports earnings on
    /// them and they are priced like the small claims they are.
    public var isWarrantRightOrUnit = false
}

/// A search hit: what autocomplete shows (the native API returns {symbol, name, exchange, market}).
public struct SearchResult: Sendable, Hashable {
    public var symbol: String
    public var name: String
    public var exchange: Exchange
    public var market: Market
    public var kind: InstrumentKind
}

/// Every instrument papertrade knows, with search by ticker or company name (Chinese names included).
///
/// Search is a single pass over a flat byte buffer of lower-cased symbols and names, ranking exact ticker first,
/// then ticker prefix, name prefix, name-word prefix, ticker substring and name substring; ties go to primary
/// listings, index members, shorter tickers. It answers in well under a millisecond over ~22,000 entries
/// (`MarketDataBench` prints the figure).
public final class SymbolDirectory: Sendable {
    public let entries: [DirectoryEntry]
    private let bySymbol: [String: Int]
    private let index: SearchIndex
    /// The currency pairs (a few of ~22,000 entries, kept apart so nothing scans for them).
    public let currencyPairs: [DirectoryEntry]

    public enum LoadError: Error, CustomStringConvertible {
        case missingResource
        case malformedLine(Int, String)

        public var description: String {
            switch self {
            case .missingResource: return "symbols.tsv is missing from the MarketData bundle"
            case .malformedLine(let n, let line): return "symbols.tsv line \(n) is malformed: \(line.prefix(80))"
            }
        }
    }

    /// The directory shipped with papertrade (Resources/symbols.tsv, with the Chinese names of Resources/names-zh.tsv
    /// and the A-shares' other spellings of names-pinyin.tsv and names-en.tsv).
    public static func bundled() throws -> SymbolDirectory {
        func resource(_ name: String) throws -> String {
            guard let url = Bundle.module.url(forResource: name, withExtension: "tsv") else {
                throw LoadError.missingResource
            }
            return String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return try SymbolDirectory(
            tsv: try resource("symbols"), chineseNames: try resource("names-zh"),
            aliases: [try resource("names-pinyin"), try resource("names-en")],
            cryptoPairs: try resource("crypto-pairs"), forexPairs: try resource("forex-pairs"))
    }

    /// Currency pairs from a TSV (a header line, then `symbol, name, Chinese name, tick`, as
    /// Resources/forex-pairs.tsv): each a `forexPair` instrument, found by search under its currencies' codes and
    /// names in both languages.
    static func forexEntries(_ tsv: String) throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        for (n, line) in tsv.split(separator: "\n", omittingEmptySubsequences: true).enumerated() where n > 0 {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 4, let tick = FixedDecimal(f[3]),
                let instrument = Instrument.forexPair(f[0], name: f[1], tick: tick)
            else { throw LoadError.malformedLine(n + 1, String(line)) }
            let plain = f[0].replacingOccurrences(of: ".", with: "")
            entries.append(
                DirectoryEntry(
                    instrument: instrument, sector: "", industry: "", cik: "", roundLot: 1, chineseName: f[2],
                    aliases: [f[0], plain, f[0].replacingOccurrences(of: ".", with: "/")].joined(separator: " ")))
        }
        return entries
    }

    /// Crypto pairs from a TSV (a header line, then `symbol, name, Chinese name, min_order_size,
    /// min_trade_increment, price_increment`, as Resources/crypto-pairs.tsv): each a `cryptoPair` instrument with
    /// its Chinese name, found by search under its coin's ticker, name and Chinese name.
    static func cryptoEntries(_ tsv: String) throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        for (n, line) in tsv.split(separator: "\n", omittingEmptySubsequences: true).enumerated() where n > 0 {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 6, f[0].contains("/"), let minimum = FixedDecimal(f[3]),
                let increment = FixedDecimal(f[4]), let priceIncrement = FixedDecimal(f[5]), minimum.isPositive,
                increment.isPositive, priceIncrement.isPositive
            else { throw LoadError.malformedLine(n + 1, String(line)) }
            let instrument = Instrument.cryptoPair(
                f[0], name: f[1], minimumOrder: minimum, increment: increment, priceIncrement: priceIncrement)
            entries.append(
                DirectoryEntry(
                    instrument: instrument, sector: "", industry: "", cik: "", roundLot: 1,
                    chineseName: f[2] == f[1] ? "" : f[2],
                    aliases: f[0] + " " + f[0].replacingOccurrences(of: "/", with: "")))
        }
        return entries
    }

    /// Parses the TSV written by scripts/build-symbol-directory.py (a header line, then one instrument a line), and
    /// optionally a `symbol<TAB>Chinese name` TSV (with a header line) of US companies' Chinese names and `aliases`,
    /// TSVs (with a header line) of `symbol<TAB>spelling…` that search also finds a symbol by.
    public convenience init(
        tsv: String, chineseNames: String = "", aliases: [String] = [], cryptoPairs: String = "",
        forexPairs: String = ""
    ) throws {
        var chinese: [String: String] = [:]
        for (_, f) in Self.rows(chineseNames) where f.count == 2 && !f[0].isEmpty && !f[1].isEmpty {
            chinese[f[0]] = f[1]
        }
        var spellings: [String: String] = [:]
        for table in aliases {
            for (_, row) in Self.rows(table) {
                let f = row.filter { !$0.isEmpty }
                guard f.count >= 2 else { continue }
                let words = f.dropFirst().joined(separator: " ")
                spellings[f[0], default: ""] += spellings[f[0]] == nil ? words : " " + words
            }
        }
        var entries: [DirectoryEntry] = []
        entries.reserveCapacity(24_000)
        for (n, f) in Self.rows(tsv) {
            guard f.count >= 9, !f[0].isEmpty, let exchange = Exchange(rawValue: f[2]) else {
                throw LoadError.malformedLine(n, f.joined(separator: "\t"))
            }
            let kind: InstrumentKind = f[3] == "etf" ? .etf : .stock
            let instrument: Instrument?
            if exchange.market == .cn {
                instrument = Instrument.aShare(f[0], name: f[1], listingDate: CivilDate(f[7]))
            } else {
                instrument = .usEquity(f[0], name: f[1], exchange: exchange, kind: kind, fractionable: exchange != .otc)
            }
            // Codes the A-share rules do not cover (e.g. 201xxx B shares) are skipped rather than guessed.
            guard let instrument else { continue }
            entries.append(
                DirectoryEntry(
                    instrument: instrument, sector: f[5], industry: f[6], cik: f[8],
                    roundLot: Int(f[4]) ?? 100, chineseName: chinese[f[0]] ?? "", aliases: spellings[f[0]] ?? ""))
        }
        let symbols = Set(entries.map(\.symbol))
        for i in entries.indices where Self.isWarrantRightOrUnit(entries[i], symbols: symbols) {
            entries[i].isWarrantRightOrUnit = true
        }
        entries += try Self.cryptoEntries(cryptoPairs)
        entries += try Self.forexEntries(forexPairs)
        self.init(entries: entries)
    }

    /// The rows of a TSV after its header line, each split into its fields, with their line numbers; empty lines are
    /// skipped. (Split as UTF-8 bytes: split as Characters, with grapheme breaking, the bundled directory's load was
    /// ~3× slower — `MarketDataBench`'s first line.)
    static func rows(_ text: String) -> [(line: Int, fields: [String])] {
        var rows: [(line: Int, fields: [String])] = []
        var text = text
        text.withUTF8 { bytes in
            var line = 0
            var start = 0
            while start < bytes.count {
                line += 1
                var end = start
                while end < bytes.count, bytes[end] != 10 { end += 1 }
                var last = end
                if last > start, bytes[last - 1] == 13 { last -= 1 } // (a CRLF file)
                if line > 1, last > start {
                    var fields: [String] = []
                    var from = start
                    for i in start...last where i == last || bytes[i] == 9 {
                        fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<i]), as: UTF8.self))
                        from = i + 1
                    }
                    rows.append((line, fields))
                }
                start = end + 1
            }
        }
        return rows
    }

    /// A US listing that is a warrant, a right or a unit: the class suffix of the ticker (`ACHR.W`, `ACHR-WT`,
    /// `AIIA.R`, `AIIA-RI`, `AAC.U`, `AIIA-UN`); Nasdaq's fifth letter W, R or U on a four-letter root that is
    /// listed too (`AACIW`, `AACBR`, `AACBU` beside `AACI`, `AACB`); or the security's name ("… Warrants", "… Rights,
    /// each entitling…", "… Units, each consisting of…"). A partnership's units (`AB`, `BEP`) are its equity.
    static func isWarrantRightOrUnit(_ entry: DirectoryEntry, symbols: Set<String>) -> Bool {
        guard entry.instrument.market == .us, entry.instrument.kind == .stock else { return false }
        let symbol = entry.symbol
        if let separator = symbol.lastIndex(where: { $0 == "." || $0 == "-" }) {
            let suffix = symbol[symbol.index(after: separator)...]
            if ["W", "WS", "WT", "R", "RI", "RT", "U", "UN"].contains(suffix) { return true }
        }
        if entry.instrument.exchange == .nasdaq, symbol.count == 5, let last = symbol.last, "WRU".contains(last),
            symbols.contains(String(symbol.dropLast()))
        {
            return true
        }
        // (Over ASCII-folded bytes: `lowercased()` and Foundation's `contains` were an eighth of the directory's load.)
        let name = folded(entry.name)
        return ["warrant", " rights", "right, each", "units, each"].contains { word in
            let needle = Array(word.utf8)
            guard name.count >= needle.count else { return false }
            return (0...(name.count - needle.count)).contains { i in
                name[i] == needle[0] && name[i..<(i + needle.count)].elementsEqual(needle)
            }
        }
    }

    public init(entries: [DirectoryEntry]) {
        self.entries = entries
        // (Entries are read in place, by index: a copy of one retains its eight strings.)
        var bySymbol: [String: Int] = [:]
        bySymbol.reserveCapacity(entries.count + 64)
        for i in entries.indices { bySymbol[entries[i].symbol] = bySymbol[entries[i].symbol] ?? i }
        // A crypto pair answers to its legacy symbol too (`BTCUSD` for `BTC/USD`), as Alpaca's API does, unless a
        // listing has that symbol.
        // (And to `BTC-USD`, as Yahoo Finance names it, so its downloads backtest as the pair.)
        for i in entries.indices where entries[i].instrument.kind == .crypto {
            for other in ["", "-"] {
                let alias = entries[i].symbol.replacingOccurrences(of: "/", with: other)
                bySymbol[alias] = bySymbol[alias] ?? i
            }
        }
        // A currency pair answers to `EURUSD` and `EUR/USD` too, unless a listing has that symbol.
        for i in entries.indices where entries[i].instrument.kind == .forex {
            for other in ["", "/"] {
                let alias = entries[i].symbol.replacingOccurrences(of: ".", with: other)
                bySymbol[alias] = bySymbol[alias] ?? i
            }
        }
        self.bySymbol = bySymbol
        currencyPairs = entries.filter { $0.instrument.kind == .forex }
        index = SearchIndex(
            // A crypto pair is searched by its coin's ticker (ETH finds ETH/USD as an exact ticker); the pair's
            // symbols are among its aliases.
            symbols: entries.indices.map { i in
                let symbol = entries[i].symbol
                return Self.folded(entries[i].instrument.kind == .crypto ? String(symbol.prefix { $0 != "/" }) : symbol)
            },
            names: entries.indices.map { i in
                var text = entries[i].name
                for more in [entries[i].chineseName, entries[i].aliases] where !more.isEmpty {
                    text += text.isEmpty ? more : " " + more
                }
                return Self.folded(text)
            },
            ranks: entries.indices.map { Self.listingRank(entries[$0]) },
            markets: entries.indices.map { entries[$0].instrument.market })
    }

    public var count: Int { entries.count }

    /// The pair that joins two currencies, either way round (`USD.CNH` for USD and CNH, or CNH and USD), if listed.
    public func currencyPair(_ a: Currency, _ b: Currency) -> DirectoryEntry? {
        guard a != b else { return nil }
        return entry(a.rawValue + "." + b.rawValue) ?? entry(b.rawValue + "." + a.rawValue)
    }

    public func entry(_ symbol: String) -> DirectoryEntry? {
        bySymbol[symbol].map { entries[$0] } ?? bySymbol[symbol.uppercased()].map { entries[$0] }
    }

    /// Up to `limit` matches for a ticker or name fragment, best first. Case-insensitive; Chinese works as is.
    public func search(_ query: String, market: Market? = nil, limit: Int = 10) -> [SearchResult] {
        let q = Self.folded(query.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !q.isEmpty, limit > 0 else { return [] }
        return index.search(q, market: market, limit: limit).map { i in
            let e = entries[i]
            return SearchResult(
                symbol: e.symbol, name: e.name, exchange: e.instrument.exchange,
                market: e.instrument.market, kind: e.instrument.kind)
        }
    }

    /// Primary listings first (0), then other venues (1), OTC last (2); index members get a head start.
    static func listingRank(_ entry: DirectoryEntry) -> Int32 {
        let venue: Int32
        switch entry.instrument.exchange {
        // (A crypto pair is its coin's primary listing: "bitcoin" finds it before Bitcoin Depot's shares.)
        case .nasdaq, .nyse, .sse, .szse: venue = 0
        case .crypto, .idealpro: return -1
        case .otc: venue = 4
        default: venue = 2
        }
        // (Tickers are ASCII: their bytes are checked, not their Characters' Unicode properties.)
        let plainTicker =
            entry.symbol.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
            ? 0 : 1
        return venue + Int32(plainTicker) - (entry.sector.isEmpty ? 0 : 1)
    }

    /// UTF-8 with ASCII letters lower-cased (non-ASCII text, e.g. Chinese, compares as is).
    static func folded(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }
}
