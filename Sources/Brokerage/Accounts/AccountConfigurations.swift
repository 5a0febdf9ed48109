import BrokerageModel
import TradingCore

/// Per-account settings a client may change (Alpaca's /v2/account/configurations), kept as the JSON object the
/// client last saved: the Alpaca surface owns their names, defaults and types.
public struct AccountConfigurations: Sendable {
    let storage: any AccountRepository

    /// The saved object's JSON text, or nil when the account never changed its configuration.
    public func saved(_ account: AccountID) async throws(BrokerageError) -> String? {
        try await stored { try await storage.accountConfiguration(account) }
    }

    public func save(_ account: AccountID, json: String) async throws(BrokerageError) {
        try await stored { try await storage.saveAccountConfiguration(account, body: json) }
    }
}
