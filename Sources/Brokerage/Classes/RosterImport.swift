import BrokerageModel

/// A class roster as a teacher exports it from a school system: CSV with a header naming `username` and
/// `display_name`, and optionally `email` (in any order). Read whole and checked whole: one bad line refuses the
/// import and nothing is created, and the refusal names every bad line by its number in the file.
public struct RosterImport: Sendable, Hashable {
    /// One student to add: the line they are on (1 is the header), their username (lower-cased, as log-ins are),
    /// the name the teacher knows them by, and an optional email.
    public struct Row: Sendable, Hashable {
        public var line: Int
        public var username: String
        public var displayName: String
        public var email: String?

        public init(line: Int, username: String, displayName: String, email: String? = nil) {
            self.line = line
            self.username = username
            self.displayName = displayName
            self.email = email
        }
    }

    /// What is wrong on one line.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public var rows: [Row]

    /// The most students one import adds.
    public static let largest = 1_000

    /// Reads and checks a roster; throws `.invalid` listing every problem (at most the first 20 in the message).
    public static func parse(_ text: String) throws(BrokerageError) -> RosterImport {
        let records = CSV.records(text)
        guard let header = records.first else { throw .invalid("the roster is empty: expected a header line") }
        let names = header.fields.map { $0.trimmed.lowercased() }
        guard let usernameColumn = names.firstIndex(of: "username"),
            let nameColumn = names.firstIndex(of: "display_name")
        else {
            throw .invalid(
                "the roster's first line must name the columns username and display_name (and optionally email)")
        }
        if let unknown = names.first(where: { !["username", "display_name", "email"].contains($0) }) {
            throw .invalid(
                "line 1: unknown column \"\(unknown)\": expected username, display_name and optionally email")
        }
        let emailColumn = names.firstIndex(of: "email")
        var rows: [Row] = []
        var problems: [Problem] = []
        var firstLine: [String: Int] = [:]
        for record in records.dropFirst() where !record.fields.allSatisfy({ $0.trimmed.isEmpty }) {
            guard record.fields.count == names.count else {
                problems.append(
                    Problem(
                        line: record.line,
                        message: "\(record.fields.count) fields where the header names \(names.count)"))
                continue
            }
            let username = record.fields[usernameColumn].trimmed.lowercased()
            let displayName = record.fields[nameColumn].trimmed
            let email = emailColumn.map { record.fields[$0].trimmed }.flatMap { $0.isEmpty ? nil : $0 }
            if let problem = AccountRules.usernameProblem(username) {
                problems.append(Problem(line: record.line, message: "\"\(username)\": \(problem)"))
            } else if let first = firstLine[username] {
                problems.append(
                    Problem(line: record.line, message: "username \(username) is already on line \(first)"))
            } else {
                firstLine[username] = record.line
            }
            if displayName.isEmpty || displayName.count > 64 {
                problems.append(Problem(line: record.line, message: "display_name must be 1 to 64 characters"))
            }
            if let email, !Self.looksLikeEmail(email) {
                problems.append(Problem(line: record.line, message: "\"\(email)\" is not an email address"))
            }
            rows.append(Row(line: record.line, username: username, displayName: displayName, email: email))
        }
        try refuse(problems)
        guard !rows.isEmpty else { throw .invalid("the roster names no students") }
        guard rows.count <= largest else {
            throw .invalid("the roster names \(rows.count) students; one import adds at most \(largest)")
        }
        return RosterImport(rows: rows)
    }

    /// Throws `.invalid` naming the problems (nothing was created).
    public static func refuse(_ problems: [Problem]) throws(BrokerageError) {
        guard !problems.isEmpty else { return }
        let shown = problems.prefix(20).map(\.description).joined(separator: "; ")
        let more = problems.count > 20 ? "; and \(problems.count - 20) more" : ""
        throw .invalid("the roster was not imported, nothing was created: \(shown)\(more)")
    }

    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(where: \.isWhitespace)
            && text.count <= 254
    }
}

/// RFC 4180 CSV: fields separated by commas, quoted fields may hold commas, quotes (doubled) and line breaks.
/// Each record keeps the line it starts on.
enum CSV {
    struct Record {
        var line: Int
        var fields: [String]
    }

    static func records(_ text: String) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var line = 1
        var start = 1
        var characters = text.makeIterator()
        var pending: Character? = nil
        func next() -> Character? {
            if let c = pending {
                pending = nil
                return c
            }
            return characters.next()
        }
        func endRecord() {
            fields.append(field)
            field = ""
            if !(fields.count == 1 && fields[0].isEmpty) { records.append(Record(line: start, fields: fields)) }
            fields = []
        }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let after = next() {
                        if after == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            pending = after
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    if c == "\n" || c == "\r\n" { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                start = line
            default: field.append(c)
            }
        }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        // A byte-order mark some spreadsheets write before the header.
        if let first = records.first?.fields.first, first.hasPrefix("\u{FEFF}") {
            records[0].fields[0] = String(first.dropFirst())
        }
        return records
    }
}
