// A watchlist row for a SwiftUI app on PapertradeKit: the symbol and name, the last price, and the day's change in
// the market's colours, updated live from the server's event stream. Apple platforms only (no SwiftUI on Linux).
#if canImport(SwiftUI)
    import PapertradeKit
    import SwiftUI

    @available(iOS 17, macOS 14, *)
    public struct WatchlistRow: View {
        let client: PapertradeClient
        let item: Watchlist.Item
        @State private var quote: Quote?

        public init(client: PapertradeClient, item: Watchlist.Item) {
            self.client = client
            self.item = item
        }

        private var price: Decimal? { quote?.last ?? item.price }
        private var change: Decimal? { quote?.change ?? item.change }
        private var changePercent: Decimal? { quote?.changePercent ?? item.changePercent }
        /// A-share apps show rises in red and falls in green; US apps the other way round.
        private var upColor: Color { item.market == .cn ? .red : .green }
        private var downColor: Color { item.market == .cn ? .green : .red }

        public var body: some View {
            HStack {
                VStack(alignment: .leading) {
                    Text(item.symbol).font(.headline)
                    Text(item.name ?? "").font(.caption).foregroundStyle(.secondary).lineLimit(1)
                }
                Spacer()
                VStack(alignment: .trailing) {
                    Text(price.map { "\($0)" } ?? "—").font(.body.monospacedDigit())
                    if let change, let changePercent {
                        Text("\(change >= 0 ? "+" : "")\(change) (\(changePercent)%)")
                            .font(.caption.monospacedDigit())
                            .foregroundStyle(change > 0 ? upColor : change < 0 ? downColor : .secondary)
                    }
                }
            }
            .task(id: item.symbol) {
                do {
                    for try await update in client.quoteUpdates([item.symbol]) { quote = update }
                } catch {
                    // The stream ended (offline, server restart): keep the last price shown.
                }
            }
        }
    }
#endif
