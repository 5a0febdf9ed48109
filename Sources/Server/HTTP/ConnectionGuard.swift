import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Limits on a connection that no request handler can set: how long a client may take to send a request head, how
/// long its body, how long a keep-alive connection may sit idle, and what a request the HTTP parser cannot read is
/// answered with.
///
/// Without it (issue 55) a malformed request line, a NUL byte in a header, an unknown method or a 100 KB header got
/// no answer and held its connection until the client let go (600 s seen; 200 such connections held 200
/// descriptors), and so did a client trickling its request a byte a second: Hummingbird's own idle timer starts only
/// once a first request head has been read, and its parser's errors reach no handler before then.
enum ConnectionLimits {
    /// A request head must arrive whole within this long of the connection opening or of the previous response; an
    /// idle keep-alive connection is closed after it too.
    static let headTimeout = TimeAmount.seconds(30)
    /// A request's body must arrive whole within this long of its head.
    static let bodyTimeout = TimeAmount.seconds(60)
    /// The request line and headers together (431 past it), any one header (431), and how many headers (431).
    static let headerBytes = 32 * 1024
    static let headerFieldBytes = 16 * 1024
    static let headerCount = 100
    /// A WebSocket message (a fragmented one whole) and a frame: Alpaca's subscribe of many symbols fits.
    static let webSocketMessageBytes = 1 << 16
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with WebSocket upgrades on `sockets`, under `ConnectionLimits`; with TLS when `tls` is given (the IB
    /// listener).
    static func papertrade<Sockets: HTTPResponderBuilder>(
        webSockets sockets: Sockets, addresses: AddressConnections, tls: TLSConfiguration? = nil
    ) -> HTTPServerBuilder where Sockets.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = sockets.buildResponder()
        return HTTPServerBuilder { responder in
            // The idle timer is `RequestGuard`'s (Hummingbird's starts only after a first request).
            let http = HTTP1Channel.Configuration(
                idleTimeout: nil,
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: ConnectionLimits.headerFieldBytes,
                    maxHeaderListSize: ConnectionLimits.headerBytes,
                    maxHeaderFieldCount: ConnectionLimits.headerCount))
            let channel = GuardedChannel(
                addresses: addresses,
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: http, ws: .init(maxFrameSize: ConnectionLimits.webSocketMessageBytes))
                ))
            guard let tls else { return channel }
            return try TLSChannel(channel, tlsConfiguration: tls)
        }
    }
}

/// Connections open now on one listener, by client address: past `limit` (0: none) a new connection is answered 503
/// and closed before anything of it is read.
final class AddressConnections: Sendable {
    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts a connection from `address` in; false (nothing counted) when the address holds `limit` already.
    func enter(_ address: String) -> Bool {
        open.withLock { open in
            guard limit == 0 || open[address, default: 0] < limit else { return false }
            open[address, default: 0] += 1
            return true
        }
    }

    func leave(_ address: String) {
        open.withLock { open in
            open[address, default: 1] -= 1
            if open[address] == 0 { open[address] = nil }
        }
    }

    /// What a connection past the limit reads before it is closed.
    var refusal: String {
        let message = "too many connections from this address: at most \(limit) at once\n"
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(message.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + message
    }
}

/// Answers a connection with `answer` as soon as it is active, reads nothing of it, and closes it.
final class RefuseConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let answer: String
    private var answered = false

    init(answer: String) { self.answer = answer }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let answer = context.channel.allocator.buffer(string: answer)
        context.writeAndFlush(wrapOutboundOut(answer)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// A server channel with `RequestGuard` at the end of its pipeline as it is set up: after the HTTP parser and the
/// upgrade handler, so it sees the parser's errors and, once the connection stays HTTP, every request part. A
/// connection from an address that holds its `AddressConnections` limit is refused first.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let addresses: AddressConnections
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if addresses.limit > 0, let address = channel.remoteAddress?.ipAddress {
            guard addresses.enter(address) else {
                logger.debug("refusing a connection from \(address): it holds \(addresses.limit) already")
                // First in the pipeline: the HTTP handlers behind it never see a byte of this connection.
                do {
                    try channel.pipeline.syncOperations.addHandler(
                        RefuseConnection(answer: addresses.refusal), position: .first)
                } catch {
                    channel.close(promise: nil)
                }
                return base.setup(channel: channel, logger: logger)
            }
            let addresses = addresses
            channel.closeFuture.whenComplete { _ in addresses.leave(address) }
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(RequestGuard(logger: logger))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Answers what the HTTP parser refused (400, or 431 for headers past their limits) and closes the connection; closes
/// a connection whose next request head has not arrived within `ConnectionLimits.headTimeout`, or whose body has not
/// within `bodyTimeout`. A connection upgraded to a WebSocket leaves it (the event comes before any frame).
///
/// Parts are never unwrapped before the connection is known to stay HTTP: until the upgrade handler decides, no part
/// reaches this handler, and an upgrade removes it.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Waiting for a request head (a new connection, or after a response).
        case waiting
        /// A request's body is arriving.
        case reading
        /// The request is in; the server answers in its own time.
        case answering
    }

    private var state = State.waiting
    private var timer: Scheduled<Void>?
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, ConnectionLimits.headTimeout, "no request head")
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            state = .reading
            arm(context, ConnectionLimits.bodyTimeout, "the request body did not arrive")
        case .body:
            break
        case .end:
            state = .answering
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), state == .answering {
            state = .waiting
            arm(context, ConnectionLimits.headTimeout, "idle")
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, state != .answering {
            // Shutting down: a connection with no request in, or half of one, has nothing to wait for. (Hummingbird's
            // own handler closes idle connections only once a first request was read; before that, a client holding
            // half a request head kept SIGTERM waiting.) One being answered finishes its answer first.
            context.fireUserInboundEventTriggered(event)
            context.close(promise: nil)
            return
        }
        if event is HTTPServerUpgradeEvents {
            // A WebSocket from here on: its frames are not HTTP parts, and its own pings keep it honest.
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        timer?.cancel()
        timer = nil
        guard state != .answering else {
            // Half a response may be on its way: nothing sensible can follow it.
            context.close(promise: nil)
            return
        }
        let status: HTTPResponseStatus =
            parse == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let message =
            parse == .headerOverflow
            ? "request headers are larger than \(ConnectionLimits.headerBytes) bytes (or one header than \(ConnectionLimits.headerFieldBytes), or more than \(ConnectionLimits.headerCount) of them)\n"
            : "malformed HTTP request (\(parse))\n"
        var body = context.channel.allocator.buffer(capacity: message.utf8.count)
        body.writeString(message)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        state = .answering
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))))
            .whenFailure { _ in }
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount, _ reason: String) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.logger.debug("closing a connection: \(reason) within \(delay)")
            context.close(promise: nil)
        }
    }
}
