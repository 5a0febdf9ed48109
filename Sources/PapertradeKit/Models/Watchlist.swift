import Foundation

/// A named list of symbols, each with its price now.
public struct Watchlist: Codable, Hashable, Sendable, Identifiable {
    public struct Item: Codable, Hashable, Sendable {
        public var symbol: String
        public var name: String?
        public var market: Market?
        @OptionalExactDecimal public var price: Decimal?
        @OptionalExactDecimal public var change: Decimal?
        /// In percent.
        @OptionalExactDecimal public var changePercent: Decimal?

        enum CodingKeys: String, CodingKey {
            case symbol, name, market, price, change
            case changePercent = "change_percent"
        }
    }

    public var id: String
    public var name: String
    public var items: [Item]
    @ServerTime public var updatedAt: Date

    public var symbols: [String] { items.map(\.symbol) }

    enum CodingKeys: String, CodingKey {
        case id, name, items
        case updatedAt = "updated_at"
    }
}
