import JSON

/// JSON Schema pieces for the document.
enum OpenAPISchema {
    static let string: JSONValue = .object(["type": .string("string")])
    static let boolean: JSONValue = .object(["type": .string("boolean")])
    /// A JSON number (IB's clients send prices and quantities as numbers).
    static let number: JSONValue = .object(["type": .string("number")])
    /// An integer or its digits as a string (IB's clients send a conid either way).
    static let integerOrString: JSONValue = .object([
        "anyOf": .array([.object(["type": .string("integer")]), .object(["type": .string("string")])])
    ])
    static let decimal: JSONValue = .object([
        "type": .string("string"), "pattern": .string("^[0-9]{1,12}(\\.[0-9]{1,9})?$"),
        "description": .string("a decimal number as a string"),
    ])
    static let uuid: JSONValue = .object(["type": .string("string"), "format": .string("uuid")])
    static let date: JSONValue = .object(["type": .string("string"), "format": .string("date")])
    static let time: JSONValue = .object([
        "type": .string("string"),
        "pattern": .string(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2}))?$"),
    ])
    /// An RFC 3339 date and time (no bare date).
    static let dateTime: JSONValue = pattern(
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$")
    static let timeframe: JSONValue = pattern(
        "^([1-9]|[1-5][0-9])(Min|T)$|^([1-9]|1[0-9]|2[0-3])(Hour|H)$|^1(Day|D|Week|W)$|^([1-9]|1[0-2])(Month|M)$")
    static func pattern(_ regex: String) -> JSONValue {
        .object(["type": .string("string"), "pattern": .string(regex)])
    }
    /// One of `values` in any letter case (what the server accepts for these: "DESC" as well as "desc").
    static func caseless(_ values: [String]) -> JSONValue {
        let alternatives = values.map { value in
            value.map { c -> String in
                if c.isLetter { return "[\(c.lowercased())\(c.uppercased())]" }
                return c.isNumber ? String(c) : "\\\(c)"
            }.joined()
        }
        return pattern("^(" + alternatives.joined(separator: "|") + ")$")
    }

    static func enumeration(_ values: [String]) -> JSONValue {
        .object(["type": .string("string"), "enum": .array(values.map(JSONValue.string))])
    }
    static func integer(_ range: ClosedRange<Int>) -> JSONValue {
        .object(["type": .string("integer"), "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound)])
    }
    /// The schema with an example value (schemathesis starts from examples: a real symbol reaches real data).
    static func example(_ schema: JSONValue, _ value: String) -> JSONValue {
        guard case .object(var o) = schema else { return schema }
        o["examples"] = .array([.string(value)])
        return .object(o)
    }

    /// The schema, or null.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        .object(["anyOf": .array([schema, .object(["type": .string("null")])])])
    }

    static func object(required: [String], _ properties: [String: JSONValue]) -> JSONValue {
        var o: [String: JSONValue] = ["type": .string("object"), "properties": .object(properties)]
        if !required.isEmpty { o["required"] = .array(required.map(JSONValue.string)) }
        return .object(o)
    }
}
