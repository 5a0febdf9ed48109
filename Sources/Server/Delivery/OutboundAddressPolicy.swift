import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where URLs that users give (webhooks, Web Push endpoints) may lead. By default only https URLs whose host is
/// a public internet address: a host that is or resolves to a loopback, private, link-local (cloud metadata at
/// 169.254.169.254 included), carrier-grade NAT, multicast, reserved or unique-local address is refused — when
/// the URL is saved, and again before every delivery (DNS can change in between). Outbound requests never follow
/// redirects, so a public URL cannot bounce a request to a private one. The operator may allow plain http and
/// local addresses (`papertrade serve --allow-local-endpoints`, `PAPERTRADE_ALLOW_LOCAL_ENDPOINTS=1`), e.g. for a
/// receiver on the same machine; the test suite does.
///
/// Left open: a host whose DNS answer changes between this check and the connection (a very short window).
public struct OutboundAddressPolicy: Sendable {
    public var allowsLocalEndpoints: Bool

    public init(allowsLocalEndpoints: Bool = false) { self.allowsLocalEndpoints = allowsLocalEndpoints }

    static let switchName = "--allow-local-endpoints (PAPERTRADE_ALLOW_LOCAL_ENDPOINTS=1)"

    /// Why the URL may not be requested, or nil when it may.
    public func refusal(for url: URL) async -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            var host = url.host, !host.isEmpty
        else {
            return allowsLocalEndpoints ? "url must be an http or https URL" : "url must be an https URL"
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !allowsLocalEndpoints else { return nil }
        guard scheme == "https" else {
            return "url must be an https URL (plain http only when the operator starts papertrade with "
                + "\(Self.switchName))"
        }
        let addresses = await Self.resolve(host)
        guard !addresses.isEmpty else { return "the host \(host) could not be resolved" }
        if let blocked = addresses.first(where: { !Self.isPublic($0) }) {
            return "the host \(host) is a private or reserved address (\(Self.text(blocked))); papertrade calls only "
                + "public addresses unless the operator starts it with \(Self.switchName)"
        }
        return nil
    }

    /// An address as 4 (IPv4) or 16 (IPv6) bytes.
    typealias Address = [UInt8]

    /// Every address the host resolves to (a literal address is itself).
    static func resolve(_ host: String) async -> [Address] {
        await withCheckedContinuation { continuation in
            // getaddrinfo blocks: off the cooperative pool.
            DispatchQueue.global().async { continuation.resume(returning: resolveNow(host)) }
        }
    }

    static func resolveNow(_ host: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let sockaddr = info.pointee.ai_addr {
                switch Int32(info.pointee.ai_family) {
                case AF_INET:
                    sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        addresses.append(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) })
                    }
                case AF_INET6:
                    sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        addresses.append(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })
                    }
                default: break
                }
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// Whether an address is on the public internet (RFC 6890's special-purpose ranges are not).
    static func isPublic(_ a: Address) -> Bool {
        if a.count == 4 {
            switch (a[0], a[1]) {
            case (0, _), (10, _), (127, _): return false // this network, private, loopback
            case (100, 64...127): return false // carrier-grade NAT
            case (169, 254): return false // link-local (cloud metadata)
            case (172, 16...31), (192, 168): return false // private
            case (192, 0) where a[2] == 0: return false // IETF protocol assignments
            case (198, 18...19): return false // benchmarking
            case (224...255, _): return false // multicast, reserved, broadcast
            default: return true
            }
        }
        guard a.count == 16 else { return false }
        if a[0..<15].allSatisfy({ $0 == 0 }) { return false } // :: and ::1
        // IPv4-mapped (::ffff:a.b.c.d): the IPv4 address decides.
        if a[0..<10].allSatisfy({ $0 == 0 }), a[10] == 0xFF, a[11] == 0xFF { return isPublic(Array(a[12...])) }
        if a[0] == 0x00, a[1] == 0x64, a[2] == 0xFF, a[3] == 0x9B { return isPublic(Array(a[12...])) } // NAT64
        if a[0] & 0xFE == 0xFC { return false } // unique local fc00::/7
        if a[0] == 0xFE, a[1] & 0xC0 == 0x80 { return false } // link-local fe80::/10
        if a[0] == 0xFF { return false } // multicast
        if a[0] == 0x20, a[1] == 0x01, a[2] == 0x0D, a[3] == 0xB8 { return false } // documentation
        return true
    }

    static func text(_ a: Address) -> String {
        if a.count == 4 { return a.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: a.count, by: 2).map { String(UInt16(a[$0]) << 8 | UInt16(a[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
