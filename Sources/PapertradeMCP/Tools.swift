import Foundation
import MCP
import PapertradeKit

/// papertrade's MCP tools. Where Alpaca's MCP server has a tool for the same thing it keeps Alpaca's name and
/// Alpaca's argument names (`symbol`, `qty`, `side`, `type`, `time_in_force`, `limit_price`…), and the tool calls the
/// same Alpaca-compatible endpoint, so prompts and agents written for Alpaca work unchanged; papertrade's own tools
/// (search, performance, games, alerts, queue rules, backtests) call the native API. Every call goes through the
/// server's HTTP API with the agent's key, so authentication, rate limits and game rules apply as to any client.
struct ToolDefinition: Sendable {
    enum Effect: Sendable {
        /// Reads only: offered in read-only mode.
        case reads
        /// Adds something (an order, a watchlist, an alert, a job).
        case adds
        /// Cancels, closes or exercises: cannot be undone.
        case destroys
    }

    let name: String
    let title: String
    let description: String
    let properties: [String: Value]
    let required: [String]
    let effect: Effect
    /// Calling it twice with the same arguments has the effect of once (a cancel, a read).
    let idempotent: Bool
    let run: @Sendable (ToolArguments, PapertradeClient) async throws -> Data

    var tool: Tool {
        var schema: [String: Value] = [
            "type": "object", "properties": .object(properties), "additionalProperties": false,
        ]
        if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
        return Tool(
            name: name, title: title, description: description, inputSchema: .object(schema),
            annotations: .init(
                title: title, readOnlyHint: effect == .reads, destructiveHint: effect == .destroys,
                idempotentHint: idempotent, openWorldHint: false))
    }
}

/// JSON Schema fragments for the tools' arguments.
enum Schema {
    static func string(_ description: String, values: [String]? = nil) -> Value {
        var o: [String: Value] = ["type": "string", "description": .string(description)]
        if let values { o["enum"] = .array(values.map { .string($0) }) }
        return .object(o)
    }

    /// An exact amount: a string ("182.5") or a number.
    static func amount(_ description: String) -> Value {
        .object([
            "type": .array(["string", "number"]),
            "description": .string(description + " A string keeps every digit exact (\"182.35\")."),
        ])
    }

    static func integer(_ description: String, minimum: Int = 1, maximum: Int? = nil) -> Value {
        var o: [String: Value] = ["type": "integer", "description": .string(description), "minimum": .int(minimum)]
        if let maximum { o["maximum"] = .int(maximum) }
        return .object(o)
    }

    static func boolean(_ description: String) -> Value {
        .object(["type": "boolean", "description": .string(description)])
    }

    /// A list of symbols: an array, or one comma-separated string.
    static func symbols(_ description: String) -> Value {
        .object([
            "anyOf": .array([
                .object(["type": "array", "items": .object(["type": "string"])]), .object(["type": "string"]),
            ]),
            "description": .string(description + " An array, or one comma-separated string (\"AAPL,MSFT\")."),
        ])
    }

    static let symbol = string("A ticker (AAPL) or an A-share code (600519).")
    static let timeInForce = string(
        "day, gtc, ioc, fok, opg or cls.", values: ["day", "gtc", "ioc", "fok", "opg", "cls"])
    static let side = string("buy or sell.", values: ["buy", "sell"])
    static let date = string("A date, YYYY-MM-DD.")
    static let time = string("A date (YYYY-MM-DD) or an RFC 3339 time.")
}

extension PapertradeClient {
    /// A GET with the query's non-nil items.
    func get(_ path: String, _ query: [String: String?] = [:]) async throws(PapertradeError) -> Data {
        try await rawRequest("GET", path: path, query: Self.queryItems(query))
    }

    func call(_ method: String, _ path: String, body: [String: Any?]? = nil) async throws(PapertradeError) -> Data {
        var data: Data?
        if let body {
            let present = body.compactMapValues { $0 }
            do { data = try JSONSerialization.data(withJSONObject: present, options: [.sortedKeys]) } catch {
                throw .decoding("\(error)")
            }
        }
        return try await rawRequest(method, path: path, body: data)
    }

    static func queryItems(_ query: [String: String?]) -> [URLQueryItem] {
        query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }.sorted {
            $0.name < $1.name
        }
    }

    static func path(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
