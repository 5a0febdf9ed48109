import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade queue add|list|cancel`: queue purchase against a running server, on PapertradeKit, with an account's
/// API key (the same key an Alpaca client uses) or a login.
struct Queue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue automatic orders on a running server (queue purchase).",
        subcommands: [Add.self, List.self, Cancel.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue an order that is placed automatically when a condition holds.",
            discussion: """
                --when takes: price>=X, price<=X, change>=X% , change<=X% (since the previous close), near-limit-up=X or \
                near-limit-up=X% (within X of limit-up), near-limit-down=X[%], limit-up (touches limit-up), \
                cross-above-ma=N, cross-below-ma=N (N daily bars).
                Example: papertrade queue add 600519 --qty 100 --when near-limit-up=1% --order-type limit-up
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "Ticker or A-share code.") var symbol: String
        @Option(help: "buy or sell.") var side = "buy"
        @Option(help: "Shares.") var qty: String?
        @Option(help: "Amount of money instead of shares.") var notional: String?
        @Option(help: "The condition (see below).") var when: String
        @Option(name: .customLong("order-type"), help: "market, limit (with --limit-price) or limit-up.")
        var orderType = "market"
        @Option(name: .customLong("limit-price")) var limitPrice: String?
        @Option(help: "Keep the rule until the end of this trading day (YYYY-MM-DD).") var until: String?
        @Option(help: "Only for this session (YYYY-MM-DD, today's trading date).") var session: String?

        func request() throws -> QueueRuleRequest {
            func decimal(_ text: String?, _ what: String) throws -> Decimal? {
                guard let text else { return nil }
                guard let value = ExactDecimal.parse(text) else { throw ValidationError("\(what) must be a number") }
                return value
            }
            var rule = QueueRuleRequest(
                symbol: symbol, side: OrderSide(rawValue: side), qty: try decimal(qty, "--qty"),
                notional: try decimal(notional, "--notional"), condition: try Self.condition(when),
                orderType: orderType.replacingOccurrences(of: "-", with: "_"),
                limitPrice: try decimal(limitPrice, "--limit-price"))
            if let until { rule.lifetime = .init(type: "until", date: until) }
            if let session { rule.lifetime = .init(type: "session", date: session) }
            return rule
        }

        func validate() throws { _ = try request() }

        func run() async throws {
            try await clientCommand {
                let client = try await options.client()
                let rule = try await client.addQueueRule(
                    try request(), account: try await options.accountID(client, symbol: symbol))
                if options.json { return try options.printJSON(rule) }
                print(Queue.line(rule))
            }
        }

        static func condition(_ text: String) throws -> QueueRule.Condition {
            func value(_ type: String, _ raw: Substring) throws -> QueueRule.Condition {
                guard let amount = ExactDecimal.parse(String(raw)) else {
                    throw ValidationError("\(text): \(raw) is not a number")
                }
                return .init(type: type, value: .amount(amount))
            }
            let t = text.replacingOccurrences(of: " ", with: "").lowercased()
            if t == "limit-up" { return .touchesLimitUp }
            for (prefix, type) in [("price>=", "price_at_least"), ("price<=", "price_at_most")]
            where t.hasPrefix(prefix) {
                return try value(type, t.dropFirst(prefix.count))
            }
            for (prefix, type) in [("change>=", "change_percent_at_least"), ("change<=", "change_percent_at_most")]
            where t.hasPrefix(prefix) {
                return try value(type, t.dropFirst(prefix.count).replacingOccurrences(of: "%", with: "")[...])
            }
            for (prefix, side) in [("near-limit-up=", "up"), ("near-limit-down=", "down")] where t.hasPrefix(prefix) {
                let rest = t.dropFirst(prefix.count)
                return rest.hasSuffix("%")
                    ? try value("within_percent_of_limit_\(side)", rest.dropLast())
                    : try value("within_of_limit_\(side)", rest)
            }
            for (prefix, type) in [
                ("cross-above-ma=", "crosses_above_moving_average"),
                ("cross-below-ma=", "crosses_below_moving_average"),
            ] where t.hasPrefix(prefix) {
                guard let n = Int(t.dropFirst(prefix.count)) else {
                    throw ValidationError("\(prefix) needs a whole number of bars")
                }
                return .init(type: type, value: .bars(n))
            }
            throw ValidationError("unknown condition \(text); see papertrade queue add --help")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the queue (or, with --history, fired, failed and canceled rules).")
        @OptionGroup var options: ClientOptions
        @Flag(help: "Rules that left the queue.") var history = false

        func run() async throws {
            try await clientCommand {
                let client = try await options.client()
                let rules = try await client.queueRules(history: history, account: try await options.accountID(client))
                if options.json { return try options.printJSON(rules) }
                if rules.isEmpty { print(history ? "No history yet." : "The queue is empty.") }
                for rule in rules { print(Queue.line(rule)) }
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a queued rule.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The rule's id (from queue list).") var id: String

        func run() async throws {
            try await clientCommand {
                let client = try await options.client()
                let rule = try await client.cancelQueueRule(id, account: try await options.accountID(client))
                if options.json { return try options.printJSON(rule) }
                print(Queue.line(rule))
            }
        }
    }

    /// One rule on one line: id, status, what, when, current price and trigger level.
    static func line(_ r: QueueRule) -> String {
        let amount =
            r.qty.map { "\(Terminal.amount($0)) sh" } ?? r.notional.map { "\(Terminal.amount($0)) \(r.currency ?? "")" }
            ?? "?"
        let value: String
        switch r.condition.value {
        case .amount(let v)?: value = " \(Terminal.amount(v))"
        case .bars(let n)?: value = " \(n)"
        case nil: value = ""
        }
        var text =
            "\(r.id)  \(r.status)  \(r.side) \(amount) \(r.symbol)  when \(r.condition.type)\(value)  order \(r.orderType)"
            + "  price \(Terminal.amount(r.price))  trigger \(Terminal.amount(r.triggerLevel))"
        if let order = r.orderID { text += "  order_id \(order)" }
        if let message = r.message { text += "  (\(message))" }
        return text
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
