import ArgumentParser
import Foundation
import PapertradeKit
import PapertradeMCP

/// `papertrade mcp`: an MCP server on standard input and output for desktop agents (Claude Desktop, Cursor, the
/// Python `mcp` client…), trading the API key's account on the server at PAPERTRADE_URL.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve MCP tools on stdin/stdout for an AI agent (the API key's account).",
        discussion: """
            The agent's MCP client starts this command; its key and server come from the environment:
              {"mcpServers": {"papertrade": {"command": "papertrade", "args": ["mcp"],
                "env": {"PAPERTRADE_URL": "http://127.0.0.1:8080", "APCA_API_KEY_ID": "PK…",
                        "APCA_API_SECRET_KEY": "…"}}}}
            With --read-only only the reading tools are offered. A running server also serves the same tools over
            Streamable HTTP at /mcp (and /mcp/read-only), with the key in the APCA-API-KEY-ID and
            APCA-API-SECRET-KEY headers.
            """)

    @Option(help: "Server URL (env PAPERTRADE_URL; default http://127.0.0.1:8080).") var server: String?
    @Option(name: .customLong("key-id"), help: "API key id (env APCA_API_KEY_ID).") var keyID: String?
    @Option(name: .customLong("secret-key"), help: "API secret (env APCA_API_SECRET_KEY).") var secretKey: String?
    @Flag(name: .customLong("read-only"), help: "Offer only the tools that read (no orders, no cancels).")
    var readOnly = false

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let text = server ?? env["PAPERTRADE_URL"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("the server URL must start with http:// or https:// (got \(text))")
        }
        guard let key = keyID ?? env["APCA_API_KEY_ID"], let secret = secretKey ?? env["APCA_API_SECRET_KEY"] else {
            throw ValidationError("give --key-id and --secret-key (or APCA_API_KEY_ID and APCA_API_SECRET_KEY)")
        }
        try await PapertradeMCP.runStdio(
            client: PapertradeClient(baseURL: url, keyID: key, secretKey: secret), readOnly: readOnly)
    }
}
