import Brokerage
import Crypto
import Foundation
import Hummingbird
import HummingbirdTLS
import HummingbirdWebSocket
import JSON
import Logging
import NIOSSL
import ServiceLifecycle
import SwiftASN1
import X509

/// The Interactive Brokers Client Portal listener: `/v1/api/...` and the WebSocket `/v1/api/ws` over HTTPS on its
/// own port, a third skin over the same brokerage calls as the Alpaca and native APIs. `buildApplication` runs it
/// as one of its services when `--ib-port` is given.
func buildIBApplication(_ configuration: ServerConfiguration, gateway: IBGateway, logger: Logger) throws
    -> some ApplicationProtocol
{
    let router = Router(context: AppContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: IBErrorMiddleware())
    let open = router.group("v1/api")
    IBSessionRoutes(gateway: gateway).addOpenRoutes(to: router, api: open)
    let api = router.group("v1/api").add(middleware: IBLoginRequired(gateway: gateway))
    IBPortfolioRoutes(gateway: gateway).addRoutes(to: api)
    IBMarketRoutes(gateway: gateway).addRoutes(to: api)
    IBOrderRoutes(gateway: gateway).addRoutes(to: api)

    let sockets = Router(context: BasicWebSocketRequestContext.self)
    sockets.ws("v1/api/ws") { inbound, outbound, context in
        try await WebSocketClients.counting("ib") {
            try await IBSocket.handle(inbound, outbound, headers: context.request.headers, gateway: gateway)
        }
    }
    let tls = try IBCertificate.tlsConfiguration(configuration)
    let port = configuration.ib.port ?? 5000
    return Application(
        router: router,
        server: .papertrade(
            webSockets: sockets, addresses: AddressConnections(limit: configuration.connectionsPerAddress), tls: tls),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.ib.host, port: port), serverName: "papertrade-ib"),
        logger: logger)
}

/// The listener's certificate: the operator's PEM files (`--ib-cert`/`--ib-key`), or a self-signed one for
/// localhost and 127.0.0.1 made on first start and kept in the data directory (`ib-gateway.crt`, `ib-gateway.key`),
/// as IB's gateway ships a self-signed certificate. Clients either trust that file or skip verification.
enum IBCertificate {
    static func paths(_ configuration: ServerConfiguration) -> (certificate: String, key: String) {
        (
            configuration.ib.certificatePath ?? configuration.dataDirectory + "/ib-gateway.crt",
            configuration.ib.keyPath ?? configuration.dataDirectory + "/ib-gateway.key"
        )
    }

    static func tlsConfiguration(_ configuration: ServerConfiguration) throws -> TLSConfiguration {
        let (certificatePath, keyPath) = paths(configuration)
        let files = FileManager.default
        if configuration.ib.certificatePath == nil, configuration.ib.keyPath == nil,
            !files.fileExists(atPath: certificatePath) || !files.fileExists(atPath: keyPath)
        {
            try makeSelfSigned(certificatePath: certificatePath, keyPath: keyPath)
        }
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    }

    /// A P-256 certificate valid for ten years for localhost, 127.0.0.1 and ::1; the key file is readable by the
    /// owner only.
    static func makeSelfSigned(certificatePath: String, keyPath: String) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("papertrade Client Portal gateway")
            OrganizationName("papertrade")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: .init(key))
        let directory = (certificatePath as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        guard
            FileManager.default.createFile(
                atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyPath])
        }
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificatePath))
    }
}

/// Runs the IB listener beside the main one (a service of the main application, so both stop together), logging
/// the gateway in as `--ib-user` first when given.
struct IBGatewayService: Service {
    let configuration: ServerConfiguration
    let market: MarketView
    let accountService: any AccountService
    let orderService: any OrderService
    let access: UserAccess
    let logger: Logger

    func run() async throws {
        let gateway = IBGateway(
            market: market, accountService: accountService, orderService: orderService, access: access,
            configuration: configuration.ib)
        if let name = configuration.ib.user {
            guard let user = try await access.users.user(username: name.lowercased()) else {
                throw IBError(.badRequest, "--ib-user \(name): no such papertrade user")
            }
            gateway.logIn(user)
        }
        try await buildIBApplication(configuration, gateway: gateway, logger: logger).run()
    }
}
