import Foundation

/// Real daily history bundled with papertrade (facts from ../shared/data, provenance in Resources/DATA-SOURCES.md):
/// AAPL, IBM, MSFT 2000-03-01…2013-03-01, GOOG from 2004-08-19, FB from 2012-05-18 (split- and dividend-adjusted);
/// eight A-shares 2005-01-04…2020-06-16 (forward-adjusted): 000001, 000338, 000778, 000783, 002572, 300027, 601318,
/// 603220. One CSV (`symbol,date,open,high,low,close,volume`) built by scripts/build-history.py, for backtests on
/// real prices offline (`papertrade backtest --source real`).
public enum BundledHistory {
    public static let symbols: Set<String> = [
        "AAPL", "IBM", "MSFT", "GOOG", "FB", "000001", "000338", "000778", "000783", "002572", "300027", "601318",
        "603220",
    ]

    /// The CSV text.
    public static func dailyCSV() throws -> String {
        guard let url = Bundle.module.url(forResource: "history-daily", withExtension: "csv") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
