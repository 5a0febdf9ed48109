import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public struct HTTPRequest: Sendable, Hashable {
    public var url: String
    public var headers: [String: String]

    public init(url: String, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}

public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends GET requests for the provider adapters.
public protocol HTTPTransport: Sendable {
    func get(_ request: HTTPRequest, provider: String) async throws(FeedError) -> HTTPResponse
}

/// The real transport: URLSession, with a timeout; transport failures become `FeedError.transport`.
public struct URLSessionTransport: HTTPTransport {
    public var timeoutSeconds: Double

    public init(timeoutSeconds: Double = 10) { self.timeoutSeconds = timeoutSeconds }

    public func get(_ request: HTTPRequest, provider: String) async throws(FeedError) -> HTTPResponse {
        guard let url = URL(string: request.url) else {
            throw .transport(provider: provider, detail: "bad URL \(request.url)")
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: timeoutSeconds)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        do {
            let (data, response) = try await URLSession.shared.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else {
                throw FeedError.transport(provider: provider, detail: "not HTTP")
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
        } catch let error as FeedError {
            throw error
        } catch {
            throw .transport(provider: provider, detail: error.localizedDescription)
        }
    }
}
