import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import MarketData
import Synchronization
import TradingCore

/// How the Interactive Brokers Client Portal listener runs (`papertrade serve --ib-port`).
public struct IBGatewayConfiguration: Sendable {
    /// nil: no IB listener.
    public var port: Int?
    /// Loopback by default: like IB's gateway, whoever reaches the port acts as the logged-in user.
    public var host = "127.0.0.1"
    /// PEM files; when both are nil a self-signed certificate is made on first start and kept in the data directory.
    public var certificatePath: String?
    public var keyPath: String?
    /// Log this user in at start (headless bots); otherwise a person logs in on the listener's page at `/`.
    public var user: String?

    public init() {}
}

/// An error as IB's gateway answers: the HTTP status and `{"error": "…", "statusCode": N}`.
struct IBError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static let notAuthenticated = IBError(.unauthorized, "not authenticated")

    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONValue.object(["error": .string(message), "statusCode": .int(status.code)]).response(status: status)
    }
}

/// The gateway's one session: which papertrade user it is logged in as, the session token clients put in the
/// WebSocket cookie, the selected account, the questions silenced for the session, and the orders waiting for
/// a reply. Like IB's gateway it belongs to one user at a time.
final class IBGateway: Sendable {
    /// An order held back until its questions are answered. Each has its own reply id, so any number can wait at
    /// once and answering one never disturbs another.
    struct PendingReply: Sendable {
        enum Action: Sendable {
            case place(IBOrderTicket)
            case modify(OrderID, number: Int, ReplaceRequest)
        }
        var account: AccountID
        var action: Action
        var questions: [IBQuestions.Question]
        var created: Date
    }

    struct State: Sendable {
        var user: UserID?
        var username = ""
        var session = ""
        var selected: AccountID?
        var suppressed: Set<String> = []
        var pending: [String: PendingReply] = [:]
        /// IB order number → the order it stands for now (a modified order keeps its number).
        var orders: [Int: OrderID] = [:]
        var numbers: [OrderID: Int] = [:]
        /// Shares (and their value) filled by the earlier orders of a modified order's chain: IB shows one order.
        var carried: [OrderID: Fills] = [:]
        var historyRequests = 0
    }

    /// Filled quantity and value carried over from the orders a modification replaced.
    struct Fills: Sendable, Equatable {
        var qty: Quantity = .zero
        var value: FixedDecimal = .zero
    }

    let market: MarketView
    let accountService: any AccountService
    let orderService: any OrderService
    let access: UserAccess
    let configuration: IBGatewayConfiguration
    let state = Mutex(State())

    init(
        market: MarketView, accountService: any AccountService, orderService: any OrderService, access: UserAccess,
        configuration: IBGatewayConfiguration
    ) {
        self.market = market
        self.accountService = accountService
        self.orderService = orderService
        self.access = access
        self.configuration = configuration
    }

    // MARK: Session

    func logIn(_ user: UserRecord) {
        state.withLock {
            $0 = State()
            $0.user = user.id
            $0.username = user.username
            $0.session = Credentials.token(bytes: 16).lowercased()
        }
    }

    func logOut() { state.withLock { $0 = State() } }

    /// The logged-in user, or 401 as the gateway answers before login.
    func user() throws(IBError) -> UserID {
        guard let user = state.withLock({ $0.user }) else { throw IBError.notAuthenticated }
        return user
    }

    /// The user's accounts, in the order they were opened, with their IB ids.
    func accounts() async throws -> [(ib: String, record: AccountRecord)] {
        let user = try user()
        let records = try await accountService.loadAccounts(of: user).sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
        return records.map { (IBAccountID.make($0.id), $0) }
    }

    /// The account an IB account id in a path or body names; 400 for an id that is not one of the user's.
    func account(_ ibID: String) async throws -> AccountRecord {
        let id = ibID.trimmingCharacters(in: .whitespaces).uppercased()
        guard let match = try await accounts().first(where: { $0.ib == id }) else {
            throw IBError(.badRequest, "account \(ibID) is not an account of this session")
        }
        return match.record
    }

    /// The selected account (the first one until `/iserver/account` switches).
    func selectedAccount() async throws -> AccountRecord {
        let list = try await accounts()
        guard let first = list.first else { throw IBError(.badRequest, "this user has no accounts") }
        let selected = state.withLock { $0.selected }
        return list.first(where: { $0.record.id == selected })?.record ?? first.record
    }

    func select(_ account: AccountID) { state.withLock { $0.selected = account } }

    // MARK: Order numbers

    /// The IB number of an order: the number of the first order of its replacement chain (a modified order keeps
    /// its number, as at IB). `chain` holds the account's orders when they are at hand.
    func number(of order: Order, chain: [OrderID: Order] = [:]) -> Int {
        if let known = state.withLock({ s in s.numbers[order.id] ?? order.replaces.flatMap { s.numbers[$0] } }) {
            remember(known, order)
            return known
        }
        var root = order.id
        var previous = order.replaces
        var steps = 0
        while let earlier = previous, steps < 100 {
            root = earlier
            previous = chain[earlier]?.replaces
            steps += 1
        }
        let number = IBOrderNumber.make(root)
        remember(number, order)
        return number
    }

    /// What the earlier orders of `order`'s chain filled (zero for an order never modified after a fill).
    func carried(_ order: Order, chain: [OrderID: Order] = [:]) -> Fills {
        if let known = state.withLock({ $0.carried[order.id] }) { return known }
        var fills = Fills()
        var previous = order.replaces
        var steps = 0
        while let id = previous, let earlier = chain[id], steps < 100 {
            fills.qty += earlier.filledQty
            fills.value += earlier.filledValue
            previous = earlier.replaces
            steps += 1
        }
        if !fills.qty.isZero { state.withLock { $0.carried[order.id] = fills } }
        return fills
    }

    /// Records the fills a replacement carries over from the order it replaced.
    func carry(from old: Order, to new: Order) {
        let before = carried(old)
        let fills = Fills(qty: before.qty + old.filledQty, value: before.value + old.filledValue)
        guard !fills.qty.isZero else { return }
        state.withLock { $0.carried[new.id] = fills }
    }

    func remember(_ number: Int, _ order: Order) {
        state.withLock { s in
            s.numbers[order.id] = number
            if order.replacedBy == nil || s.orders[number] == nil { s.orders[number] = order.id }
        }
    }

    /// The order an IB number stands for in the account; looks through the account's orders after a restart.
    func order(number: Int, account: AccountID) async throws -> Order {
        if let id = state.withLock({ $0.orders[number] }),
            let order = try? await orderService.order(id, account: account)
        {
            if let next = order.replacedBy, let newer = try? await orderService.order(next, account: account) {
                state.withLock { $0.orders[number] = newer.id }
                return newer
            }
            return order
        }
        var query = OrderQuery()
        query.status = .all
        query.limit = 500
        let orders = try await orderService.orders(account: account, query)
        let chain = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var found: Order?
        for order in orders where self.number(of: order, chain: chain) == number {
            if found == nil || order.replacedBy == nil { found = order }
        }
        guard let found else { throw IBError(.badRequest, "order \(number) not found") }
        state.withLock { $0.orders[number] = found.id }
        return found
    }

    // MARK: Replies

    func hold(_ reply: PendingReply) -> String {
        let id = UUID().uuidString.lowercased()
        state.withLock { s in
            let stale = Date().addingTimeInterval(-600)
            s.pending = s.pending.filter { $0.value.created > stale }
            s.pending[id] = reply
        }
        return id
    }

    func takeReply(_ id: String) -> PendingReply? { state.withLock { $0.pending.removeValue(forKey: id) } }

    var suppressed: Set<String> { state.withLock { $0.suppressed } }
}
