/// A market an account trades in: its currency and exchange calendar follow from it.
public enum Market: String, Sendable, Codable, CaseIterable, Hashable {
    /// US equities (NYSE, Nasdaq, NYSE Arca, Cboe, NYSE American), in USD.
    case us
    /// China A-shares (SSE, SZSE, BSE), in CNY.
    case cn

    public var currency: Currency { self == .us ? .usd : .cny }
    public var calendar: TradingCalendar { self == .us ? .xnys : .xshg }
}

/// A listing venue.
public enum Exchange: String, Sendable, Codable, CaseIterable, Hashable {
    case nyse = "NYSE"
    case nasdaq = "NASDAQ"
    /// NYSE Arca.
    case arca = "ARCA"
    /// NYSE American (formerly AMEX).
    case amex = "AMEX"
    /// Cboe BZX (formerly BATS).
    case bats = "BATS"
    case otc = "OTC"
    /// US listed options, quoted on the consolidated OPRA tape (papertrade does not route them to one exchange).
    case opra = "OPRA"
    /// Shanghai Stock Exchange.
    case sse = "SSE"
    /// Shenzhen Stock Exchange.
    case szse = "SZSE"
    /// Beijing Stock Exchange.
    case bse = "BSE"
    /// Crypto pairs (Alpaca's `exchange` for them), traded by US-dollar accounts.
    case crypto = "CRYPTO"
    /// Interactive Brokers' forex venue, where the currency pairs trade (`Instrument.forexPair`).
    case idealpro = "IDEALPRO"

    public var market: Market {
        switch self {
        case .sse, .szse, .bse: return .cn
        default: return .us
        }
    }
}

/// The board (segment) of an exchange an instrument is listed on; A-share rules differ by board.
public enum Board: String, Sendable, Codable, CaseIterable, Hashable {
    /// Any US listing.
    case us
    /// SSE/SZSE main board (SZSE 002 was the SME board).
    case main
    /// SSE STAR market (688/689).
    case star
    /// SZSE ChiNext (300/301).
    case chinext
    /// Beijing Stock Exchange.
    case beijing
    /// Crypto pairs, which no exchange board lists.
    case crypto
    /// Currency pairs, which no exchange board lists.
    case forex
    /// B shares (900 SSE in USD, 200 SZSE in HKD).
    case bShare = "b_share"
}

/// What an instrument is.
public enum InstrumentKind: String, Sendable, Codable, Hashable {
    case stock
    case etf
    /// A-share listed funds (LOF/ETF), quoted to 0.001.
    case fund
    case index
    /// A listed option contract (`Instrument.option`).
    case option
    /// A crypto pair (`BTC/USD`): its quantity is the coin, its price the quote currency per coin.
    case crypto
    /// A currency pair (`EUR.USD`, IB's `CASH`): its quantity is the base currency (euros), its price the quote
    /// currency per unit of it (dollars per euro).
    case forex
}
