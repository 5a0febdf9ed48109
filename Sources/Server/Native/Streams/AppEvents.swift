import Brokerage
import Foundation
import JSON
import MarketData
import NIOCore
import Synchronization
import TradingCore

/// What the app's live channels carry, whichever transport: the web app's socket (`AppSocket`) and the event stream
/// at /api/v1/events (`EventStreamController`, read by PapertradeKit and the CLI's `watch`). One producer, so both
/// say the same thing:
///
///     quote         {…native quote…}                   the subscribed symbols, at most once a second each, on change
///     order         {"event", "account_id", "order"}   order updates of the caller's accounts
///     notification  {…native notification…}            the user's notifications (an API key: its account's)
enum AppEvents {
    /// What the channels read: the market, the listener's accounts, their order updates and notifications.
    struct Sources: Sendable {
        let market: MarketView
        let accountService: any AccountService
        let orderService: any OrderService
        let notifications: Notifications
        /// Every listener's quotes, read and encoded once a round (`AppQuoteRound`).
        let quotes: Fanout<AppQuoteRound>

        init(
            market: MarketView, accountService: any AccountService, orderService: any OrderService,
            notifications: Notifications
        ) {
            (self.market, self.accountService, self.orderService) = (market, accountService, orderService)
            self.notifications = notifications
            // Sixteen rounds of a full watchlist: a client further behind is dropped.
            quotes = Fanout(clock: market.clock, mailboxFrames: 16 * Symbols.limit) { AppQuoteRound(market: market) }
        }
    }

    /// Who listens: a user (every account of theirs) or an API key (its one account).
    struct Audience: Sendable {
        var user: UserID
        var accounts: Set<AccountID>
        /// An API key hears only the notifications about its account.
        var onlyAccount: AccountID?

        static func resolve(_ caller: Caller, accountService: any AccountService) async throws -> Audience? {
            switch caller {
            case .user(let user, _):
                // On a cluster some of the user's accounts may live in shards other nodes serve: listening needs
                // only their ids (their events come through the brokerage's live-event relay).
                var accounts = try? await accountService.loadAccounts(of: user)
                if accounts == nil { accounts = await accountService.accounts(of: user) }
                return Audience(user: user, accounts: Set((accounts ?? []).map(\.id)))
            case .account(let account):
                // (Loaded when this node serves it; on a cluster another node may, and listening needs no more.)
                try? await accountService.loadAccountIfNeeded(account)
                guard let record = await accountService.accountRecord(account) else { return nil }
                return Audience(user: record.userID, accounts: [account], onlyAccount: account)
            }
        }
    }

    /// The symbols a listener follows (the socket changes them as it goes; the event stream fixes them at start) and
    /// how its quotes are sent.
    final class Symbols: Sendable {
        let state: Mutex<AppQuoteInterest>
        static let limit = 100

        /// Tells the quotes' fan-out that the set grew (set when the listener joins it).
        private let grew = Mutex<@Sendable () -> Void>({})

        init(form: AppQuoteInterest.Form) { state = Mutex(AppQuoteInterest(symbols: [], form: form)) }

        func onGrowth(_ action: @escaping @Sendable () -> Void) { grew.withLock { $0 = action } }

        var current: [String] { state.withLock { $0.symbols }.sorted() }

        /// Adds or removes symbols the directory knows; the set stays within the limit. A socket that asks for
        /// `batched` quotes gets them so from then on.
        func change(_ requested: [String], subscribe: Bool, directory: SymbolDirectory, batched: Bool = false) {
            let known = requested.map { $0.uppercased() }.filter { directory.entry($0) != nil }.prefix(50)
            state.withLock { s in
                if subscribe { s.symbols.formUnion(known) } else { s.symbols.subtract(known) }
                if s.symbols.count > Self.limit { s.symbols = Set(s.symbols.sorted().prefix(Self.limit)) }
                if batched, s.form == .socket { s.form = .socketBatched }
            }
            if subscribe { grew.withLock { $0 }() }
        }
    }

    /// A listener whose client reads slower than the quotes come (its quotes stopped; the channel says so and closes).
    struct Lagging: Error {}

    /// Sends events to `send` and quotes (encoded once for every listener: the bytes of a text frame or of event-stream
    /// chunks, as `symbols.form` says) to `sendQuote` until the task is canceled,
    /// a send throws (the listener left) or the listener falls too far behind the quotes (`Lagging`).
    static func run(
        _ audience: Audience, symbols: Symbols, sources: Sources,
        send: @escaping @Sendable (String, JSONValue) async throws -> Void,
        sendQuote: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        let orders = sources.orderService.orderUpdates(account: nil)
        let notifications = sources.notifications.live(user: audience.user)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in orders where audience.accounts.contains(update.order.accountID) {
                    try await send(
                        "order",
                        .object([
                            "event": .string(update.event.rawValue),
                            "account_id": .string(update.order.accountID.description),
                            "order": NativeEncoding.order(update.order),
                        ]))
                }
            }
            group.addTask {
                for await n in notifications where audience.onlyAccount == nil || n.accountID == audience.onlyAccount {
                    try await send("notification", NotificationsController.encode(n))
                }
            }
            group.addTask {
                let listener = sources.quotes.join { symbols.state.withLock { $0 } }
                symbols.onGrowth { sources.quotes.subscribed(listener) }
                sources.quotes.subscribed(listener)
                defer { sources.quotes.leave(listener) }
                for await quote in listener.frames { try await sendQuote(quote) }
                // The quotes ended without the listener leaving: it fell too far behind them.
                if !Task.isCancelled { throw Lagging() }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
