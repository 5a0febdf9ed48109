import Testing
import TradingCore

@testable import Server

@Suite("The owner hint of the web app's account paths")
struct AccountOwnerHintTests {
    @Test("a path under /api/v1/accounts/{id} names that account; anything else names none")
    func accountInPath() {
        let id = AccountID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        for path in ["/api/v1/accounts/\(id)", "/api/v1/accounts/\(id)/orders", "/api/v1/accounts/\(id)/orders/x/y"] {
            #expect(AccountOwnerHint.account(in: path) == id, "\(path)")
        }
        for path in [
            "/api/v1/accounts", "/api/v1/accounts/", "/api/v1/accounts/not-an-id/orders", "/v2/accounts/\(id)",
            "/api/v2/accounts/\(id)", "/api/v1/games/\(id)", "", "/",
        ] {
            #expect(AccountOwnerHint.account(in: path) == nil, "\(path)")
        }
    }
}
