import Foundation

/// Real daily history bundled with papertrade (facts from ../shared/data, provenance in Resources/DATA-SOURCES.md):
/// AAPL, IBM, MSFT 2000-03-01…2013-03-01, GOOG from 2004-08-19, FB from 2012-05-18 (split- and dividend-adjusted);
/// eight A-shares 2005-01-04…2020-06-16 (forward-adjusted): 000001, 000338, 000778, 000783, 002572, 300027, 601318,
/// 603220. One CSV (`symbol,date,open,high,low,close,volume`) built by scripts/build-history.py, for backtests on
/// real prices offline (`papertrade backtest --source real`); and 000338's real 5-minute bars (`fiveMinuteCSV`).
public enum BundledHistory {
    public static let symbols: Set<String> = [
        "AAPL", "IBM", "MSFT", "GOOG", "FB", "000001", "000338", "000778", "000783", "002572", "300027", "601318",
        "603220",
    ]

    /// Symbols with real 5-minute bars too: 000338 from 2007-04-30 09:35 to 2020-06-17 15:00 (150,432 bars) (forward-adjusted, each bar
    /// stamped at its end, Shanghai time).
    public static let fiveMinuteSymbols: Set<String> = ["000338"]

    /// The CSV text.
    public static func dailyCSV() throws -> String { try resource("history-daily") }

    /// A symbol's 5-minute bars as CSV (`datetime,open,high,low,close,volume`); nil when there are none.
    public static func fiveMinuteCSV(_ symbol: String) throws -> String? {
        guard fiveMinuteSymbols.contains(symbol) else { return nil }
        return try resource("history-\(symbol)-5min")
    }

    static func resource(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "csv") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
