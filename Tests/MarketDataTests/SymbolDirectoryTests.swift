import MarketData
import Testing
import TradingCore

@Suite("Symbol directory")
struct SymbolDirectoryTests {
    static let directory = try! SymbolDirectory.bundled()

    @Test("ships US stocks and ETFs and A-shares with exchange, board and listing date")
    func contents() throws {
        let d = Self.directory
        #expect(d.count > 20_000)
        let aapl = try #require(d.entry("AAPL"))
        #expect(aapl.instrument.exchange == .nasdaq)
        #expect(aapl.sector == "Information Technology")
        #expect(d.entry("SPY")?.instrument.kind == .etf)
        #expect(d.entry("SPY")?.instrument.exchange == .arca)
        let moutai = try #require(d.entry("600519"))
        #expect(moutai.name == "贵州茅台")
        #expect(moutai.instrument.board == .main)
        #expect(moutai.instrument.listingDate == CivilDate(2001, 8, 27))
        #expect(d.entry("300750")?.instrument.board == .chinext)
        #expect(d.entry("688981")?.instrument.board == .star)
        #expect(d.entry("000002")?.name == "万科A") // full-width Ａ and spaces normalised
        #expect(d.entry("aapl")?.symbol == "AAPL")
    }

    @Test("exact ticker first, then ticker prefix, then company names")
    func ranking() {
        let results = Self.directory.search("appl")
        #expect(results.first?.symbol == "AAPL")
        #expect(Self.directory.search("AAPL").first?.symbol == "AAPL")
        let apple = Self.directory.search("apple")
        #expect(apple.contains { $0.symbol == "AAPL" })
        #expect(Self.directory.search("microsoft").first?.symbol == "MSFT")
        #expect(Self.directory.search("micro").contains { $0.symbol == "MSFT" })
        #expect(Self.directory.search("F").first?.symbol == "F")
    }

    @Test("Chinese names and A-share codes are searchable; results can be limited to a market")
    func chinese() {
        #expect(Self.directory.search("茅台").first?.symbol == "600519")
        #expect(Self.directory.search("平安").contains { $0.symbol == "000001" })
        #expect(Self.directory.search("600519").first?.name == "贵州茅台")
        #expect(Self.directory.search("600", market: .cn).allSatisfy { $0.market == .cn })
        #expect(Self.directory.search("a", market: .us, limit: 3).count == 3)
    }

    @Test("US companies are found by the Chinese names Chinese brokers use, and only the real company first")
    func chineseNamesOfUSCompanies() throws {
        for (name, symbol) in [
            ("苹果", "AAPL"), ("英伟达", "NVDA"), ("微软", "MSFT"), ("特斯拉", "TSLA"), ("阿里巴巴", "BABA"),
            ("可口可乐", "KO"), ("台积电", "TSM"),
        ] {
            #expect(Self.directory.search(name).first?.symbol == symbol, "\(name)")
            #expect(Self.directory.entry(symbol)?.chineseName == name)
        }
        // The Chinese name joins the English one; an A-share search is unchanged and an unnamed stock has none.
        #expect(Self.directory.search("谷歌").map(\.symbol).prefix(2).sorted() == ["GOOG", "GOOGL"])
        #expect(Self.directory.search("苹果", market: .cn).isEmpty)
        #expect(Self.directory.search("茅台").first?.symbol == "600519")
        #expect(Self.directory.entry("AA")?.chineseName == "")
        #expect(Self.directory.entries.filter { !$0.chineseName.isEmpty }.allSatisfy { $0.instrument.market == .us })
    }

    @Test(
        "A-shares are found by pinyin, its initials and the English names their companies go by, shown by their own names"
    )
    func pinyinAndEnglishNames() {
        let d = Self.directory
        for (query, symbol) in [
            ("moutai", "600519"), ("Kweichow", "600519"), ("maotai", "600519"), ("gzmt", "600519"),
            ("guizhoumaotai", "600519"), ("zsyh", "600036"),
            ("China Merchants", "600036"), ("wuliangye", "000858"),
        ] {
            let first = d.search(query, limit: 3).first
            #expect(first?.symbol == symbol, "\(query) → \(d.search(query, limit: 3).map(\.symbol))")
        }
        #expect(d.search("moutai").first?.name == "贵州茅台", "the result reads as the market names it")
        // A US ticker spelled the same comes first (BYD is Boyd Gaming); among A-shares the company is found.
        #expect(d.search("BYD").first?.symbol == "BYD")
        #expect(d.search("BYD", market: .cn).first?.symbol == "002594")
        #expect(d.search("CATL", market: .cn).first?.symbol == "300750")
        #expect(d.search("Contemporary Amperex", market: .cn).first?.symbol == "300750") // CTATF: its OTC shares
        // Aliases of A-shares do not push US companies down: English words still find them first.
        #expect(d.search("apple").first?.symbol == "AAPL")
        #expect(d.search("bank of america").first?.symbol == "BAC")
        #expect(d.search("yinhang", market: .cn, limit: 10).count == 10, "every bank (银行) answers")
    }

    @Test("empty or unmatched queries return nothing")
    func noMatches() {
        #expect(Self.directory.search("   ").isEmpty)
        #expect(Self.directory.search("zzzzzzzzqqq").isEmpty)
        #expect(Self.directory.search("apple", limit: 0).isEmpty)
    }

    @Test("malformed directory lines are reported with their line number")
    func malformed() {
        #expect(throws: SymbolDirectory.LoadError.self) {
            try SymbolDirectory(tsv: "symbol\tname\n" + "AAPL\tApple\tMOON\tstock\t100\t\t\t\t\n")
        }
        let header = "symbol\tname\texchange\tkind\tlot\tsector\tindustry\tlisted\tcik\n"
        let apple = "AAPL\tApple Inc.\tNASDAQ\tstock\t100\tTechnology\t\t\t0000320193\n"
        do {
            _ = try SymbolDirectory(tsv: header + apple + "\n" + "MSFT\tMicrosoft\tNASDAQ\n")
            Issue.record("a short line was read")
        } catch {
            #expect("\(error)" == "symbols.tsv line 4 is malformed: MSFT\tMicrosoft\tNASDAQ")
        }
        // Windows line ends, empty lines, an empty last field and Chinese names read as the plain file does.
        let names = "symbol\tname_zh\nAAPL\t苹果\n"
        let crlf = try? SymbolDirectory(
            tsv: (header + "\n" + apple).replacingOccurrences(of: "\n", with: "\r\n"),
            chineseNames: names.replacingOccurrences(of: "\n", with: "\r\n"))
        let plain = try? SymbolDirectory(tsv: header + apple, chineseNames: names)
        #expect(crlf?.count == 1 && crlf?.entry("AAPL")?.chineseName == "苹果")
        #expect(crlf?.entry("AAPL")?.cik == plain?.entry("AAPL")?.cik && plain?.entry("AAPL")?.cik == "0000320193")
        #expect(crlf?.search("苹果").map(\.symbol) == ["AAPL"])
    }
}
