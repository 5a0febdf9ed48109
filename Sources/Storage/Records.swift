import BrokerageModel
import Foundation
import JSON
import TradingCore

enum Coding {
    static func encode(_ value: some Encodable) throws -> String {
        try StreamingJSONEncoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do { return try JSONDecoder().decode(type, from: Data(text.utf8)) } catch {
            throw StorageError.corrupt("\(T.self): \(error)")
        }
    }
}
