import Foundation
import JSON
import MarketData
import Testing
import TradingCore

@testable import Server

@Suite("Option contract ids (Alpaca) and conids (IB)")
struct OptionIdentifierTests {
    /// Random standard contracts on roots of one to five letters, expiring on weekdays through 2067.
    func contracts(_ count: Int, seed: UInt64) -> [OptionContract] {
        var generator = SeededGenerator(seed: seed)
        var out: [OptionContract] = []
        while out.count < count {
            let length = Int.random(in: 1...5, using: &generator)
            let root = String(
                (0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 65...90, using: &generator))) })
            let date = CivilDate(daysSinceEpoch: Int.random(in: 19_723..<35_700, using: &generator))
            guard !date.isWeekend else { continue }
            let strike = FixedDecimal(units: Int.random(in: 1..<24_000, using: &generator) * 5, exponent: 1)
            let right: OptionRight = Bool.random(using: &generator) ? .call : .put
            if let c = OptionContract(underlying: root, expiration: date, right: right, strike: strike) {
                out.append(c)
            }
        }
        return out
    }

    @Test("an Alpaca contract id is a UUID that reads back to the contract; random UUIDs read back to nothing")
    func alpacaIDs() throws {
        for contract in contracts(5_000, seed: 1) {
            let id = OptionContractID.id(contract)
            #expect(id.description.count == 36)
            #expect(Identifier(id.description) == id)
            #expect(OptionContractID.contract(id) == contract)
        }
        var generator = SeededGenerator(seed: 2)
        var decoded = 0
        for _ in 0..<100_000 {
            let id = Identifier(
                high: UInt64.random(in: 0...UInt64.max, using: &generator),
                low: UInt64.random(in: 0...UInt64.max, using: &generator))
            if OptionContractID.contract(id) != nil { decoded += 1 }
        }
        #expect(decoded == 0)
    }

    @Test("an IB option conid reads back to the contract, stays below 2⁵³ and above every stock's conid")
    func ibConids() throws {
        let largestStock = try #require(IBConid.conid(symbol: "=========", market: .cn))
        for contract in contracts(5_000, seed: 3) {
            let conid = try #require(IBOptionConid.conid(contract), "\(contract)")
            #expect(conid > largestStock && conid < 1 << 53)
            #expect(IBOptionConid.contract(conid) == contract)
        }
        #expect(IBOptionConid.contract(12345) == nil)
        #expect(IBOptionConid.contract(1 << 53) == nil)
    }
}

@Suite("Option snapshots on the wire")
struct OptionSnapshotEncodingTests {
    @Test("the bytes written for a chain page are the same JSON as the snapshot values")
    func bytesMatchTheTree() async throws {
        let directory = try SymbolDirectory.bundled()
        let clock = MarketClock(.manual(start: Timestamp(CivilDate(2026, 11, 20), hour: 11, in: .newYork)))
        let market = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: 3))
        let options = OptionMarket(
            feed: SimulatedFeed(market: market, clock: clock), directory: directory, clock: clock, seed: 0)
        let chain = try await options.chain("AAPL")
        let snapshots = try await options.snapshots(Array(chain.contracts.prefix(300)), of: chain)
        let bytes = OptionMarketDataController.snapshotsBytes(snapshots, next: "0.0.300")
        let parsed = try JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
        var tree: [String: JSONValue] = [:]
        for s in snapshots { tree[s.contract.occSymbol] = OptionMarketDataController.snapshot(s) }
        #expect(parsed == .object(["snapshots": .object(tree), "next_page_token": .string("0.0.300")]))
    }
}
