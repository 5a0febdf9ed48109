import Foundation
import PapertradeKit
import Testing

/// Decodes the server's JSON into a model, encodes the model back, and compares the two: every field the server
/// sent must come back with the same value (amounts digit for digit, times to the microsecond a `Date` holds), so a
/// field the kit forgot or misreads fails here. `ignoring` names fields a model leaves out on purpose.
func expectRoundTrip<Model: Codable>(
    _ type: Model.Type, _ server: Any, ignoring: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let data = try JSONSerialization.data(withJSONObject: server)
    let model = try PapertradeJSON.decoder().decode(Model.self, from: data)
    let back = try JSONSerialization.jsonObject(with: try PapertradeJSON.encoder().encode(model))
    var differences: [String] = []
    compare(server, back, path: "\(Model.self)", ignoring: ignoring, into: &differences)
    #expect(differences.isEmpty, "\(differences.prefix(10).joined(separator: "\n"))", sourceLocation: sourceLocation)
}

private func compare(_ server: Any, _ model: Any, path: String, ignoring: Set<String>, into differences: inout [String])
{
    switch (server, model) {
    case (let s as [String: Any], let m as [String: Any]):
        for (key, value) in s where !ignoring.contains(key) {
            guard let mine = m[key] else {
                if !(value is NSNull) { differences.append("\(path).\(key): not in the model") }
                continue
            }
            compare(value, mine, path: "\(path).\(key)", ignoring: ignoring, into: &differences)
        }
        for key in m.keys where s[key] == nil && !(m[key] is NSNull) {
            differences.append("\(path).\(key): the model writes a field the server did not send")
        }
    case (let s as [Any], let m as [Any]):
        guard s.count == m.count else { return differences.append("\(path): \(s.count) items became \(m.count)") }
        for (i, (a, b)) in zip(s, m).enumerated() {
            compare(a, b, path: "\(path)[\(i)]", ignoring: ignoring, into: &differences)
        }
    case (let s as String, let m as String):
        if s == m { return }
        if let a = ServerTime.parse(s), let b = ServerTime.parse(m), abs(a.timeIntervalSince(b)) < 0.000_002 { return }
        differences.append("\(path): \(s) became \(m)")
    case (is NSNull, is NSNull): return
    case (let s as NSNumber, let m as NSNumber):
        if s != m { differences.append("\(path): \(s) became \(m)") }
    default: differences.append("\(path): \(server) became \(model)")
    }
}
