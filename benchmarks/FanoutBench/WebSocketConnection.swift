import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// One benchmark client: which stream, as whom, following what.
enum ClientPlan: Sendable {
    case alpaca(id: Int, key: (id: String, secret: String), symbols: [String], bars: Bool)
    case app(id: Int, cookie: String, symbols: [String])

    var id: Int {
        switch self {
        case .alpaca(let id, _, _, _), .app(let id, _, _): id
        }
    }
    var path: String {
        switch self {
        case .alpaca: "/v2/iex"
        case .app: "/api/v1/ws"
        }
    }
    var cookie: String? {
        if case .app(_, let cookie, _) = self { return cookie }
        return nil
    }

    /// What the client sends once the socket is open: Alpaca's auth and subscription (JSON text frames, which the
    /// server reads as it reads MessagePack), or the app's subscription.
    var greeting: [String] {
        func list(_ symbols: [String]) -> String { "[" + symbols.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        switch self {
        case .alpaca(_, let key, let symbols, let bars):
            return [
                #"{"action":"auth","key":"\#(key.id)","secret":"\#(key.secret)"}"#,
                #"{"action":"subscribe","quotes":\#(list(symbols)),"trades":\#(list(symbols)),"bars":\#(list(bars ? symbols : []))}"#,
            ]
        case .app(_, _, let symbols):
            // (As the web app does: a second's quotes in one frame.)
            return [#"{"type":"subscribe","symbols":\#(list(symbols)),"batch":true}"#]
        }
    }
}

enum WebSocketConnection {
    /// Opens `plan`'s socket on `loop`; `subscribed` succeeds once the server acknowledges the subscription.
    static func connect(
        _ plan: ClientPlan, host: String, port: Int, on loop: EventLoop, stats: Stats,
        subscribed: EventLoopPromise<Void>
    ) -> EventLoopFuture<Channel> {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .connectTimeout(.seconds(30))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketClientUpgrader(
                        maxFrameSize: 1 << 24, automaticErrorHandling: true,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    ClientHandler(plan: plan, stats: stats, subscribed: subscribed))
                            }
                        })
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        withClientUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                context.pipeline.removeHandler(name: "upgrade-request", promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(
                        UpgradeRequest(plan: plan, host: host, port: port, subscribed: subscribed),
                        name: "upgrade-request")
                }
            }
            .connect(host: host, port: port)
    }
}

/// Sends the upgrade request; a response that reaches it means the server refused the upgrade.
final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let plan: ClientPlan
    let host: String
    let port: Int
    let subscribed: EventLoopPromise<Void>

    init(plan: ClientPlan, host: String, port: Int, subscribed: EventLoopPromise<Void>) {
        (self.plan, self.host, self.port, self.subscribed) = (plan, host, port, subscribed)
    }

    struct Refused: Error {
        var status: HTTPResponseStatus
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Host", "\(host):\(port)"), ("Content-Length", "0")])
        if let cookie = plan.cookie { headers.add(name: "Cookie", value: cookie) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: plan.path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            subscribed.fail(Refused(status: head.status))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        subscribed.fail(error)
        context.close(promise: nil)
    }
}

/// The open socket: greets, waits for the subscription's acknowledgement, then stamps every quote and trade.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let plan: ClientPlan
    let stats: Stats
    let subscribed: EventLoopPromise<Void>
    private var acknowledged = false
    private var pending: ByteBuffer?
    private var pendingText = false

    init(plan: ClientPlan, stats: Stats, subscribed: EventLoopPromise<Void>) {
        (self.plan, self.stats, self.subscribed) = (plan, stats, subscribed)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        for text in plan.greeting {
            let data = context.channel.allocator.buffer(string: text)
            context.write(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: data)), promise: nil)
        }
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if acknowledged { stats.dropped(client: plan.id, "closed by the server") }
        subscribed.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        stats.error("\(error)")
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            return
        case .connectionClose:
            context.close(promise: nil)
            return
        case .text, .binary:
            pendingText = frame.opcode == .text
            pending = frame.unmaskedData
        case .continuation:
            var data = frame.unmaskedData
            pending?.writeBuffer(&data)
        default:
            return
        }
        guard frame.fin, let message = pending else { return }
        pending = nil
        let arrived = Wire.now()
        if pendingText, case .app = plan {
            let stamps = Wire.appQuoteStamps(message)
            if !stamps.isEmpty {
                stats.received(client: plan.id, latencies: stamps.map { arrived - $0 })
            } else if !acknowledged, message.readableBytesView.starts(with: Array(#"{"#.utf8)),
                String(buffer: message).contains(#""subscribed""#)
            {
                acknowledged = true
                subscribed.succeed()
            } else if String(buffer: message).contains(#""type":"error""#) {
                stats.error("app socket: " + String(buffer: message))
            }
            return
        }
        guard let messages = Wire.messages(message) else {
            // A text frame on Alpaca's stream is an error the server explains (e.g. before authentication).
            stats.error("iex: " + String(buffer: message))
            return
        }
        stats.received(
            client: plan.id,
            latencies: messages.compactMap { ($0.type == "q" || $0.type == "t") ? $0.stamp : nil }.map { arrived - $0 })
        for m in messages {
            switch m.type {
            case "subscription":
                if !acknowledged {
                    acknowledged = true
                    subscribed.succeed()
                }
            case "error":
                stats.error("iex: \(m.text)")
                if !acknowledged { subscribed.fail(ChannelError.ioOnClosedChannel) }
            default: break
            }
        }
    }
}
