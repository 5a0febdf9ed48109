import JSON
import MarketData

/// papertrade's HTTP API as one OpenAPI 3.1 document, served at /openapi.json: the native API (`NativeOpenAPI`) and
/// the Alpaca-compatible surface (`AlpacaOpenAPI`), each described in its own folder. `normalized` adds the statuses every operation of a kind
/// answers, so each operation lists only its own; `allowedMethods` answers 405s from the same paths.
enum OpenAPIDocument {
    /// An operation; `security` names a scheme group: "session" (the web app's cookie), "alpaca" (the key headers).
    static func operation(
        _ summary: String, security: String? = nil, parameters: [JSONValue] = [], body: JSONValue? = nil,
        responses: [String: String]
    ) -> JSONValue {
        var o: [String: JSONValue] = [
            "summary": .string(summary),
            "responses": .object(responses.mapValues { .object(["description": .string($0)]) }),
        ]
        if !parameters.isEmpty { o["parameters"] = .array(parameters) }
        switch security {
        case "session": o["security"] = .array([.object(["session": .array([])])])
        case "alpaca": o["security"] = .array([.object(["alpacaKeyID": .array([]), "alpacaSecretKey": .array([])])])
        default: break
        }
        if let body {
            o["requestBody"] = .object([
                "required": .bool(true), "content": .object(["application/json": .object(["schema": body])]),
            ])
        }
        return .object(o)
    }

    static func parameter(
        _ name: String, in location: String, required: Bool, _ description: String,
        schema: JSONValue = OpenAPISchema.string
    ) -> JSONValue {
        .object([
            "name": .string(name), "in": .string(location), "required": .bool(required),
            "description": .string(description), "schema": schema,
        ])
    }

    /// The whole document: native and Alpaca paths, with the statuses they share.
    static let document: JSONValue = {
        guard case .object(var root) = NativeOpenAPI.document,
            case .object(var components) = root["components"] ?? .null,
            case .object(var schemes) = components["securitySchemes"] ?? .null,
            case .object(let nativePaths) = root["paths"] ?? .null
        else { return NativeOpenAPI.document }
        for (name, header) in [("alpacaKeyID", "APCA-API-KEY-ID"), ("alpacaSecretKey", "APCA-API-SECRET-KEY")] {
            schemes[name] = .object(["type": .string("apiKey"), "in": .string("header"), "name": .string(header)])
        }
        components["securitySchemes"] = .object(schemes)
        if case .object(let schemas) = components["schemas"] ?? .null {
            components["schemas"] = .object(schemas.merging(NativeOpenAPI.classSchemas) { a, _ in a })
        }
        root["components"] = .object(components)
        root["info"] = .object([
            "title": .string("papertrade API"), "version": .string("1"),
            "description": .string(
                "The Alpaca-compatible API (/v2, /v3, /v1beta1, /v1; key headers) and the native API the web app uses (/api/v1; session cookie). Decimals are JSON strings."
            ),
        ])
        let native = nativePaths.merging(NativeOpenAPI.classPaths) { a, _ in a }
        root["paths"] = .object(normalized(native.merging(AlpacaOpenAPI.paths) { a, _ in a }))
        // WebSockets have no operations in OpenAPI: they are listed beside the paths.
        root["x-websockets"] = AlpacaOpenAPI.streams
        return .object(root)
    }()

    /// Adds what every operation of a kind answers: 401 when it needs credentials, 404 when its path names a thing
    /// (or the account behind a key or session), 422 when it takes parameters or a body, 429 for Alpaca's rate limit.
    static func normalized(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        paths.mapValues { item in
            guard case .object(let methods) = item else { return item }
            return .object(
                Dictionary(
                    uniqueKeysWithValues: methods.map { method, op in (method, normalizedOperation(method, op)) }))
        }
    }

    static func normalizedOperation(_ method: String, _ op: JSONValue) -> JSONValue {
        guard case .object(var o) = op, case .object(var responses) = o["responses"] ?? .null else { return op }
        func add(_ code: String, _ description: String) {
            if responses[code] == nil { responses[code] = .object(["description": .string(description)]) }
        }
        let secured = o["security"] != nil
        if secured { add("401", "missing or wrong credentials") }
        if secured || (o["parameters"]?.array ?? []).contains(where: { $0["in"]?.string == "path" }) {
            add("404", "not found")
        }
        if o["parameters"] != nil || o["requestBody"] != nil { add("422", "invalid parameters or body") }
        // Anything but a GET may take a JSON body; one that is not JSON (or not the expected shape) is a 400.
        if method != "get" { add("400", "the body is not the JSON the operation takes") }
        if case .array(let security) = o["security"] ?? .null, security.contains(where: { $0["alpacaKeyID"] != nil }) {
            add("429", "rate limit exceeded")
        }
        o["responses"] = .object(responses)
        return .object(o)
    }

    /// The methods the document declares for a request path, or nil when no path matches.
    static func allowedMethods(for path: String) -> [String]? { methods.allowed(for: path) }

    static let methods = OpenAPIMethodTable(document)
}

/// The methods an OpenAPI document declares per path, to answer a known path asked with another method with a 405
/// and the methods it has (both documents: /openapi.json and the IB gateway's).
struct OpenAPIMethodTable: Sendable {
    let paths: [([Substring], [String])]

    init(_ document: JSONValue) {
        guard case .object(let paths) = document["paths"] ?? .null else {
            self.paths = []
            return
        }
        self.paths = paths.map { path, item in
            let methods = (item.object?.keys.map { $0.uppercased() } ?? []).sorted()
            return (Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()), methods)
        }
    }

    /// The methods for a request path (path templates match any one segment per `{parameter}`; the most literal
    /// match wins), or nil when no path matches.
    func allowed(for path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var best: (literal: Int, methods: [String])?
        for (template, methods) in paths {
            guard template.count == segments.count else { continue }
            var literal = 0
            var matches = true
            for (t, s) in zip(template, segments) {
                if t.hasPrefix("{") && t.hasSuffix("}") {
                    if s.isEmpty { matches = false }
                } else if t == s {
                    literal += 1
                } else {
                    matches = false
                }
                if !matches { break }
            }
            if matches, literal > (best?.literal ?? -1) { best = (literal, methods) }
        }
        return best?.methods
    }
}
