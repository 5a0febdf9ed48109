import Foundation
import HTTPTypes
import HeapInfo
import Hummingbird
import Logging
import Metrics
import Prometheus
import Synchronization

/// Prometheus metrics for the whole process, served at GET /metrics.
///
/// swift-metrics is process-wide: `bootstrap()` installs the Prometheus factory once (the `serve` command calls
/// it before anything records; tests call it before building the application they read metrics from). Until then
/// every counter is a no-op. What is recorded, by whom:
/// - `http_requests_total` and `http_server_request_duration_seconds` by route, method and status
///   (`RouteMetricsMiddleware`).
/// - `papertrade_orders_placed_total`, `papertrade_orders_rejected_total{reason}`, `papertrade_orders_filled_total`,
///   `papertrade_queue_rules_evaluated_total`, `papertrade_queue_rules_fired_total`,
///   `papertrade_alerts_evaluated_total`, `papertrade_alerts_triggered_total` (the brokerage).
/// - `papertrade_journal_commit_seconds` and `papertrade_journal_group_size` (the group-commit writer).
/// - `papertrade_websocket_clients` (the WebSocket streams).
/// - `process_resident_memory_bytes`, `papertrade_heap_in_use_bytes` and `papertrade_heap_held_bytes`, read at each
///   scrape (`ProcessMemory`): what the process has resident, what its allocations hold, what the allocator holds
///   from the system for them — the three an operator needs to tell data from an allocator keeping freed memory.
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
        ProcessMemory.gauges.update()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
}

/// The process's memory, read when /metrics is scraped: resident pages (`/proc/self/statm`) and glibc's heap
/// (`mallinfo2`, through the small C target HeapInfo). Each read costs microseconds (mallinfo2 walks the arenas'
/// free lists), nothing between scrapes.
struct ProcessMemory {
    let resident: Prometheus.Gauge
    let heapInUse: Prometheus.Gauge
    let heapHeld: Prometheus.Gauge

    static let gauges = ProcessMemory(registry: PrometheusExport.registry)

    init(registry: PrometheusCollectorRegistry) {
        resident = registry.makeGauge(
            name: "process_resident_memory_bytes", help: "Resident memory of the process (its pages in RAM).")
        heapInUse = registry.makeGauge(
            name: "papertrade_heap_in_use_bytes", help: "Bytes allocated and not yet freed (glibc's mallinfo2).")
        heapHeld = registry.makeGauge(
            name: "papertrade_heap_held_bytes",
            help: "Bytes the allocator holds from the system, in use or free (its arenas and mmapped blocks).")
    }

    func update() {
        if let pages = Self.residentPages() { resident.set(Int64(pages * Int(sysconf(Int32(_SC_PAGESIZE))))) }
        let heap = papertrade_heap()
        heapInUse.set(Int64(heap.in_use))
        heapHeld.set(Int64(heap.held))
    }

    /// The second field of /proc/self/statm (nil where there is no /proc).
    static func residentPages() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? Int(fields[1]) : nil
    }
}

/// glibc's allocator raises its mmap and trim thresholds to the largest block freed so far (up to 32 MB on 64-bit),
/// after which freed memory stays on its free lists instead of going back to the system: under an hour of mixed load
/// the server's heap in use levelled off while its resident memory kept growing by what glibc held free (+1.0 MB/min
/// over the last third of 50 minutes; with the thresholds fixed at 128 KiB, +0.1 MB/min and 13 MB free instead of
/// 33 — docs/TESTING.md, "Soak"). The server fixes them at start unless the operator set glibc's own.
public enum AllocatorThresholds {
    /// Both thresholds: glibc's starting mmap threshold, kept from rising.
    public static let bytes = 131_072

    /// Fixes both thresholds unless `environment` sets them (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, or a
    /// malloc tunable in GLIBC_TUNABLES): the operator's choice wins. True when they were fixed here.
    @discardableResult
    public static func fix(environment: [String: String]) -> Bool {
        let chosen =
            environment["MALLOC_MMAP_THRESHOLD_"] != nil || environment["MALLOC_TRIM_THRESHOLD_"] != nil
            || (environment["GLIBC_TUNABLES"] ?? "").contains("glibc.malloc.")
        guard !chosen else { return false }
        return papertrade_heap_fix_thresholds(bytes, bytes) == 1
    }
}

/// Gives every request an id and logs with it. Hummingbird puts a fresh id in the logger's metadata
/// (`hb.request.id`), so every line logged while answering carries it; a client that sends its own `X-Request-ID`
/// (short printable ASCII) gets that one added as `request_id`. The id goes back in `X-Request-ID`. Requests are
/// logged at debug level (method, path, status, duration), server errors at error level. Measured with wrk on
/// /healthz: ~3% of its throughput (setting logger metadata on every request cost twice that).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name.literal("X-Request-ID") }

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let id: String
        if let own = request.headers[Self.header].flatMap(Self.acceptable) {
            id = own
            context.logger[metadataKey: "request_id"] = .string(own)
        } else {
            id = context.id
        }
        let started: ContinuousClock.Instant? = context.logger.logLevel <= .debug ? .now : nil
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Answered here rather than by the server, so the error's answer carries the id too.
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.header] = id
        if started != nil || response.status.code >= 500 {
            log(request, context: context, status: response.status, since: started)
        }
        return response
    }

    func log(_ request: Request, context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant?)
    {
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "status": .stringConvertible(status.code),
        ]
        if let started {
            metadata["duration_ms"] = .string(
                String(format: "%.3f", (ContinuousClock.now - started) / .milliseconds(1)))
        }
        context.logger.log(level: status.code >= 500 ? .error : .debug, "request", metadata: metadata)
    }

    /// A client's id, if it is short printable ASCII (it is echoed in a header and written to logs).
    static func acceptable(_ text: String) -> String? {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return nil
        }
        return text
    }
}

/// Request counts and latencies by route, method and status: `http_requests_total` and
/// `http_server_request_duration_seconds` (a histogram). Leaner than Hummingbird's MetricsMiddleware, which cost
/// ~20% of /healthz throughput here (two locked lookups, an active-requests gauge and a body wrapper per request):
/// one locked lookup per request, and the time is taken when the handler returns (answers are built in memory).
struct RouteMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let cache = RouteInstruments()

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status, since: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            record(request, context: context, status: status, since: started)
            throw error
        }
    }

    func record(
        _ request: Request, context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - started
        let instruments = cache.instruments(
            RouteInstruments.Key(
                route: context.endpointPath ?? "unmatched", method: request.method, status: status.code))
        instruments.requests.increment()
        instruments.duration.record(duration: elapsed)
    }
}

/// The counter and timer of each route, method and status seen, made on first use.
final class RouteInstruments: Sendable {
    struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }
    typealias Instruments = (requests: Metrics.Counter, duration: Metrics.Timer)
    private let made = Mutex<[Key: Instruments]>([:])

    func instruments(_ key: Key) -> Instruments {
        made.withLock { made in
            if let known = made[key] { return known }
            let dimensions = [("route", key.route), ("method", key.method.rawValue), ("status", String(key.status))]
            let new = (
                Metrics.Counter(label: "http_requests_total", dimensions: dimensions),
                Metrics.Timer(label: "http_server_request_duration_seconds", dimensions: dimensions)
            )
            made[key] = new
            return new
        }
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
