/// The stylized facts the simulator is calibrated on, for a series of daily log returns.
public struct ReturnStatistics: Sendable, CustomStringConvertible {
    public var count: Int
    /// Standard deviation of daily log returns.
    public var volatility: Double
    /// Excess kurtosis (0 for a normal distribution; real stocks 3–10: fat tails).
    public var excessKurtosis: Double
    /// Autocorrelation of |returns| at lags 1, 5 and 20 days (volatility clustering: real stocks 0.1–0.3).
    public var absoluteAutocorrelation: [Double]

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
    }

    public var description: String {
        func f(_ x: Double, _ digits: Int) -> String {
            let p = pow(10, Double(digits))
            let v = (x * p).rounded() / p
            return String(v)
        }
        return "n=\(count) vol=\(f(volatility * 100, 2))% kurtosis=\(f(excessKurtosis, 2)) acf|r|(1,5,20)="
            + absoluteAutocorrelation.map { f($0, 3) }.joined(separator: ",")
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
