import Foundation
import Server
import Testing

@Suite("Webhook URLs reach public addresses only, unless the operator allows private ones")
struct OutboundAddressPolicyTests {
    @Test(
        "loopback, private, link-local (cloud metadata), carrier-grade NAT, unique-local and mapped addresses are refused",
        arguments: [
            "http://127.0.0.1:9000/x", "http://localhost/x", "http://10.1.2.3/", "http://172.20.0.5/",
            "http://192.168.1.10/", "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/", "http://0.0.0.0/",
            "http://[::1]/", "http://[fd00::1]/", "http://[fe80::1]/", "http://[::ffff:10.0.0.1]/",
            "http://224.0.0.1/",
        ])
    func refused(url: String) async throws {
        let refusal = await OutboundAddressPolicy().refusal(for: try #require(URL(string: url)))
        #expect(refusal?.contains("private or reserved address") == true, "\(url): \(refusal ?? "allowed")")
    }

    @Test("public addresses are allowed; the operator's switch allows private ones too")
    func allowed() async throws {
        for url in ["https://8.8.8.8/hook", "http://[2606:4700:4700::1111]/hook", "https://1.1.1.1:8443/x"] {
            #expect(await OutboundAddressPolicy().refusal(for: try #require(URL(string: url))) == nil, "\(url)")
        }
        let local = try #require(URL(string: "http://127.0.0.1:9000/x"))
        #expect(await OutboundAddressPolicy(allowsPrivateAddresses: true).refusal(for: local) == nil)
        #expect(await OutboundAddressPolicy().refusal(for: try #require(URL(string: "ftp://8.8.8.8/"))) != nil)
    }
}
