import Backtest
import Foundation
import JSON
import MarketData
import TradingCore

/// Coverage-guided fuzzing of the parsers that take raw text from requests and files: the input is any bytes, and
/// the parser must answer (a value or a refusal) without trapping, and what it accepts must survive a round trip.
///
/// Built two ways (`scripts/fuzz.sh`):
/// - with `-sanitize=fuzzer -D LIBFUZZER`: libFuzzer's entry point; `PAPERTRADE_FUZZ_TARGET` picks the parser;
/// - plainly (every `swift build`): `ParserFuzz [CORPUS_DIR]` replays the committed corpus through every target, so
///   an input that once trapped is tried on every build.
enum FuzzTarget: String, CaseIterable {
    /// `FixedDecimal(parsing:)`: every price, quantity and amount a request or file gives.
    case decimal
    /// Two decimals and the arithmetic a request's numbers meet: products, quotients and sums are exact or
    /// reported as overflow, never a trap.
    case arithmetic
    /// `CivilDate`'s "YYYY-MM-DD", and both exchange calendars asked about that date.
    case date
    /// RFC 3339 timestamps (query parameters such as `start`, `end`, `until`).
    case time
    /// JSON bodies: `JSONValue(parsing:)` and the writer.
    case json
    /// CSV bars for backtests (`papertrade backtest --data`, the API's uploaded bars).
    case csv

    static func named(_ text: String?) -> FuzzTarget? { text.flatMap(FuzzTarget.init(rawValue:)) }
}

/// A property that does not hold: in a fuzzing build this stops the run with the input, which is what libFuzzer needs.
func violated(_ what: String, _ input: [UInt8]) -> Never {
    fatalError("\(what) for input \(String(decoding: input, as: UTF8.self).debugDescription)")
}

func exercise(_ target: FuzzTarget, _ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    switch target {
    case .decimal:
        guard let value = try? FixedDecimal(parsing: text) else { return }
        guard FixedDecimal(value.description) == value else { violated("decimal round trip failed", input) }
        for places in 0...FixedDecimal.scale {
            _ = value.rounded(places: places, rule: .halfUp)
            _ = value.formatted(places: places)
        }
    case .arithmetic:
        let parts = text.split(whereSeparator: \.isWhitespace).prefix(2).compactMap { FixedDecimal(String($0)) }
        guard parts.count == 2 else { return }
        let (a, b) = (parts[0], parts[1])
        let places = Int(input.last ?? 0) % (FixedDecimal.scale + 1)
        if let product = a.multipliedReportingOverflow(by: b, places: places, rule: .halfEven) {
            guard product == a.multiplied(by: b, places: places, rule: .halfEven) else {
                violated("multipliedReportingOverflow disagrees with multiplied", input)
            }
        }
        if let quotient = a.divided(by: b, places: places, rule: .halfUp) {
            _ = quotient.multipliedReportingOverflow(by: b)
        }
        _ = a.addingReportingOverflow(b)
        _ = a.rounded(toMultipleOf: b.magnitude, rule: .halfEven)
        _ = a.isMultiple(of: b)
    case .date:
        guard let date = CivilDate(text) else { return }
        guard CivilDate(date.description) == date else { violated("date round trip failed", input) }
        guard CivilDate(daysSinceEpoch: date.daysSinceEpoch) == date else { violated("day count round trip", input) }
        for calendar in [TradingCalendar.xnys, .xshg] {
            _ = calendar.isTradingDay(date)
            _ = calendar.schedule(on: date)
            _ = calendar.nextTradingDay(after: date)
            _ = calendar.previousTradingDay(before: date)
            _ = calendar.tradingDays(from: date, through: date.adding(days: 10))
            _ = calendar.phase(at: Timestamp(date, hour: 12, in: calendar.zone))
        }
    case .time:
        guard let time = RFC3339.parse(text) else { return }
        guard RFC3339.parse(time.description) == time else { violated("timestamp round trip failed", input) }
        for calendar in [TradingCalendar.xnys, .xshg] {
            _ = calendar.phase(at: time)
            _ = calendar.tradingDate(at: time)
            _ = calendar.currentOrNextSession(at: time)
        }
    case .json:
        guard let value = try? JSONValue(parsing: input) else { return }
        guard (try? JSONValue(parsing: value.serializedBytes)) == value else {
            violated("JSON round trip failed", input)
        }
    case .csv:
        _ = try? CSVBars.parse(text, symbol: "FUZZ", zone: .newYork)
        _ = try? CSVBars.parseByMarket(text, wanted: ["AAPL", "600519"])
    }
}

#if LIBFUZZER
    let target: FuzzTarget = {
        guard let target = FuzzTarget.named(ProcessInfo.processInfo.environment["PAPERTRADE_FUZZ_TARGET"]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            fatalError("set PAPERTRADE_FUZZ_TARGET to one of \(names)")
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let input = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        exercise(target, input)
        return 0
    }

    /// libFuzzer's driver, which its runtime exports (`-sanitize=fuzzer`).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The executable's entry point under the name SwiftPM links `main` to (`<module>_main`): it hands the command
    /// line to libFuzzer's driver (libFuzzer's own `main` is then not linked in).
    @_cdecl("ParserFuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { start, size in fuzzOneInput(start, size) }
    }
#else
    /// Replays every file of `fuzz/corpus/<target>/` through its target.
    @main
    struct ReplayCorpus {
        static func main() throws {
            let root = URL(
                fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "fuzz/corpus", isDirectory: true)
            var replayed = 0
            for target in FuzzTarget.allCases {
                let folder = root.appendingPathComponent(target.rawValue, isDirectory: true)
                let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in files.sorted() {
                    let input = try Data(contentsOf: folder.appendingPathComponent(name))
                    exercise(target, Array(input))
                    replayed += 1
                }
            }
            print(
                "ParserFuzz: replayed \(replayed) corpus inputs from \(root.path) through \(FuzzTarget.allCases.count) parsers"
            )
        }
    }
#endif
