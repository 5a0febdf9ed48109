import ArgumentParser
import Foundation
import JSON
import MarketData

/// `papertrade queue add|list|cancel`: queue purchase against a running server, with an account's API key
/// (the same key an Alpaca client uses).
struct Queue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue automatic orders on a running server (queue purchase).",
        subcommands: [Add.self, List.self, Cancel.self])

    struct Connection: ParsableArguments {
        @Option(help: "Server URL (env PAPERTRADE_URL; default http://127.0.0.1:8080).") var server: String?
        @Option(name: .customLong("key-id"), help: "API key id (env APCA_API_KEY_ID).") var keyID: String?
        @Option(name: .customLong("secret-key"), help: "API secret (env APCA_API_SECRET_KEY).") var secretKey: String?

        /// Sends a request; returns the JSON body of a 2xx answer, or fails with the server's message.
        func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
            let env = ProcessInfo.processInfo.environment
            let base = server ?? env["PAPERTRADE_URL"] ?? "http://127.0.0.1:8080"
            guard let key = keyID ?? env["APCA_API_KEY_ID"], let secret = secretKey ?? env["APCA_API_SECRET_KEY"] else {
                throw ValidationError("give --key-id and --secret-key (or APCA_API_KEY_ID and APCA_API_SECRET_KEY)")
            }
            return try await ServerClient.send(
                base: base, method, path, headers: ["APCA-API-KEY-ID": key, "APCA-API-SECRET-KEY": secret], body: body
            ).json
        }

        /// The key's account id.
        func accountID() async throws -> String {
            guard let id = try await send("GET", "/v2/account")["id"]?.string else {
                throw CLIError("the server did not say which account the key belongs to")
            }
            return id
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue an order that is placed automatically when a condition holds.",
            discussion: """
                --when takes: price>=X, price<=X, change>=X% , change<=X% (since the previous close), near-limit-up=X or \
                near-limit-up=X% (within X of limit-up), near-limit-down=X[%], limit-up (touches limit-up), \
                cross-above-ma=N, cross-below-ma=N (N daily bars).
                Example: papertrade queue add 600519 --qty 100 --when near-limit-up=1% --order-type limit-up
                """)

        @OptionGroup var connection: Connection
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

        func run() async throws {
            var body: [String: JSONValue] = [
                "symbol": .string(symbol), "side": .string(side),
                "condition": try Self.condition(when),
                "order_type": .string(orderType.replacingOccurrences(of: "-", with: "_")),
            ]
            if let qty { body["qty"] = .string(qty) }
            if let notional { body["notional"] = .string(notional) }
            if let limitPrice { body["limit_price"] = .string(limitPrice) }
            if let until { body["lifetime"] = .object(["type": .string("until"), "date": .string(until)]) }
            if let session { body["lifetime"] = .object(["type": .string("session"), "date": .string(session)]) }
            let account = try await connection.accountID()
            let rule = try await connection.send("POST", "/api/v1/accounts/\(account)/queue", body: .object(body))
            print(Queue.line(rule))
        }

        static func condition(_ text: String) throws -> JSONValue {
            func value(_ type: String, _ raw: Substring) -> JSONValue {
                .object(["type": .string(type), "value": .string(String(raw))])
            }
            let t = text.replacingOccurrences(of: " ", with: "").lowercased()
            if t == "limit-up" { return .object(["type": .string("touches_limit_up")]) }
            for (prefix, type) in [("price>=", "price_at_least"), ("price<=", "price_at_most")]
            where t.hasPrefix(prefix) {
                return value(type, t.dropFirst(prefix.count))
            }
            for (prefix, type) in [("change>=", "change_percent_at_least"), ("change<=", "change_percent_at_most")]
            where t.hasPrefix(prefix) {
                return value(type, t.dropFirst(prefix.count).replacingOccurrences(of: "%", with: "")[...])
            }
            for (prefix, side) in [("near-limit-up=", "up"), ("near-limit-down=", "down")] where t.hasPrefix(prefix) {
                let rest = t.dropFirst(prefix.count)
                return rest.hasSuffix("%")
                    ? value("within_percent_of_limit_\(side)", rest.dropLast()) : value("within_of_limit_\(side)", rest)
            }
            for (prefix, type) in [
                ("cross-above-ma=", "crosses_above_moving_average"),
                ("cross-below-ma=", "crosses_below_moving_average"),
            ] where t.hasPrefix(prefix) {
                guard let n = Int(t.dropFirst(prefix.count)) else {
                    throw ValidationError("\(prefix) needs a whole number of bars")
                }
                return .object(["type": .string(type), "value": .int(n)])
            }
            throw ValidationError("unknown condition \(text); see papertrade queue add --help")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the queue (or, with --history, fired, failed and canceled rules).")
        @OptionGroup var connection: Connection
        @Flag(help: "Rules that left the queue.") var history = false

        func run() async throws {
            let account = try await connection.accountID()
            let rules = try await connection.send(
                "GET", "/api/v1/accounts/\(account)/queue" + (history ? "/history" : ""))
            let list = rules.array ?? []
            if list.isEmpty { print(history ? "No history yet." : "The queue is empty.") }
            for rule in list { print(Queue.line(rule)) }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a queued rule.")
        @OptionGroup var connection: Connection
        @Argument(help: "The rule's id (from queue list).") var id: String

        func run() async throws {
            let account = try await connection.accountID()
            print(Queue.line(try await connection.send("DELETE", "/api/v1/accounts/\(account)/queue/\(id)")))
        }
    }

    /// One rule on one line: id, status, what, when, current price and trigger level.
    static func line(_ r: JSONValue) -> String {
        let amount =
            r["qty"]?.string.map { "\($0) sh" } ?? r["notional"]?.string.map { "\($0) \(r["currency"]?.string ?? "")" }
            ?? "?"
        let condition = r["condition"]?["type"]?.string ?? "?"
        let value = r["condition"]?["value"].map { v in v.string ?? v.int.map(String.init) ?? "" } ?? ""
        var text =
            "\(r["id"]?.string ?? "?")  \(r["status"]?.string ?? "?")  \(r["side"]?.string ?? "?") \(amount) \(r["symbol"]?.string ?? "?")"
            + "  when \(condition)\(value.isEmpty ? "" : " \(value)")  order \(r["order_type"]?.string ?? "?")"
            + "  price \(r["price"]?.string ?? "-")  trigger \(r["trigger_level"]?.string ?? "-")"
        if let order = r["order_id"]?.string { text += "  order_id \(order)" }
        if let message = r["message"]?.string { text += "  (\(message))" }
        return text
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
