import Foundation
import PapertradeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Human output of the client commands: aligned tables, amounts as the server gave them, and colour only on a
/// terminal (never in a pipe or a file, nor with NO_COLOR set).
enum Terminal {
    static let isInteractive = isatty(STDOUT_FILENO) == 1
    static let colors = isInteractive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    enum Tone { case up, down, flat }

    /// Red/green for a signed amount. A-shares are coloured the Chinese way (red rises, green falls).
    static func paint(_ text: String, _ tone: Tone, market: Market? = nil) -> String {
        guard colors, tone != .flat else { return text }
        let rising = market == .cn ? "31" : "32"
        let falling = market == .cn ? "32" : "31"
        return "\u{1B}[\(tone == .up ? rising : falling)m\(text)\u{1B}[0m"
    }

    static func tone(_ value: Decimal?) -> Tone {
        guard let value else { return .flat }
        return value > 0 ? .up : value < 0 ? .down : .flat
    }

    /// An amount with its sign (+1.25, -0.5).
    static func signed(_ value: Decimal?) -> String {
        guard let value else { return "-" }
        return (value > 0 ? "+" : "") + amount(value)
    }

    static func amount(_ value: Decimal?) -> String {
        value.map { ExactDecimal.text($0) } ?? "-"
    }

    /// An amount of money to the cent for a column of values and profits (a coin position's value comes with as many
    /// places as its quantity times its price: 49.9876543 → "49.99"; 25000 stays "25000").
    static func money(_ value: Decimal?) -> String {
        value.map { rounded($0, places: 2) } ?? "-"
    }

    /// An average price for a column (a cost basis divided by a fractional quantity runs to many places): to the
    /// cent from a dollar up, to eight places below (a coin priced in fractions of a cent keeps its digits).
    static func averagePrice(_ value: Decimal?) -> String {
        value.map { rounded($0, places: $0.magnitude >= 1 ? 2 : 8) } ?? "-"
    }

    /// A value rounded half-even to `places` for display, as text.
    static func rounded(_ value: Decimal, places: Int) -> String {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, places, .bankers)
        return ExactDecimal.text(result)
    }

    /// `money` with its sign (+1.25, -0.50).
    static func signedMoney(_ value: Decimal?) -> String {
        guard let value else { return "-" }
        return (value > 0 ? "+" : "") + money(value)
    }

    /// A fraction as a percentage with two decimals (0.0525 → "+5.25%").
    static func percent(fraction: Decimal?) -> String {
        guard let fraction else { return "-" }
        return percent(fraction * 100)
    }

    /// A value already in percent (-0.23 → "-0.23%").
    static func percent(_ value: Decimal) -> String {
        var value = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .plain)
        return (rounded > 0 ? "+" : "") + ExactDecimal.text(rounded) + "%"
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "-" }
        let text = ServerTime.text(date)
        return String(text.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    /// Rows under a header, columns aligned; `right` columns (amounts) are right-aligned. Colour codes do not count
    /// toward a cell's width.
    static func table(_ header: [String], _ rows: [[String]], right: Set<Int> = []) -> String {
        let all = [header] + rows
        let widths = header.indices.map { i in all.map { visibleWidth($0[safe: i] ?? "") }.max() ?? 0 }
        return all.map { row in
            header.indices.map { i in
                let cell = row[safe: i] ?? ""
                let pad = String(repeating: " ", count: max(0, widths[i] - visibleWidth(cell)))
                return right.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }

    /// Label/value lines.
    static func pairs(_ items: [(String, String)]) -> String {
        let width = items.map(\.0.count).max() ?? 0
        return items.map { label, value in
            label + String(repeating: " ", count: width - label.count) + "  " + value
        }.joined(separator: "\n")
    }

    /// Display width: escape sequences take none, CJK characters take two columns.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar == "m" { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" {
                inEscape = true
                continue
            }
            width +=
                (0x1100...0x115F).contains(scalar.value) || (0x2E80...0xA4CF).contains(scalar.value)
                    || (0xAC00...0xD7A3).contains(scalar.value) || (0xF900...0xFAFF).contains(scalar.value)
                    || (0xFF00...0xFF60).contains(scalar.value) ? 2 : 1
        }
        return width
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
