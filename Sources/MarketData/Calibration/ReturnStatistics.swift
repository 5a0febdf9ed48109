/// The stylized facts the simulator is calibrated on, for a series of daily log returns.
public struct ReturnStatistics: Sendable, CustomStringConvertible {
    public var count: Int
    /// Standard deviation of daily log returns.
    public var volatility: Double
    /// Excess kurtosis (0 for a normal distribution; real stocks 3–10: fat tails).
    public var excessKurtosis: Double
    /// Autocorrelation of |returns| at lags 1, 5 and 20 days (volatility clustering: real stocks 0.1–0.3).
    public var absoluteAutocorrelation: [Double]
    /// Shares of days whose simple return exceeds 5% and 10% either way.
    public var shareAbove5: Double
    public var shareAbove10: Double
    /// The largest daily move (simple return, either way) of each 252-day year, averaged over the whole years.
    public var maxMovePerYear: Double

    public init(returns r: [Double]) {
        let n = Double(r.count)
        count = r.count
        let mean = r.reduce(0, +) / n
        let variance = r.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n
        volatility = variance.squareRoot()
        let fourth = r.reduce(0) { $0 + pow($1 - mean, 4) } / n
        excessKurtosis = variance > 0 ? fourth / (variance * variance) - 3 : 0
        let a = r.map(abs)
        let am = a.reduce(0, +) / n
        let av = a.reduce(0) { $0 + ($1 - am) * ($1 - am) }
        absoluteAutocorrelation = [1, 5, 20].map { lag in
            guard lag < a.count, av > 0 else { return 0 }
            var s = 0.0
            for i in 0..<(a.count - lag) { s += (a[i] - am) * (a[i + lag] - am) }
            return s / av
        }
        let simple = r.map { abs(exp($0) - 1) }
        shareAbove5 = n > 0 ? Double(simple.filter { $0 > 0.05 }.count) / n : 0
        shareAbove10 = n > 0 ? Double(simple.filter { $0 > 0.10 }.count) / n : 0
        let years = stride(from: 0, to: simple.count - 251, by: 252).map { simple[$0..<($0 + 252)].max() ?? 0 }
        maxMovePerYear = years.isEmpty ? (simple.max() ?? 0) : years.reduce(0, +) / Double(years.count)
    }

    public var description: String {
        func f(_ x: Double, _ digits: Int) -> String {
            let p = pow(10, Double(digits))
            let v = (x * p).rounded() / p
            return String(v)
        }
        return "n=\(count) vol=\(f(volatility * 100, 2))% kurtosis=\(f(excessKurtosis, 2)) acf|r|(1,5,20)="
            + absoluteAutocorrelation.map { f($0, 3) }.joined(separator: ",")
            + " |r|>5% \(f(shareAbove5 * 100, 2))% |r|>10% \(f(shareAbove10 * 100, 2))% max/yr \(f(maxMovePerYear * 100, 1))%"
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
