import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade transfer 1000 --from us --to cn`: moves money between two of the user's accounts, converted at the
/// live rate when their currencies differ. It prints what will move (both amounts, the rate, the mid rate, the
/// spread's cost, any fee) and then moves it; `--quote` stops after the first part. A login only.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Move money between two of your accounts (converting USD and CNY at the live rate).",
        discussion: """
            Accounts are named by id, or by market: us (your US-dollar account) or cn (your A-share account). \
            The amount is in the source account's currency unless --currency names the other's (to receive \
            exactly that much).
            """)
    @OptionGroup var options: ClientOptions
    @Argument(help: "The amount, e.g. 1000 or 250.50.") var amount: String
    @Option(help: "The account to move it from: an id, us or cn.") var from: String
    @Option(help: "The account to move it to: an id, us or cn.") var to: String
    @Option(help: "The amount's currency (USD or CNY): either account's; default the source's.") var currency: String?
    @Flag(help: "Only show what would move, at what rate; move nothing.") var quote = false

    func run() async throws {
        guard let value = Decimal(string: amount, locale: Locale(identifier: "en_US_POSIX")), value > 0 else {
            throw ValidationError("the amount must be a positive number, such as 1000 or 250.50")
        }
        try await clientCommand {
            let client = try await options.client(needsUser: true)
            let accounts = try await client.accounts().filter { !$0.inGame }
            func account(_ name: String) throws -> Account {
                let lower = name.lowercased()
                if lower == "us" || lower == "cn",
                    let a = accounts.first(where: { $0.market == Market(rawValue: lower) })
                {
                    return a
                }
                guard let a = accounts.first(where: { $0.id == name || $0.accountNumber == name }) else {
                    throw CLIError("no account \(name) of yours (give an account id, us or cn)")
                }
                return a
            }
            let (source, destination) = (try account(from), try account(to))
            let q = try await client.transferQuote(
                from: source.id, to: destination.id, amount: value, currency: currency?.uppercased())
            if options.json, quote { return try options.printJSON(q) }
            if !options.json {
                print(Self.describe(q, from: source, to: destination))
            }
            guard !quote else { return }
            let moved = try await client.transfer(
                from: source.id, to: destination.id, amount: value, currency: currency?.uppercased())
            if options.json { return try options.printJSON(moved) }
            print(
                moved.status == "completed"
                    ? "Done: transfer \(moved.id) completed."
                    : "Debited: transfer \(moved.id) is pending; the other account is credited in a moment.")
        }
    }

    static func describe(_ q: AccountTransferQuote, from: Account, to: Account) -> String {
        var rows: [(String, String)] = [
            ("From", "\(from.name) (\(from.accountNumber)): \(Terminal.amount(q.fromAmount)) \(q.fromCurrency)"),
            ("To", "\(to.name) (\(to.accountNumber)): \(Terminal.amount(q.toAmount)) \(q.toCurrency)"),
        ]
        if let pair = q.pricing.pair {
            rows += [
                (
                    "Rate",
                    "\(q.pricing.rate) \(q.toCurrency) per \(q.fromCurrency) (\(pair) at \(q.pricing.pairPrice.map { "\($0)" } ?? "-"))"
                ),
                ("Mid rate", "\(q.pricing.midRate)"),
                (
                    "Spread cost",
                    "\(Terminal.amount(q.pricing.spreadCost)) \(q.fromCurrency)\(q.pricing.oddLot ? " (under USD 25,000: odd-lot spread)" : "")"
                ),
                ("Fee", "\(Terminal.amount(q.pricing.fee)) \(q.fromCurrency)"),
            ]
        }
        return Terminal.pairs(rows)
    }
}
