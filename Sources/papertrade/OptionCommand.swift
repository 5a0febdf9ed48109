import ArgumentParser
import Foundation
import MarketData
import TradingCore

/// `papertrade option-price`: the model papertrade prices its option chains with, as a calculator — one contract
/// from flags, or many as CSV lines on standard input (for spreadsheets and for checking the model against other
/// libraries: tests/e2e/test_option_model.py compares it with py_vollib and QuantLib).
struct OptionPriceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "option-price",
        abstract: "Price an option with Black–Scholes–Merton: value, greeks, implied volatility, American value.",
        discussion: """
            Greeks are in the units brokers show: delta and gamma per $1 of the underlying, theta per calendar day,
            vega per volatility point, rho per 1% of the rate. The American value is Bjerksund–Stensland (1993), the
            approximation papertrade's chains use.

            One contract:  papertrade option-price --type put --spot 100 --strike 100 --days 365 --rate 0.05 --volatility 0.2
            Implied vol:   papertrade option-price --type call --spot 100 --strike 105 --days 30 --price 1.85
            Many (CSV):    papertrade option-price --csv < contracts.csv
                           each line: type,spot,strike,years,rate,dividend_yield,volatility
                           prints:    price,delta,gamma,theta,vega,rho,american
            """)

    @Option(help: "call or put.") var type: String = "call"
    @Option(help: "The underlying's price.") var spot: Double?
    @Option(help: "The strike.") var strike: Double?
    @Option(help: "Calendar days to expiry (years = days / 365).") var days: Double?
    @Option(help: "Risk-free rate, continuously compounded (0.04 = 4%).") var rate: Double = OptionQuoteModel
        .riskFreeRate
    @Option(name: .customLong("dividend-yield"), help: "Continuous dividend yield (0.01 = 1%).") var dividendYield:
        Double = 0
    @Option(help: "Annualized volatility (0.25 = 25%).") var volatility: Double?
    @Option(help: "An option price: print the volatility that gives it instead.") var price: Double?
    @Flag(help: "Read CSV lines from standard input.") var csv = false

    func validate() throws {
        guard OptionRight(rawValue: type.lowercased()) != nil else { throw ValidationError("--type is call or put") }
        if csv { return }
        guard let spot, spot > 0, spot.isFinite else { throw ValidationError("--spot must be a positive number") }
        guard let strike, strike > 0, strike.isFinite else {
            throw ValidationError("--strike must be a positive number")
        }
        guard let days, days > 0, days.isFinite else { throw ValidationError("--days must be a positive number") }
        guard rate.isFinite, dividendYield.isFinite else {
            throw ValidationError("--rate and --dividend-yield must be numbers")
        }
        if let price {
            guard price > 0, price.isFinite else { throw ValidationError("--price must be a positive number") }
        } else {
            guard let volatility, volatility > 0, volatility.isFinite else {
                throw ValidationError("give --volatility (or --price for the implied volatility)")
            }
        }
    }

    static func format(_ x: Double) -> String { x.isFinite ? String(format: "%.12g", x) : "nan" }

    func run() throws {
        if csv {
            try runCSV()
            return
        }
        let right = OptionRight(rawValue: type.lowercased()) ?? .call
        var inputs = OptionInputs(
            spot: spot ?? 0, strike: strike ?? 0, years: (days ?? 0) / 365, rate: rate, dividendYield: dividendYield,
            volatility: volatility ?? 0, right: right)
        if let price {
            guard let implied = BlackScholes.impliedVolatility(price: price, inputs) else {
                throw ValidationError(
                    "no volatility gives \(price): it is below the discounted intrinsic value or above the most the option can be worth"
                )
            }
            inputs.volatility = implied
            print("implied volatility \(String(format: "%.4f%%", implied * 100))")
        }
        let (value, g) = BlackScholes.priceAndGreeks(inputs)
        print("European value \(String(format: "%.4f", value))")
        print("American value \(String(format: "%.4f", BlackScholes.americanPrice(inputs)))")
        print(
            "delta \(String(format: "%.4f", g.delta))  gamma \(String(format: "%.4f", g.gamma))  "
                + "theta \(String(format: "%.4f", g.theta))/day  vega \(String(format: "%.4f", g.vega))/vol point  "
                + "rho \(String(format: "%.4f", g.rho))/1%")
    }

    func runCSV() throws {
        var number = 0
        while let line = readLine() {
            number += 1
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if fields.isEmpty || fields[0].isEmpty || fields[0].hasPrefix("#") || fields[0] == "type" { continue }
            let v = fields.dropFirst().compactMap { Double($0) }.filter(\.isFinite)
            guard fields.count == 7, v.count == 6, let right = OptionRight(rawValue: fields[0].lowercased()) else {
                throw ValidationError(
                    "line \(number): expected type,spot,strike,years,rate,dividend_yield,volatility; got \(line)")
            }
            let inputs = OptionInputs(
                spot: v[0], strike: v[1], years: v[2], rate: v[3], dividendYield: v[4], volatility: v[5], right: right)
            let (value, g) = BlackScholes.priceAndGreeks(inputs)
            print(
                [value, g.delta, g.gamma, g.theta, g.vega, g.rho, BlackScholes.americanPrice(inputs)].map(Self.format)
                    .joined(separator: ","))
        }
    }
}
