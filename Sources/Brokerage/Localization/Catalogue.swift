import TradingCore

/// Server-side texts a user reads (notifications, alerts, pushes), one catalogue per language
/// (`Catalogue+en.swift`, `Catalogue+zhHans.swift`) keyed alike; `CatalogueTests` fails when a key is missing in
/// either. Templates name their values in braces: `"Bought {symbol}"`.
public struct Catalogue: Sendable {
    public let language: Language

    public init(_ language: Language) { self.language = language }

    public static func strings(_ language: Language) -> [String: String] {
        switch language {
        case .en: return english
        case .zhHans: return simplifiedChinese
        }
    }

    /// The text for `key` with its `{name}` placeholders filled (English if the language lacks it, then the key).
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        let template = Self.strings(language)[key] ?? Self.english[key] ?? key
        guard !values.isEmpty, template.contains("{") else { return template }
        var text = template
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// A counted text: `key.one` for 1, `key.other` otherwise, with `{n}` filled.
    public func count(_ key: String, _ n: Int, _ values: [String: String] = [:]) -> String {
        self(n == 1 ? key + ".one" : key + ".other", values.merging(["n": String(n)]) { a, _ in a })
    }
}

extension Catalogue {
    /// What a notification calls a symbol: an option contract by its name in the reader's language ("AAPL Dec 18
    /// 2026 250 Call", "AAPL 2026年12月18日 250 看涨"), never its OCC code; a stock by its symbol.
    public func instrumentName(_ symbol: String) -> String {
        guard let contract = OptionContract(occSymbol: symbol) else { return symbol }
        switch language {
        case .en: return contract.name
        case .zhHans:
            let e = contract.expiration
            return "\(contract.root) \(e.year)年\(e.month)月\(e.day)日 \(contract.strike.description) "
                + (contract.right == .call ? "看涨" : "看跌")
        }
    }
}
