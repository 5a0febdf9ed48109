import CompressNIO
import Crypto
import Foundation
import Hummingbird
import NIOCore

/// The web app's files, served from memory: our own ES modules, CSS, manifest and icons (Sources/Server/Web,
/// bundled as a resource) and the chart library that `scripts/fetch-web-vendor.sh` fetches into
/// `.build/web-vendor/` (third-party code is never committed).
///
/// URLs: `/` (index.html), `/sw.js` (the service worker must sit at the root to control the whole app),
/// `/manifest.webmanifest`, `/app/…` (everything else of ours), `/vendor/lightweight-charts.js`.
/// Every answer carries a strong ETag and `Cache-Control: no-cache`, so browsers revalidate cheaply and never run
/// a stale build; the service worker keeps a copy for offline starts. Text files are gzipped once, when loaded, and
/// sent so to a browser that accepts it (a phone's first start downloads a third of the bytes).
public struct WebApp: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        /// The body gzipped, for text that shrinks by it (nil for images and tiny files).
        let gzipped: ByteBuffer?
        let contentType: String
        let etag: String
    }

    let assets: [String: Asset]
    /// Where the chart library was found, or nil (the app then says charts are unavailable).
    public let chartLibrary: String?

    static let chartLibraryFile = "lightweight-charts.js"

    /// Loads the bundled web app (or `webDirectory`, for working on the app without rebuilding) and the chart library
    /// from `vendorDirectory` or the first `.build/web-vendor` found above the executable or the working directory.
    public static func load(webDirectory: String? = nil, vendorDirectory: String? = nil) -> WebApp {
        var assets: [String: Asset] = [:]
        let root = webDirectory ?? Bundle.module.resourceURL?.appendingPathComponent("Web").path
        if let root {
            let rootURL = URL(fileURLWithPath: root).standardizedFileURL
            let files = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = files?.nextObject() as? URL {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                    let data = FileManager.default.contents(atPath: url.path)
                else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(rootURL.path.count))
                assets[urlPath(forFile: relative)] = asset(data, name: relative)
            }
        }
        var chartLibrary: String?
        for directory in vendorDirectories(vendorDirectory) {
            let path = directory + "/" + chartLibraryFile
            if let data = FileManager.default.contents(atPath: path) {
                assets["/vendor/" + chartLibraryFile] = asset(data, name: chartLibraryFile)
                chartLibrary = path
                break
            }
        }
        return WebApp(assets: assets, chartLibrary: chartLibrary)
    }

    /// `/index.html` is served at `/`, `/sw.js` and `/manifest.webmanifest` at the root, everything else under `/app`.
    static func urlPath(forFile relative: String) -> String {
        switch relative {
        case "/index.html": return "/"
        case "/sw.js", "/manifest.webmanifest": return relative
        default: return "/app" + relative
        }
    }

    static func vendorDirectories(_ explicit: String?) -> [String] {
        if let explicit { return [explicit] }
        var candidates: [String] = []
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("web-vendor").path)
            candidates.append(directory.appendingPathComponent(".build/web-vendor").path)
            directory.deleteLastPathComponent()
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/web-vendor")
        return candidates
    }

    static func asset(_ data: Data, name: String) -> Asset {
        let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
        let type = contentType(name)
        let body = ByteBuffer(bytes: data)
        return Asset(body: body, gzipped: gzip(body, type: type), contentType: type, etag: "\"\(digest)\"")
    }

    /// `body` gzipped, when it is text of a kilobyte or more and the result is smaller.
    static func gzip(_ body: ByteBuffer, type: String) -> ByteBuffer? {
        let text = type.hasPrefix("text/") || type.hasPrefix("application/") || type.hasPrefix("image/svg")
        guard text, body.readableBytes >= 1024 else { return nil }
        var input = body
        // The best compression: it is done once, when the files load, and every first visit downloads the result.
        let best = ZlibConfiguration(compressionLevel: 9, memoryLevel: 9)
        guard let packed = try? input.compress(with: .gzip(configuration: best)),
            packed.readableBytes < body.readableBytes
        else {
            return nil
        }
        return packed
    }

    /// Whether the request's Accept-Encoding takes gzip (not refused with `q=0`).
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let accepted = request.headers[.acceptEncoding] else { return false }
        for item in accepted.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" else { continue }
            return !parts.dropFirst().contains {
                $0.hasPrefix("q=") && $0.dropFirst(2).allSatisfy { "0.".contains($0) }
            }
        }
        return false
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last ?? "" {
        case "html": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "webmanifest": return "application/manifest+json"
        case "json": return "application/json"
        case "txt", "md": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// What a browser may load: only this origin (plus https images for provider logos); scripts never inline.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        + "img-src 'self' data: https:; connect-src 'self' ws: wss:; manifest-src 'self'; worker-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func response(path: String, request: Request) -> Response? {
        guard let asset = assets[path] else { return nil }
        // The gzipped body is another representation of the file: its own ETag (as a cache keyed by Vary needs).
        let gzipped = asset.gzipped.flatMap { Self.acceptsGzip(request) ? $0 : nil }
        let etag = gzipped == nil ? asset.etag : String(asset.etag.dropLast()) + "-gz\""
        var headers: HTTPFields = [
            .contentType: asset.contentType, .eTag: etag, .cacheControl: "no-cache",
            .literal("X-Content-Type-Options"): "nosniff", .literal("Referrer-Policy"): "same-origin",
        ]
        if asset.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        if asset.contentType.hasPrefix("text/html") {
            headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        }
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        if gzipped != nil { headers[.contentEncoding] = "gzip" }
        let bytes = gzipped ?? asset.body
        headers[.contentLength] = String(bytes.readableBytes)
        let body: ResponseBody = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: bytes)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Adds the routes: `/`, `/sw.js`, `/manifest.webmanifest`, `/app/**`, `/vendor/**`.
    func addRoutes(to router: Router<AppContext>) {
        let app = self
        @Sendable func serve(_ request: Request, _ context: AppContext) throws -> Response {
            guard let response = app.response(path: request.uri.path, request: request) else {
                if request.uri.path.hasPrefix("/vendor/") {
                    throw APIError.notFound("chart library not installed: run scripts/fetch-web-vendor.sh")
                }
                throw APIError.notFound("no such file: \(request.uri.path)")
            }
            return response
        }
        for path in ["/", "sw.js", "manifest.webmanifest", "app/**", "vendor/**"] {
            router.get(RouterPath(path)) { request, context in try serve(request, context) }
            router.head(RouterPath(path)) { request, context in try serve(request, context) }
        }
    }
}
