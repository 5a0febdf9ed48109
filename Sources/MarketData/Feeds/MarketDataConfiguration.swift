import Foundation
import TradingCore

/// Which feed serves each market, and the providers' keys. The simulated market is the default; real
/// providers are chosen by environment variables or a config file of `KEY=VALUE` lines (the environment wins):
///
///     PAPERTRADE_FEED=simulated|finnhub|yahoo|alpaca|sina   both markets (US ones apply to US, sina to A-shares)
///     PAPERTRADE_FEED_US=simulated|finnhub|yahoo|alpaca     US stocks
///     PAPERTRADE_FEED_CN=simulated|sina                     A-shares
///     PAPERTRADE_FEED_CRYPTO=simulated|alpaca               crypto pairs (Alpaca's crypto data needs no keys)
///     PAPERTRADE_FEED_FOREX=simulated|yahoo                 currency pairs (Yahoo's rates, IDEALPRO's spread)
///     FINNHUB_API_KEYS=key1,key2                            rotated in turn (FINNHUB_API_KEY for one)
///     APCA_API_KEY_ID=…  APCA_API_SECRET_KEY=…               Alpaca market data
///     PAPERTRADE_QUOTE_TTL=5                                seconds a provider quote is reused
///     PAPERTRADE_PROFILE_TTL_DAYS=10                        days company profiles are reused
///     PAPERTRADE_SEED=1                                     the simulated market's seed
public struct MarketDataConfiguration: Sendable, Hashable {
    public enum Provider: String, Sendable, CaseIterable {
        case simulated, finnhub, yahoo, alpaca, sina
    }

    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public var us: Provider = .simulated
    public var cn: Provider = .simulated
    public var crypto: Provider = .simulated
    public var forex: Provider = .simulated
    public var finnhubKeys: [String] = []
    public var alpacaKeyID = ""
    public var alpacaSecret = ""
    public var quoteTTLSeconds: Int64 = 5
    public var profileTTLDays: Int64 = 10
    public var seed: UInt64 = 1

    public init() {}

    /// Reads the config file (if given and present), then the environment on top of it, and validates.
    public static func load(environment: [String: String], configFile: String? = nil) throws(ConfigurationError) -> Self
    {
        var values: [String: String] = [:]
        if let configFile, FileManager.default.fileExists(atPath: configFile) {
            guard let text = try? String(contentsOfFile: configFile, encoding: .utf8) else {
                throw ConfigurationError(description: "cannot read \(configFile)")
            }
            for (n, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard let eq = line.firstIndex(of: "=") else {
                    throw ConfigurationError(description: "\(configFile):\(n + 1): expected KEY=VALUE, got \(line)")
                }
                values[line[..<eq].trimmingCharacters(in: .whitespaces)] = line[line.index(after: eq)...]
                    .trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            }
        }
        values.merge(
            environment.filter {
                $0.key.hasPrefix("PAPERTRADE_") || $0.key.hasPrefix("FINNHUB_") || $0.key.hasPrefix("APCA_")
            }
        ) { $1 }

        var c = MarketDataConfiguration()
        func provider(_ key: String) throws(ConfigurationError) -> Provider? {
            guard let raw = values[key]?.lowercased(), !raw.isEmpty else { return nil }
            guard let p = Provider(rawValue: raw) else {
                throw ConfigurationError(
                    description:
                        "\(key)=\(raw) is not one of \(Provider.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return p
        }
        if let both = try provider("PAPERTRADE_FEED") {
            if both == .sina { c.cn = .sina } else { c.us = both }
        }
        if let us = try provider("PAPERTRADE_FEED_US") { c.us = us }
        if let cn = try provider("PAPERTRADE_FEED_CN") { c.cn = cn }
        if let crypto = try provider("PAPERTRADE_FEED_CRYPTO") {
            guard crypto == .simulated || crypto == .alpaca else {
                throw ConfigurationError(
                    description: "PAPERTRADE_FEED_CRYPTO=\(crypto.rawValue): crypto pairs come from simulated or alpaca"
                )
            }
            c.crypto = crypto
        }
        if let forex = try provider("PAPERTRADE_FEED_FOREX") {
            guard forex == .simulated || forex == .yahoo else {
                throw ConfigurationError(
                    description: "PAPERTRADE_FEED_FOREX=\(forex.rawValue): currency pairs come from simulated or yahoo")
            }
            c.forex = forex
        }
        guard c.us != .sina else {
            throw ConfigurationError(description: "Sina serves A-shares only; set PAPERTRADE_FEED_CN=sina")
        }
        guard c.cn == .simulated || c.cn == .sina else {
            throw ConfigurationError(description: "A-shares can use the simulated market or sina, not \(c.cn.rawValue)")
        }
        c.finnhubKeys = (values["FINNHUB_API_KEYS"] ?? values["FINNHUB_API_KEY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        c.alpacaKeyID = values["APCA_API_KEY_ID"] ?? ""
        c.alpacaSecret = values["APCA_API_SECRET_KEY"] ?? ""
        func number(_ key: String) throws(ConfigurationError) -> Int64? {
            guard let raw = values[key] else { return nil }
            guard let n = Int64(raw), n >= 0 else {
                throw ConfigurationError(description: "\(key)=\(raw) must be a whole number ≥ 0")
            }
            return n
        }
        c.quoteTTLSeconds = try number("PAPERTRADE_QUOTE_TTL") ?? c.quoteTTLSeconds
        c.profileTTLDays = try number("PAPERTRADE_PROFILE_TTL_DAYS") ?? c.profileTTLDays
        if let seed = try number("PAPERTRADE_SEED") { c.seed = UInt64(seed) }
        if c.us == .finnhub && c.finnhubKeys.isEmpty {
            throw ConfigurationError(
                description: "PAPERTRADE_FEED_US=finnhub needs FINNHUB_API_KEYS (one or more keys, comma-separated)")
        }
        if c.us == .alpaca && (c.alpacaKeyID.isEmpty || c.alpacaSecret.isEmpty) {
            throw ConfigurationError(
                description: "PAPERTRADE_FEED_US=alpaca needs APCA_API_KEY_ID and APCA_API_SECRET_KEY")
        }
        return c
    }

    /// The feed this configuration describes: real providers wrapped in `CachingFeed`, routed by market.
    public func makeFeed(
        directory: SymbolDirectory, clock: MarketClock,
        transport: any HTTPTransport = URLSessionTransport()
    ) -> any MarketDataFeed {
        let simulated = SimulatedFeed(
            market: SimulatedMarket(
                directory: directory,
                configuration: SimulatorConfiguration(seed: seed, sessions: clock.sessions)),
            clock: clock)
        func cached(_ feed: any MarketDataFeed) -> any MarketDataFeed {
            CachingFeed(feed, clock: clock, quoteTTLSeconds: quoteTTLSeconds, profileTTLDays: profileTTLDays)
        }
        let usFeed: any MarketDataFeed
        switch us {
        case .simulated, .sina: usFeed = simulated
        case .finnhub: usFeed = cached(FinnhubFeed(keys: finnhubKeys, transport: transport, clock: clock))
        case .yahoo: usFeed = cached(YahooFeed(transport: transport))
        case .alpaca: usFeed = cached(AlpacaDataFeed(keyID: alpacaKeyID, secret: alpacaSecret, transport: transport))
        }
        let cnFeed: any MarketDataFeed =
            cn == .sina ? cached(SinaFeed(transport: transport, directory: directory)) : simulated
        // Crypto pairs: Alpaca's crypto data (keys only raise its rate limit), or the simulated market.
        let cryptoFeed: any MarketDataFeed =
            crypto == .alpaca
            ? cached(AlpacaCryptoFeed(keyID: alpacaKeyID, secret: alpacaSecret, transport: transport)) : simulated
        // Currency pairs: Yahoo's rates with IDEALPRO's spread around them, or the simulated market's.
        let forexFeed: any MarketDataFeed =
            forex == .yahoo ? cached(YahooForexFeed(transport: transport, directory: directory)) : simulated
        if us == .simulated && cn == .simulated && crypto == .simulated && forex == .simulated { return simulated }
        return MarketRoutedFeed(us: usFeed, cn: cnFeed, crypto: cryptoFeed, forex: forexFeed, directory: directory)
    }
}
