import Brokerage
import Hummingbird
import HummingbirdWebSocket
import JSON
import Logging
import MarketData
import NIOCore

/// Assembles the application — the composition root: each controller, stream and background service is given the
/// parts it needs here, by hand (the brokerage, `UserAccess`, the VAPID key, the outbound address policy), and
/// nothing below reaches for anything else. Background services: journal flush, backtest jobs, market pump, equity
/// history, margin days, corporate actions, game endings, the IB listener, and the delivery outbox's dispatchers.
/// `papertrade serve` runs it; tests drive it with HummingbirdTesting and get the same services.
///
/// Shutdown (SIGTERM/SIGINT under `runService`) goes in reverse order of start: the HTTP server stops accepting and
/// answers the requests it has, then the dispatchers, the pump and the backtests stop, then `JournalFlush` waits
/// until every step is durable; the caller closes the database after that (`Papertrade.shutdown`).
public func buildApplication(_ parts: Papertrade, logger: Logger = Logger(label: "papertrade"))
    -> some ApplicationProtocol
{
    let configuration = parts.configuration
    // The composition root: the one place that holds the brokerage front. Each controller is handed the narrow
    // services it names (the brokerage implements the service protocols; `MarketView` is the market's read side).
    let brokerage = parts.brokerage
    let market = brokerage.marketView
    let events = AppEvents.Sources(
        market: market, accountService: brokerage, orderService: brokerage, notifications: brokerage.notifications)
    let leads: @Sendable () -> Bool = { brokerage.leadsCluster }
    let access = parts.access
    let router = Router(context: AppContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: RouteMetricsMiddleware())
    router.add(middleware: ErrorShapeMiddleware())
    if let node = parts.cluster { router.add(middleware: ClusterForwarding(node: node.settings.name)) }
    router.get("healthz") { _, _ in JSONValue.object(["status": .string("ok")]).response() }
    // Ready: this node has served the shards the cluster assigns it and is not leaving (a single process always is).
    // HAProxy checks it (`ClusterNode.isReady`).
    let node = parts.cluster
    router.get("readyz") { _, _ in
        guard let node else { return JSONValue.object(["status": .string("ready")]).response() }
        let served = node.servedShards
        return JSONValue.object([
            "status": .string(node.isReady ? "ready" : "not ready"), "node": .string(node.settings.name),
            "shards": .int(served),
        ]).response(status: node.isReady ? .ok : .serviceUnavailable)
    }
    router.get("metrics") { _, _ in PrometheusExport.response() }
    router.get("openapi.json") { _, _ in OpenAPIDocument.document.response() }
    parts.web.addRoutes(to: router)
    MCPController(access: access).addRoutes(to: router)
    ClockController(clock: market.clock, key: parts.clockKey).addRoutes(to: router)

    // Alpaca's API versions share one per-key rate limit and the key authenticator.
    let rateLimiter = configuration.rateLimitPerMinute > 0 ? RateLimiter(limit: configuration.rateLimitPerMinute) : nil
    func alpacaGroup(_ prefix: RouterPath) -> RouterGroup<AppContext> {
        var group = router.group(prefix)
        if let rateLimiter { group = group.add(middleware: RateLimitMiddleware(limiter: rateLimiter)) }
        return group.add(middleware: APIKeyAuthenticator(access: access, node: parts.cluster?.settings.name))
    }
    let alpaca = alpacaGroup("v2")
    TradingController(market: market, accountService: brokerage, orderService: brokerage).addRoutes(to: alpaca)
    MarketDataController(market: market).addRoutes(to: alpaca)
    CryptoDataController(data: MarketDataController(market: market)).addRoutes(to: alpacaGroup("v1beta3"))
    OptionContractsController(options: market.options).addRoutes(to: alpaca)
    WatchlistsController(market: market, watchlists: brokerage.watchlists).addRoutes(to: alpaca)
    PortfolioController(
        clock: market.clock, accountService: brokerage, orderService: brokerage,
        configurations: brokerage.configurations
    ).addRoutes(to: alpaca)
    CalendarController(clock: market.clock).addRoutes(v2: alpaca, v3: alpacaGroup("v3"))
    let v1beta1 = alpacaGroup("v1beta1")
    ScreenerController(market: market).addRoutes(to: v1beta1)
    NewsController(market: market).addRoutes(to: v1beta1)
    OptionMarketDataController(market: market).addRoutes(to: v1beta1)
    CorporateActionsController(market: market).addRoutes(v2: alpaca, v1: alpacaGroup("v1"))

    var native = router.group("api/v1").add(middleware: SessionAuthenticator(access: access))
        .add(middleware: UserLanguageMiddleware(languages: brokerage.languages))
    if let node = parts.cluster {
        native = native.add(middleware: AccountOwnerHint(accounts: brokerage, node: node.settings.name))
    }
    AuthController(clock: market.clock, accountService: brokerage, users: brokerage.users, access: access).addRoutes(
        to: native)
    MarketController(market: market).addRoutes(to: native)
    AccountsController(
        market: market, accountService: brokerage, orderService: brokerage, languages: brokerage.languages,
        access: access
    ).addRoutes(to: native)
    PerformanceController(accountService: brokerage, languages: brokerage.languages).addRoutes(to: native)
    NotificationsController(notifications: brokerage.notifications).addRoutes(to: native)
    EventStreamController(sources: events, watch: access.watch).addRoutes(to: native)
    StockController(market: market).addRoutes(to: native)
    OptionsController(market: market).addRoutes(to: native)
    FavoritesController(market: market, accountService: brokerage, watchlists: brokerage.watchlists).addRoutes(
        to: native)
    TransfersController(transfers: brokerage.transfers).addRoutes(to: native)
    QueueController(accountService: brokerage, queueService: brokerage).addRoutes(to: native)
    AlertsController(market: market, accountService: brokerage, alertService: brokerage).addRoutes(to: native)
    let gamesController = GamesController(
        clock: market.clock, accountService: brokerage, games: brokerage.games, users: brokerage.users, access: access)
    gamesController.addRoutes(to: native)
    ClassesController(
        clock: market.clock, accountService: brokerage, classes: brokerage.classes, users: brokerage.users,
        games: gamesController
    ).addRoutes(to: native)
    BacktestsController(
        clock: market.clock, accountService: brokerage, backtestService: brokerage, languages: brokerage.languages
    ).addRoutes(to: native)
    PushController(
        clock: market.clock, deliveries: brokerage.deliveries, push: brokerage.push, vapid: parts.vapid,
        outbound: configuration.outboundAddresses
    )
    .addRoutes(to: native)
    WebhookController(
        clock: market.clock, webhooks: brokerage.webhooks, deliveries: brokerage.deliveries,
        outbound: configuration.outboundAddresses
    ).addRoutes(to: native)

    // WebSockets: Alpaca's trade_updates (JSON) and market-data (MessagePack) streams.
    let sockets = Router(context: BasicWebSocketRequestContext.self)
    sockets.ws("stream") { inbound, outbound, _ in
        try await WebSocketClients.counting("trade_updates") {
            try await TradeUpdatesStream.handle(inbound, outbound, orderService: brokerage, access: access)
        }
    }
    sockets.ws("api/v1/ws") { inbound, outbound, context in
        try await WebSocketClients.counting("app") {
            try await AppSocket.handle(
                inbound, outbound, headers: context.request.headers, sources: events, access: access)
        }
    }
    let marketDataConnections = MarketDataStream.Connections()
    let stockQuotes = MarketDataStream.stockFanout(market)
    for feed in ["v1beta1/indicative", "v1beta1/opra"] {
        sockets.ws(RouterPath(feed)) { inbound, outbound, context in
            try await WebSocketClients.counting("market_data") {
                try await MarketDataStream.handle(
                    inbound, outbound, market: market, access: access, connections: marketDataConnections,
                    stocks: stockQuotes, kind: .options, headers: context.request.headers)
            }
        }
    }
    for feed in ["v1beta3/crypto/us", "v1beta3/crypto/us-1", "v1beta3/crypto/eu-1"] {
        sockets.ws(RouterPath(feed)) { inbound, outbound, context in
            try await WebSocketClients.counting("market_data") {
                try await MarketDataStream.handle(
                    inbound, outbound, market: market, access: access, connections: marketDataConnections,
                    stocks: stockQuotes, kind: .crypto, headers: context.request.headers)
            }
        }
    }
    for feed in ["v2/iex", "v2/sip"] {
        sockets.ws(RouterPath(feed)) { inbound, outbound, _ in
            try await WebSocketClients.counting("market_data") {
                try await MarketDataStream.handle(
                    inbound, outbound, market: market, access: access, connections: marketDataConnections,
                    stocks: stockQuotes)
            }
        }
    }

    var application = Application(
        router: router,
        server: .papertrade(
            webSockets: sockets, addresses: AddressConnections(limit: configuration.connectionsPerAddress)),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "papertrade"),
        logger: logger)
    application.addServices(JournalFlush(brokerage: brokerage))
    // Stops just before the journal flush: hands its shards to the other nodes once requests are answered.
    if let node = parts.cluster { application.addServices(node) }
    application.addServices(brokerage.backtests)
    application.addServices(TransferSettlementService(brokerage: brokerage))
    application.addServices(MarketMemoryService(market: parts.market))
    if configuration.runsMarketPump {
        application.addServices(MarketPump(brokerage: brokerage))
        application.addServices(EquityHistoryRecorder(brokerage: brokerage))
        application.addServices(SessionCloseService(brokerage: brokerage))
        application.addServices(CorporateActionService(brokerage: brokerage))
        application.addServices(GameService(brokerage: brokerage))
    }
    if configuration.ib.port != nil {
        application.addServices(
            IBGatewayService(
                configuration: configuration, market: market, accountService: brokerage, orderService: brokerage,
                access: access, logger: logger))
    }
    // The outbox's channels: webhooks and Web Push.
    application.addServices(
        DeliveryDispatcher(
            WebhookSender(addresses: configuration.outboundAddresses), outbox: brokerage.deliveries,
            clock: market.clock, leads: leads, logger: Logger(label: "papertrade.webhooks")))
    application.addServices(
        DeliveryDispatcher(
            PushSender(
                push: brokerage.push, languages: brokerage.languages, key: parts.vapid,
                contact: configuration.pushContact, addresses: configuration.outboundAddresses),
            outbox: brokerage.deliveries, clock: market.clock, leads: leads, logger: Logger(label: "papertrade.push")))
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
        } catch is NIOTooManyBytesError {
            // A body read past its limit anywhere a route forgot to say so is still the client's 413, not our 500.
            throw APIError(
                .contentTooLarge, code: 41300000, "request body is larger than \(context.maxUploadSize) bytes")
        } catch {
            context.logger.error("unexpected error: \(error)")
            throw APIError(.internalServerError, code: 50000000, "internal error")
        }
    }
}
