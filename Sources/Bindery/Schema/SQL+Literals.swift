import Foundation

/// ``SQL`` written out with its values as literals, for the statements that cannot take bound
/// parameters: `CREATE TABLE` (defaults, checks, generated columns) and `CREATE INDEX … WHERE`.
extension SQL {
    /// The text with each `?` replaced by the literal of its value, converted by `encoder` as a bound
    /// value would be. Throws ``SchemaChangeError/invalidSQL(_:reason:)`` when the placeholders and
    /// the values do not match, and when a value has no literal (text holding a NUL character).
    func inlined(encoder: ValueEncoder) throws -> String {
        // A list's padding for statement reuse would be written into the schema as it stands.
        let sql = withoutListPadding
        guard sql.valueCount == valueCount else { return try sql.inlined(encoder: encoder) }
        let arguments = try self.arguments(encoder: encoder)
        guard !arguments.isEmpty else { return text }
        let tokens = SQLTokenizer.tokens(of: text)
        let placeholders = tokens.filter { $0.kind == .parameter }
        guard placeholders.count == arguments.count,
            placeholders.allSatisfy({ $0.range.count == 1 })
        else {
            throw SchemaChangeError.invalidSQL(
                text, reason: "it has \(arguments.count) interpolated value(s) but other placeholders too")
        }
        var result = ""
        var position = 0
        for (placeholder, argument) in zip(placeholders, arguments) {
            result += SQLTokenizer.text(text, position..<placeholder.range.lowerBound)
            result += try SQL.literal(argument)
            position = placeholder.range.upperBound
        }
        result += SQLTokenizer.text(text, position..<text.utf8.count)
        return result
    }

    /// A literal that SQLite reads back as exactly `value`: `NULL`, an integer, a real written with
    /// all its digits (`1.0`, `1e+300`, `9e999` for infinity), `'text'` with quotes doubled,
    /// `X'0A1B'`.
    static func literal(_ value: SQLiteValue) throws -> String {
        switch value {
        case .null:
            return "NULL"
        case .integer(let integer):
            return String(integer)
        case .real(let real):
            if real.isNaN { return "NULL" }
            if real.isInfinite { return real < 0 ? "-9e999" : "9e999" }
            // Swift prints the shortest digits that read back as the same double; SQLite's
            // conversion is correctly rounded for them. "1.0" keeps a REAL a REAL.
            let digits = String(real)
            return digits.contains(where: { $0 == "." || $0 == "e" }) ? digits : digits + ".0"
        case .text(let string):
            guard !string.utf8.contains(0) else {
                throw SchemaChangeError.invalidSQL(
                    string, reason: "text holding a NUL character cannot be written as an SQL literal")
            }
            return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            let digits = Array("0123456789ABCDEF".utf8)
            var hex: [UInt8] = []
            hex.reserveCapacity(data.count * 2)
            for byte in data {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0x0F)])
            }
            return "X'" + String(decoding: hex, as: UTF8.self) + "'"
        }
    }
}
