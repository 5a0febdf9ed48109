import Foundation
import Logging
import MCP
import PapertradeKit

/// papertrade's MCP server: the tools of `ToolCatalogue` over a PapertradeKit client that holds the agent's API key.
/// Two transports share it: standard input and output (`papertrade mcp`, for desktop agents) and Streamable HTTP at
/// the server's `/mcp` (`handle(_:client:readOnly:)`, stateless: no protocol session, so any node behind a load
/// balancer answers any request).
public enum PapertradeMCP {
    public static let serverName = "papertrade"
    /// The tool set's version, told to clients in `initialize`.
    public static let version = "1.0"

    /// What an agent reads first: what papertrade is and how to use the tools well.
    static let instructions = """
        papertrade is a paper-trading brokerage: simulated money, US stocks and China A-shares, a simulated market or \
        real data. The tools act on the account of the API key they were given. Orders are real orders on the paper \
        account: check an order's status (get_order_by_id, get_orders) before saying it filled, and read a refusal's \
        message — it names the rule (buying power, market hours, price limits, lot size, the game's rules). Amounts \
        are exact decimals: send prices and quantities as strings ("182.35") to keep every digit.
        """

    /// The names of the tools a server offers (all, or only the reading ones).
    public static func toolNames(readOnly: Bool) -> [String] {
        ToolCatalogue.all.filter { !readOnly || $0.effect == .reads }.map(\.name)
    }

    /// A server with the tools, acting through `client`. In read-only mode only reading tools are listed, and a call
    /// to another is refused as a tool error.
    public static func makeServer(client: PapertradeClient, readOnly: Bool) async -> Server {
        let server = Server(
            name: serverName, version: version, title: "papertrade paper trading", instructions: instructions,
            capabilities: .init(tools: .init(listChanged: false)))
        let tools = ToolCatalogue.all.filter { !readOnly || $0.effect == .reads }.map(\.tool)
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: tools) }
        await server.withMethodHandler(CallTool.self) { params in
            guard let definition = ToolCatalogue.byName[params.name] else {
                throw MCPError.invalidParams("unknown tool \(params.name)")
            }
            if readOnly, definition.effect != .reads {
                return failure("this papertrade MCP server is read-only: \(params.name) is not available")
            }
            return await call(definition, ToolArguments(params.arguments), client: client)
        }
        return server
    }

    /// Runs a tool: the server's JSON as text, or — for a refusal or a wrong argument — an error result with the
    /// message, so the agent can correct itself (never a protocol error).
    static func call(_ definition: ToolDefinition, _ arguments: ToolArguments, client: PapertradeClient) async
        -> CallTool.Result
    {
        do {
            let data = try await definition.run(arguments, client)
            return .init(content: [.text(text: String(decoding: data, as: UTF8.self), annotations: nil, _meta: nil)])
        } catch let failure as ToolFailure {
            return self.failure(failure.message)
        } catch let error as PapertradeError {
            switch error {
            case .server(let status, let code, let message):
                return failure("refused (\(status)\(code.map { ", code \($0)" } ?? "")): \(message)")
            default: return failure(error.description)
            }
        } catch {
            return failure("\(error)")
        }
    }

    static func failure(_ message: String) -> CallTool.Result {
        .init(content: [.text(text: message, annotations: nil, _meta: nil)], isError: true)
    }

    /// Serves MCP on standard input and output until the client closes them. Logs go to standard error only.
    public static func runStdio(client: PapertradeClient, readOnly: Bool) async throws {
        let server = await makeServer(client: client, readOnly: readOnly)
        let logger = Logger(label: "papertrade.mcp") { StreamLogHandler.standardError(label: $0) }
        try await server.start(transport: CheckedTransport(StdioTransport(logger: logger), logger: logger))
        await server.waitUntilCompleted()
        await server.stop()
    }

    /// One Streamable HTTP exchange (POST /mcp), statelessly: a server is made for the request, with a client holding
    /// the caller's key, answers it, and is gone. GET (a server-to-client stream) and DELETE (a session's end) have
    /// nothing to do without sessions: 405, which clients take as "no stream".
    public static func handle(_ request: HTTPExchange, client: PapertradeClient, readOnly: Bool) async
        -> HTTPExchange.Answer
    {
        if let body = request.body, case .answer(let error) = JSONRPCEnvelope.check(body) {
            return HTTPExchange.Answer(
                status: JSONRPCEnvelope.httpStatus(of: error), headers: ["Content-Type": "application/json"],
                body: error)
        }
        let transport = StatelessHTTPServerTransport(
            validationPipeline: StandardValidationPipeline(validators: [
                AcceptHeaderValidator(mode: .jsonOnly), ContentTypeValidator(), ProtocolVersionValidator(),
            ]))
        let server = await makeServer(client: client, readOnly: readOnly)
        do { try await server.start(transport: transport) } catch {
            return HTTPExchange.Answer(status: 500, headers: [:], body: Data("\(error)".utf8))
        }
        let response = await transport.handleRequest(
            HTTPRequest(method: request.method, headers: request.headers, body: request.body, path: request.path))
        await server.stop()
        return HTTPExchange.Answer(status: response.statusCode, headers: response.headers, body: response.bodyData)
    }
}

/// An HTTP request and answer as the MCP endpoint sees them, free of any server framework's types.
public struct HTTPExchange: Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, path: String, headers: [String: String], body: Data?) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data?
    }
}
