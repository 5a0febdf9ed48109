import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import Prometheus

/// Prometheus metrics for the whole process, served at GET /metrics.
///
/// swift-metrics is process-wide: `bootstrap()` installs the Prometheus factory once (the `serve` command calls
/// it before anything records; tests call it before building the application they read metrics from). Until then
/// every counter is a no-op. What is recorded, by whom:
/// - `http_server_request_duration_seconds`, `hb_requests_total`, `hb_request_errors_total` by route, method and
///   status (Hummingbird's MetricsMiddleware); `http_server_active_requests`.
/// - `papertrade_orders_placed_total`, `papertrade_orders_rejected_total{reason}`, `papertrade_orders_filled_total`,
///   `papertrade_queue_rules_evaluated_total`, `papertrade_queue_rules_fired_total` (the brokerage).
/// - `papertrade_journal_commit_seconds` and `papertrade_journal_group_size` (the group-commit writer).
/// - `papertrade_websocket_clients` (the WebSocket streams).
public enum PrometheusExport {
    public static let registry = PrometheusCollectorRegistry()

    private static let installed: Void = {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Prometheus names allow [a-zA-Z0-9_:]; swift-metrics labels from libraries use dots.
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitize(name), labels.map { (sanitize($0.0), $0.1) })
        }
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500),
        ]
        factory.defaultValueHistogramBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        MetricsSystem.bootstrap(factory)
    }()

    /// Installs the Prometheus factory (once per process; later calls do nothing).
    public static func bootstrap() { _ = installed }

    static func sanitize(_ name: String) -> String {
        String(
            name.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", ":": return Character(scalar)
                default: return "_"
                }
            })
    }

    /// The text exposition format, version 0.0.4.
    static func response() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
}

/// Gives every request an id and logs with it: the id (the client's `X-Request-ID` when it sends a reasonable one,
/// else Hummingbird's) goes into the logger's metadata as `request_id`, so every line logged while answering carries
/// it, and back to the client in `X-Request-ID`. Each request is logged at debug level (method, route, status,
/// duration); server errors at error level.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let id = request.headers[Self.header].flatMap(Self.acceptable) ?? context.id
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Answered here rather than by the server, so the error's answer carries the id too.
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.header] = id
        log(request, context: context, status: response.status, since: started)
        return response
    }

    func log(_ request: Request, context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant)
    {
        let level: Logger.Level = status.code >= 500 ? .error : .debug
        guard context.logger.logLevel <= level else { return }
        let milliseconds = (ContinuousClock.now - started) / .milliseconds(1)
        context.logger.log(
            level: level, "request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "status": .stringConvertible(status.code), "duration_ms": .string(String(format: "%.3f", milliseconds)),
            ])
    }

    /// A client's id, if it is short printable ASCII (it is echoed in a header and written to logs).
    static func acceptable(_ text: String) -> String? {
        guard (1...128).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return text
    }
}

/// Counts connected WebSocket clients per stream (`papertrade_websocket_clients{stream}`).
enum WebSocketClients {
    static func counting(_ stream: String, _ body: () async throws -> Void) async throws {
        let clients = Meter(label: "papertrade_websocket_clients", dimensions: [("stream", stream)])
        clients.increment()
        defer { clients.decrement() }
        try await body()
    }
}
