import JSON
import MarketData
import TradingCore

/// The symbol directory as Alpaca's asset list: what `GET /v2/assets` (the call every bot makes to enumerate what it
/// can trade, ~22,000 entries) and `GET /v2/assets/{symbol_or_asset_id}` answer. Asset ids are stable per symbol
/// (`AlpacaEncoding.assetIdentifier`), so they are looked up in a table made once.
struct AlpacaAssets: Sendable {
    let directory: SymbolDirectory
    private let symbolsByID: [Identifier: String]

    init(directory: SymbolDirectory) {
        self.directory = directory
        var byID: [Identifier: String] = [:]
        byID.reserveCapacity(directory.count)
        for entry in directory.entries { byID[AlpacaEncoding.assetIdentifier(entry.symbol)] = entry.symbol }
        symbolsByID = byID
    }

    /// The entry for a symbol (any case) or an asset id; never a currency pair, which Alpaca does not list.
    func entry(_ symbolOrID: String) -> DirectoryEntry? {
        let entry =
            directory.entry(symbolOrID)
            ?? Identifier(symbolOrID.lowercased()).flatMap { symbolsByID[$0] }.flatMap(directory.entry)
        return entry?.instrument.kind == .forex ? nil : entry
    }

    /// Alpaca's filters: `status` (active, inactive), `asset_class` (us_equity by default, as Alpaca's; crypto;
    /// us_option lists nothing here), `exchange` (AMEX, ARCA, BATS, NYSE, NASDAQ, NYSEARCA, OTC, CRYPTO),
    /// `attributes` (any of them).
    struct Filter: Sendable {
        var status: String?
        var assetClass: String?
        var exchange: String?
        var attributes: Set<String> = []
    }

    static let statuses: Set<String> = ["active", "inactive"]
    static let assetClasses: Set<String> = ["us_equity", "crypto", "us_option"]
    static let exchanges: Set<String> = ["AMEX", "ARCA", "BATS", "NYSE", "NASDAQ", "NYSEARCA", "OTC", "CRYPTO"]

    /// Every listed instrument is active; stocks and funds are us_equity for Alpaca's clients (A-shares included,
    /// with an `exchange:SSE` style attribute; see `AlpacaEncoding.asset`), pairs crypto.
    func list(_ filter: Filter) -> [JSONValue] {
        if let status = filter.status, status != "active" { return [] }
        let assetClass = filter.assetClass ?? "us_equity"
        var out: [JSONValue] = []
        out.reserveCapacity(directory.count)
        for entry in directory.entries where AlpacaEncoding.assetClass(entry.instrument) == assetClass {
            if let exchange = filter.exchange {
                let name = AlpacaEncoding.exchange(entry.instrument.exchange)
                guard name == exchange || (exchange == "NYSEARCA" && name == "ARCA") else { continue }
            }
            let asset = AlpacaEncoding.asset(entry)
            if !filter.attributes.isEmpty {
                let attributes = Set(asset["attributes"]?.array?.compactMap(\.string) ?? [])
                guard !attributes.isDisjoint(with: filter.attributes) else { continue }
            }
            out.append(asset)
        }
        return out
    }
}
