import Brokerage
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import JSON
import MarketData
import Synchronization
import TradingCore

/// The Client Portal WebSocket at `/v1/api/ws`, authenticated by the cookie `api={"session":"<tickle's session>"}`.
///
/// Client frames (text): `smd+CONID+{"fields":[…]}` / `umd+CONID+{}` market data; `sor+{}` / `uor+{}` live orders;
/// `str+{}` / `utr` trades; `spl+{}` / `upl` P&L; `ssd+ACCT+{}` / `usd+ACCT` summary; `sld+ACCT+{}` / `uld+ACCT`
/// ledger; `tic` keep-alive. Server topics: `system` (hello, heartbeat every 10 s), `sts` (auth status), `act`
/// (accounts), `smd+CONID` (only the fields that changed since the last push, checked every second), `sor`, `str`
/// (the same fills Alpaca's trade_updates report), `spl`, `ssd+ACCT`, `sld+ACCT`, `tic`.
enum IBSocket {
    struct Subscriptions: Sendable {
        var marketData: [Int: (entry: DirectoryEntry, fields: [String], last: [String: String])] = [:]
        var orders = false
        var trades = false
        var pnl = false
        var summaries: Set<AccountID> = []
        var ledgers: Set<AccountID> = []
    }

    final class Box: Sendable {
        let state = Mutex(Subscriptions())
    }

    static func session(from headers: HTTPFields) -> String? {
        guard let cookies = headers[.cookie] else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0] == "api" else { continue }
            let value = String(pair[1]).removingPercentEncoding ?? String(pair[1])
            if let json = try? JSONValue(parsing: value) { return json["session"]?.string }
            return value
        }
        return nil
    }

    static func millisNow() -> Int { Int(Date().timeIntervalSince1970 * 1000) }

    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, headers: HTTPFields,
        gateway: IBGateway
    ) async throws {
        @Sendable func send(_ value: JSONValue) async throws { try await outbound.write(.text(value.serialized)) }
        let (user, session, username) = gateway.state.withLock { ($0.user, $0.session, $0.username) }
        guard let user, let presented = Self.session(from: headers), presented == session else {
            try await send(.object(["message": .string("waiting for session")]))
            try await outbound.close(
                .policyViolation, reason: "not authenticated: send the session from /tickle in the api cookie")
            return
        }
        try await send(
            .object([
                "topic": .string("system"), "success": .string(username), "isFT": .bool(false), "isPaper": .bool(true),
            ]))
        try await send(
            .object([
                "topic": .string("sts"),
                "args": .object([
                    "authenticated": .bool(true), "competing": .bool(false), "message": .string(""),
                    "fail": .string(""),
                    "serverName": .string("papertrade"), "serverVersion": .string("papertrade Client Portal 1"),
                    "username": .string(username),
                ]),
            ]))
        let accounts = try await gateway.accounts()
        let selected = try await gateway.selectedAccount()
        try await send(
            .object([
                "topic": .string("act"),
                "args": IBPortfolioRoutes.accountsList(
                    accounts, selected: IBAccountID.make(selected.id), session: session),
            ]))
        let mine = Dictionary(accounts.map { ($0.record.id, $0.ib) }, uniquingKeysWith: { a, _ in a })
        let box = Box()
        let updates = gateway.orderService.orderUpdates(account: nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Heartbeats on the wall clock (clients compare them with their own), whatever the market's clock.
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(10))
                    try await send(.object(["topic": .string("system"), "hb": .int(millisNow())]))
                    // Logged out (or another user logged in): said, and the socket closed — what it carried is
                    // no longer this client's to see.
                    guard gateway.state.withLock({ $0.user == user }) else {
                        try await send(
                            .object(["topic": .string("sts"), "args": .object(["authenticated": .bool(false)])]))
                        try await outbound.close(.policyViolation, reason: "not authenticated: the session ended")
                        return
                    }
                }
            }
            group.addTask {
                for await update in updates {
                    // (Nothing after a logout, until the heartbeat closes the socket.)
                    guard let ib = mine[update.order.accountID], gateway.state.withLock({ $0.user == user }) else {
                        continue
                    }
                    let subscriptions = box.state.withLock { ($0.orders, $0.trades, $0.summaries, $0.ledgers) }
                    let now = gateway.market.clock.now()
                    if subscriptions.0, update.order.status != .replaced, !IBEncoding.isComboLeg(update.order) {
                        let number = gateway.number(of: update.order)
                        let row = IBEncoding.liveOrder(
                            update.order, number: number, ib: ib,
                            entry: gateway.market.directory.entry(update.order.symbol), now: now,
                            carried: gateway.carried(update.order),
                            combo: await IBOrderRoutes(gateway: gateway).comboLegs(update.order))
                        try await send(.object(["topic": .string("sor"), "args": .array([row])]))
                    }
                    if subscriptions.1, let fill = update.fill {
                        let number = gateway.number(of: update.order)
                        let trade = IBEncoding.trade(
                            fill, at: update.time, commission: update.order.fees, order: update.order, number: number,
                            ib: ib, entry: gateway.market.directory.entry(fill.symbol))
                        try await send(.object(["topic": .string("str"), "args": .array([trade])]))
                    }
                    if update.fill != nil {
                        if subscriptions.2.contains(update.order.accountID) {
                            try await sendSummary(update.order.accountID, ib: ib, gateway: gateway, send: send)
                        }
                        if subscriptions.3.contains(update.order.accountID) {
                            try await sendLedger(update.order.accountID, ib: ib, gateway: gateway, send: send)
                        }
                    }
                }
            }
            group.addTask {
                // Market data and P&L: checked every second; only what changed is sent.
                var lastPnL: JSONValue?
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(1))
                    guard gateway.state.withLock({ $0.user == user }) else { continue }
                    try await pushMarketData(box, gateway: gateway, send: send)
                    if box.state.withLock({ $0.pnl }) {
                        let pnl = try await pnlMessage(accounts, gateway: gateway)
                        if pnl != lastPnL {
                            lastPnL = pnl
                            try await send(pnl)
                        }
                    } else {
                        lastPnL = nil
                    }
                }
            }
            var messages = inbound.messages(maxSize: ConnectionLimits.webSocketMessageBytes).makeAsyncIterator()
            while let message = try await messages.next() {
                guard case .text(let text) = message else { continue }
                try await handleFrame(
                    text.trimmingCharacters(in: .whitespacesAndNewlines), box: box, accounts: accounts,
                    gateway: gateway,
                    send: send)
            }
            group.cancelAll()
        }
    }

    static func handleFrame(
        _ frame: String, box: Box, accounts: [(ib: String, record: AccountRecord)], gateway: IBGateway,
        send: @Sendable (JSONValue) async throws -> Void
    ) async throws {
        let parts = frame.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let topic = parts[0]
        let argument = parts.count > 1 ? parts[1] : ""
        let payload = parts.count > 2 ? (try? JSONValue(parsing: parts[2])) : nil
        func account(_ ib: String) -> AccountRecord? { accounts.first { $0.ib == ib.uppercased() }?.record }
        switch topic {
        case "tic":
            try await send(
                .object([
                    "topic": .string("tic"), "alive": .bool(true), "id": .string("papertrade"),
                    "lastAccessed": .int(millisNow()),
                ]))
        case "ech":
            try await send(.object(["topic": .string("ech"), "hb": .int(millisNow())]))
        case "smd":
            guard let entry = IBConid.entry(argument, in: gateway.market.directory), let conid = Int(argument) else {
                try await send(
                    .object(["topic": .string("smd+" + argument), "error": .string("invalid conid \(argument)")]))
                return
            }
            let fields = (payload?["fields"]?.array ?? []).compactMap { $0.string ?? $0.int.map(String.init) }
            box.state.withLock { $0.marketData[conid] = (entry, fields, [:]) }
            try await pushMarketData(box, gateway: gateway, send: send, only: conid)
        case "umd":
            if let conid = Int(argument) { _ = box.state.withLock { $0.marketData.removeValue(forKey: conid) } }
        case "sor":
            box.state.withLock { $0.orders = true }
            var rows: [JSONValue] = []
            let now = gateway.market.clock.now()
            let routes = IBOrderRoutes(gateway: gateway)
            for (ib, record) in accounts {
                let orders = try await routes.recentOrders(record.id, now: now)
                let known = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                for order in orders where order.status != .replaced && !IBEncoding.isComboLeg(order) {
                    rows.append(
                        IBEncoding.liveOrder(
                            order, number: gateway.number(of: order), ib: ib,
                            entry: gateway.market.directory.entry(order.symbol), now: now,
                            carried: gateway.carried(order), combo: await routes.comboLegs(order, among: known)))
                }
            }
            try await send(.object(["topic": .string("sor"), "args": .array(rows)]))
        case "uor":
            box.state.withLock { $0.orders = false }
        case "str":
            box.state.withLock { $0.trades = true }
            if payload?["realtime_updates_only"]?.bool != true {
                let days = max(1, min(7, payload?["days"]?.int ?? 1))
                var rows: [JSONValue] = []
                for (_, record) in accounts { rows += try await gateway.trades(record, days: days).map(\.1) }
                try await send(.object(["topic": .string("str"), "args": .array(rows)]))
            }
        case "utr":
            box.state.withLock { $0.trades = false }
        case "spl":
            box.state.withLock { $0.pnl = true }
            try await send(try await pnlMessage(accounts, gateway: gateway))
        case "upl":
            box.state.withLock { $0.pnl = false }
        case "ssd", "sld":
            guard let record = account(argument) else {
                try await send(
                    .object(["topic": .string(topic + "+" + argument), "error": .string("unknown account \(argument)")])
                )
                return
            }
            if topic == "ssd" {
                _ = box.state.withLock { $0.summaries.insert(record.id) }
                try await sendSummary(record.id, ib: IBAccountID.make(record.id), gateway: gateway, send: send)
            } else {
                _ = box.state.withLock { $0.ledgers.insert(record.id) }
                try await sendLedger(record.id, ib: IBAccountID.make(record.id), gateway: gateway, send: send)
            }
        case "usd", "uld":
            if let record = account(argument) {
                _ = box.state.withLock {
                    topic == "usd" ? $0.summaries.remove(record.id) : $0.ledgers.remove(record.id)
                }
            }
            try await send(
                .object(["result": .string(topic == "usd" ? "unsubscribed from summary" : "unsubscribed from ledger")]))
        default:
            try await send(.object(["topic": .string("error"), "error": .string("unknown topic \(topic)")]))
        }
    }

    /// Pushes each subscribed contract's fields that changed (all of them the first time).
    static func pushMarketData(
        _ box: Box, gateway: IBGateway, send: @Sendable (JSONValue) async throws -> Void, only: Int? = nil
    ) async throws {
        let subscribed = box.state.withLock { s in s.marketData.filter { only == nil || $0.key == only } }
        for (conid, subscription) in subscribed.sorted(by: { $0.key < $1.key }) {
            guard
                case .object(let snapshot) = try await gateway.snapshot(subscription.entry, fields: subscription.fields)
            else { continue }
            var changed: [String: JSONValue] = [:]
            var latest = subscription.last
            for (key, value) in snapshot where key.first?.isNumber == true && key != "6119" {
                guard let text = value.string, subscription.last[key] != text else { continue }
                changed[key] = value
                latest[key] = text
            }
            guard !changed.isEmpty else { continue }
            box.state.withLock { s in
                if s.marketData[conid] != nil { s.marketData[conid]?.last = latest }
            }
            changed["topic"] = .string("smd+\(conid)")
            changed["conid"] = .int(conid)
            changed["conidEx"] = .string(String(conid))
            changed["server_id"] = snapshot["server_id"]
            changed["_updated"] = snapshot["_updated"]
            try await send(.object(changed))
        }
    }

    static func pnlMessage(_ accounts: [(ib: String, record: AccountRecord)], gateway: IBGateway) async throws
        -> JSONValue
    {
        var rows: [String: JSONValue] = [:]
        for (ib, record) in accounts {
            rows[ib + ".Core"] = IBPortfolioRoutes.pnlRow(try await gateway.accountService.summary(record.id))
        }
        return .object(["topic": .string("spl"), "args": .object(rows)])
    }

    static func sendSummary(
        _ id: AccountID, ib: String, gateway: IBGateway, send: @Sendable (JSONValue) async throws -> Void
    ) async throws {
        let summary = try await gateway.accountService.summary(id)
        let t = IBEncoding.Totals(summary)
        let stamp = JSONValue.int(millisNow())
        var result: [JSONValue] = [.object(["key": .string("AccountCode"), "value": .string(ib), "timestamp": stamp])]
        let amounts: [(String, FixedDecimal)] = [
            ("NetLiquidation", t.equity), ("TotalCashValue", t.cash), ("SettledCash", t.settled),
            ("AvailableFunds", t.buyingPower), ("BuyingPower", t.buyingPower), ("GrossPositionValue", t.marketValue),
            ("EquityWithLoanValue", t.equity), ("ExcessLiquidity", t.buyingPower), ("UnrealizedPnL", t.unrealized),
            ("RealizedPnL", t.realized),
        ]
        for (key, value) in amounts {
            result.append(
                .object([
                    "key": .string(key), "monetaryValue": IBEncoding.money(value), "currency": .string(t.currency),
                    "timestamp": stamp,
                ]))
        }
        try await send(.object(["topic": .string("ssd+" + ib), "result": .array(result)]))
    }

    static func sendLedger(
        _ id: AccountID, ib: String, gateway: IBGateway, send: @Sendable (JSONValue) async throws -> Void
    ) async throws {
        let summary = try await gateway.accountService.summary(id)
        let now = gateway.market.clock.now()
        var entries: [JSONValue] = []
        for (_, ledger) in (IBEncoding.ledger(ib, summary, at: now).object ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard case .object(var entry) = ledger else { continue }
            entry["acctCode"] = .string(ib)
            entries.append(.object(entry))
        }
        try await send(.object(["topic": .string("sld+" + ib), "result": .array(entries)]))
    }
}
