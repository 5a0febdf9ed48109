import ArgumentParser
import Foundation
import PapertradeKit

/// How a client command reaches a running server, on PapertradeKit: an account's API key (flags or
/// APCA_API_KEY_ID / APCA_API_SECRET_KEY, as the queue commands and every Alpaca client) or a user's login
/// (--username/--password or PAPERTRADE_USERNAME / PAPERTRADE_PASSWORD). A key trades its own account; a user picks
/// one with --account, or gets the account of the symbol's market (A-share codes → the A-share account).
struct ClientOptions: ParsableArguments {
    @Option(help: "Server URL (env PAPERTRADE_URL; default http://127.0.0.1:8080).") var server: String?
    @Option(name: .customLong("key-id"), help: "API key id (env APCA_API_KEY_ID).") var keyID: String?
    @Option(name: .customLong("secret-key"), help: "API secret (env APCA_API_SECRET_KEY).") var secretKey: String?
    @Option(help: "Log in as this user instead of a key (env PAPERTRADE_USERNAME).") var username: String?
    @Option(help: "The user's password (env PAPERTRADE_PASSWORD).") var password: String?
    @Option(help: "With a login: the account to use (its id); default the account of the symbol's market.")
    var account: String?
    @Flag(help: "Print JSON (the server's shapes) instead of a table.") var json = false

    var baseURL: URL {
        get throws {
            let text = server ?? ProcessInfo.processInfo.environment["PAPERTRADE_URL"] ?? "http://127.0.0.1:8080"
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw ValidationError("the server URL must start with http:// or https:// (got \(text))")
            }
            return url
        }
    }

    /// A client with the key, else logged in as the user.
    func client(needsUser: Bool = false) async throws -> PapertradeClient {
        let env = ProcessInfo.processInfo.environment
        let user = username ?? env["PAPERTRADE_USERNAME"]
        let pass = password ?? env["PAPERTRADE_PASSWORD"]
        if !needsUser, username == nil,
            let key = keyID ?? env["APCA_API_KEY_ID"], let secret = secretKey ?? env["APCA_API_SECRET_KEY"]
        {
            return PapertradeClient(baseURL: try baseURL, keyID: key, secretKey: secret)
        }
        guard let user, let pass else {
            throw ValidationError(
                needsUser
                    ? "log in: give --username and --password (or PAPERTRADE_USERNAME and PAPERTRADE_PASSWORD)"
                    : "give --key-id and --secret-key (or APCA_API_KEY_ID and APCA_API_SECRET_KEY), "
                        + "or --username and --password")
        }
        return try await PapertradeClient.login(baseURL: try baseURL, username: user, password: pass)
    }

    /// The account a command acts on: the key's own (nil lets the kit resolve it), --account, or for a login the
    /// account of `symbol`'s market (the first account when there is no symbol).
    func accountID(_ client: PapertradeClient, symbol: String? = nil) async throws -> String? {
        if let account { return account }
        guard case .session = client.credentials else { return nil }
        let accounts = try await client.accounts().filter { !$0.inGame }
        let market: Market = symbol.map(Self.market(of:)) ?? .us
        guard let chosen = accounts.first(where: { $0.market == market }) ?? accounts.first else {
            throw CLIError("this user has no account; open one in the web app")
        }
        return chosen.id
    }

    /// A-share codes are six digits (600519, 000338); everything else trades in the US.
    static func market(of symbol: String) -> Market {
        symbol.count == 6 && symbol.allSatisfy(\.isNumber) ? .cn : .us
    }

    /// Prints a model as the server's JSON.
    func printJSON(_ value: some Encodable) throws {
        let encoder = PapertradeJSON.encoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// Runs a client command. A refusal prints the server's message and its HTTP status on standard error and exits 1
/// ("papertrade: insufficient buying power … (403)"); a server out of reach exits 2.
func clientCommand(_ body: () async throws -> Void) async throws {
    do { try await body() } catch let error as PapertradeError {
        let status = error.status.map { " (\($0))" } ?? ""
        FileHandle.standardError.write(Data("papertrade: \(error.message)\(status)\n".utf8))
        throw ExitCode(error.status == nil ? 2 : 1)
    }
}
