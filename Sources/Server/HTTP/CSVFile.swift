import Hummingbird
import TradingCore

/// A CSV download (a game's standings, a class's grade book and journal): fields quoted as RFC 4180 asks and kept
/// from running as spreadsheet formulas, sent as an attachment.
enum CSVFile {
    /// A CSV field, quoted when it holds a comma, quote or line break; a leading =, +, - or @ is prefixed with an
    /// apostrophe so a spreadsheet does not run a player's name as a formula.
    static func field(_ text: String) -> String {
        var value = text
        if let first = value.first, "=+-@".contains(first), Int(value) == nil,
            (try? FixedDecimal(parsing: value)) == nil
        {
            value = "'" + value
        }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The text as a `text/csv` attachment named `file`.
    static func response(_ text: String, file: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(file)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
