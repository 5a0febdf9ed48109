import Foundation
import JSON

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request from a client command (`queue`, `game`) to a running server: the JSON body and the headers of a 2xx
/// answer, or a failure carrying the server's own message.
enum ServerClient {
    static func send(
        base: String, _ method: String, _ path: String, headers: [String: String] = [:], body: JSONValue? = nil
    ) async throws -> (json: JSONValue, headers: [String: String]) {
        guard let url = URL(string: base + path) else { throw CLIError("bad server URL \(base)") }
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serializedBytes)
        }
        let (data, response): (Data, URLResponse)
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw CLIError("cannot reach \(base): \(error.localizedDescription)")
        }
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        let json = (try? JSONValue(parsing: Array(data))) ?? .null
        guard (200..<300).contains(status) else {
            throw CLIError("\(status): \(json["message"]?.string ?? String(decoding: data, as: UTF8.self))")
        }
        var answer: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { answer[name] = value }
        }
        return (json, answer)
    }
}
