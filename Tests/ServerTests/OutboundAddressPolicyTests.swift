import Foundation
import Server
import Testing

@Suite("Webhooks and push endpoints reach public https URLs only, unless the operator allows local endpoints")
struct OutboundAddressPolicyTests {
    @Test(
        "loopback, private, link-local (cloud metadata), carrier-grade NAT, unique-local and mapped addresses are refused",
        arguments: [
            "https://127.0.0.1:9000/x", "https://localhost/x", "https://10.1.2.3/", "https://172.20.0.5/",
            "https://192.168.1.10/", "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/",
            "https://0.0.0.0/", "https://[::1]/", "https://[fd00::1]/", "https://[fe80::1]/",
            "https://[::ffff:10.0.0.1]/", "https://224.0.0.1/",
        ])
    func refused(url: String) async throws {
        let refusal = await OutboundAddressPolicy().refusal(for: try #require(URL(string: url)))
        #expect(refusal?.contains("private or reserved address") == true, "\(url): \(refusal ?? "allowed")")
    }

    @Test("public https addresses are allowed; plain http only with the operator's switch, which allows local ones too")
    func allowed() async throws {
        for url in ["https://8.8.8.8/hook", "https://[2606:4700:4700::1111]/hook", "https://1.1.1.1:8443/x"] {
            #expect(await OutboundAddressPolicy().refusal(for: try #require(URL(string: url))) == nil, "\(url)")
        }
        let plain = await OutboundAddressPolicy().refusal(for: try #require(URL(string: "http://8.8.8.8/hook")))
        #expect(plain?.hasPrefix("url must be an https URL") == true)
        #expect(plain?.contains("--allow-local-endpoints") == true)
        let local = try #require(URL(string: "http://127.0.0.1:9000/x"))
        #expect(await OutboundAddressPolicy(allowsLocalEndpoints: true).refusal(for: local) == nil)
        #expect(await OutboundAddressPolicy().refusal(for: try #require(URL(string: "ftp://8.8.8.8/"))) != nil)
    }
}
