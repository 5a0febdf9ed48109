import Brokerage
import Hummingbird
import HummingbirdWebSocket
import JSON
import Logging
import MarketData

/// Assembles the application: the HTTP and WebSocket surfaces over the brokerage, and its background services
/// (market pump, webhook and push dispatchers, journal flush at shutdown). `papertrade serve` runs it; tests drive it with
/// HummingbirdTesting and get the same services.
///
/// Shutdown (SIGTERM/SIGINT under `runService`) goes in reverse order of start: the HTTP server stops accepting and
/// answers the requests it has, then the dispatcher and the pump stop, then `JournalFlush` waits until every step
/// is durable; the caller closes the database after that (`Papertrade.shutdown`).
public func buildApplication(_ services: Papertrade, logger: Logger = Logger(label: "papertrade"))
    -> some ApplicationProtocol
{
    let router = Router(context: AppContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: RouteMetricsMiddleware())
    router.add(middleware: ErrorShapeMiddleware())
    router.get("healthz") { _, _ in JSONValue.object(["status": .string("ok")]).response() }
    router.get("metrics") { _, _ in PrometheusExport.response() }
    router.get("openapi.json") { _, _ in OpenAPIDocument.document.response() }
    services.web.addRoutes(to: router)

    // Alpaca's API versions share one per-key rate limit and the key authenticator.
    let rateLimiter =
        services.configuration.rateLimitPerMinute > 0
        ? RateLimiter(limit: services.configuration.rateLimitPerMinute) : nil
    func alpacaGroup(_ prefix: RouterPath) -> RouterGroup<AppContext> {
        var group = router.group(prefix)
        if let rateLimiter { group = group.add(middleware: RateLimitMiddleware(limiter: rateLimiter)) }
        return group.add(middleware: APIKeyAuthenticator(services: services))
    }
    let alpaca = alpacaGroup("v2")
    TradingController(services: services).addRoutes(to: alpaca)
    MarketDataController(services: services).addRoutes(to: alpaca)
    WatchlistsController(services: services).addRoutes(to: alpaca)
    PortfolioController(services: services).addRoutes(to: alpaca)
    CalendarController(services: services).addRoutes(v2: alpaca, v3: alpacaGroup("v3"))
    let v1beta1 = alpacaGroup("v1beta1")
    ScreenerController(services: services).addRoutes(to: v1beta1)
    NewsController(services: services).addRoutes(to: v1beta1)
    CorporateActionsController(services: services).addRoutes(v2: alpaca, v1: alpacaGroup("v1"))

    let native = router.group("api/v1").add(middleware: SessionAuthenticator(services: services))
        .add(middleware: UserLanguageMiddleware(languages: services.brokerage.languages))
    AuthController(services: services).addRoutes(to: native)
    MarketController(services: services).addRoutes(to: native)
    AccountsController(services: services).addRoutes(to: native)
    PerformanceController(services: services).addRoutes(to: native)
    NotificationsController(services: services).addRoutes(to: native)
    StockController(services: services).addRoutes(to: native)
    FavoritesController(services: services).addRoutes(to: native)
    QueueController(services: services).addRoutes(to: native)
    AlertsController(services: services).addRoutes(to: native)
    GamesController(services: services).addRoutes(to: native)
    BacktestsController(services: services).addRoutes(to: native)
    PushController(services: services).addRoutes(to: native)
    WebhookController(services: services).addRoutes(to: native)

    // WebSockets: Alpaca's trade_updates (JSON) and market-data (MessagePack) streams.
    let sockets = Router(context: BasicWebSocketRequestContext.self)
    sockets.ws("stream") { inbound, outbound, _ in
        try await WebSocketClients.counting("trade_updates") {
            try await TradeUpdatesStream.handle(inbound, outbound, services: services)
        }
    }
    sockets.ws("api/v1/ws") { inbound, outbound, context in
        try await WebSocketClients.counting("app") {
            try await AppSocket.handle(inbound, outbound, headers: context.request.headers, services: services)
        }
    }
    for feed in ["v2/iex", "v2/sip"] {
        sockets.ws(RouterPath(feed)) { inbound, outbound, _ in
            try await WebSocketClients.counting("market_data") {
                try await MarketDataStream.handle(inbound, outbound, services: services)
            }
        }
    }

    let configuration = ApplicationConfiguration(
        address: .hostname(services.configuration.host, port: services.configuration.port),
        serverName: "papertrade")
    var application = Application(
        router: router, server: .http1WebSocketUpgrade(webSocketRouter: sockets),
        configuration: configuration, logger: logger)
    application.addServices(JournalFlush(brokerage: services.brokerage))
    if services.configuration.runsMarketPump {
        application.addServices(MarketPump(brokerage: services.brokerage))
        application.addServices(EquityHistoryRecorder(brokerage: services.brokerage))
        application.addServices(MarginService(brokerage: services.brokerage))
        application.addServices(CorporateActionService(brokerage: services.brokerage))
        application.addServices(GameService(brokerage: services.brokerage))
    }
    if services.configuration.ib.port != nil {
        application.addServices(IBGatewayService(services: services, logger: logger))
    }
    application.addServices(
        WebhookDispatcher(brokerage: services.brokerage, addresses: services.configuration.outboundAddresses))
    application.addServices(
        PushDispatcher(
            brokerage: services.brokerage, key: services.vapid, contact: services.configuration.pushContact,
            addresses: services.configuration.outboundAddresses))
    return application
}

/// Answers unknown routes and unexpected errors in the API's error shape, never with an empty 500.
struct ErrorShapeMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as BrokerageError {
            throw APIError(error)
        } catch let error as HTTPError {
            // A path the API documents, asked with a method it does not declare: 405 with the methods it has.
            if error.status == .notFound, let allowed = OpenAPIDocument.allowedMethods(for: request.uri.path),
                !allowed.contains(request.method.rawValue)
            {
                var response = try APIError(
                    .methodNotAllowed, code: 40_500_000,
                    "method \(request.method.rawValue) is not allowed here; use \(allowed.joined(separator: ", "))"
                ).response(from: request, context: context)
                response.headers[.allow] = allowed.joined(separator: ", ")
                return response
            }
            throw APIError(
                error.status, code: Int(error.status.code) * 100_000 + 10_000, error.body ?? error.status.reasonPhrase)
        } catch {
            context.logger.error("unexpected error: \(error)")
            throw APIError(.internalServerError, code: 50000000, "internal error")
        }
    }
}
