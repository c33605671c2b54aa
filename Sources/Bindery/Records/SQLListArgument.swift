import Foundation

/// A value of an ``SQL`` fragment that is not converted like a record property: it makes its own
/// statement argument, or throws.
protocol SQLSpecialArgument: Encodable, Sendable {
    /// The argument bound for this value.
    func argument(encoder: ValueEncoder) throws -> SQLiteValue
}

extension SQLSpecialArgument {
    /// Never called: ``SQL/arguments(encoder:)`` asks ``argument(encoder:)`` instead. An `encode(to:)`
    /// that throws keeps the value from ever being stored some other way.
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            String(describing: Self.self),
            .init(codingPath: encoder.codingPath, debugDescription: "an SQL list is not a value to store"))
    }
}

/// A list too long to bind value by value (see ``SQL/StringInterpolation/appendInterpolation(list:)``),
/// bound as one JSON array that `json_each` reads back: `(SELECT +value FROM json_each(?))`.
///
/// Each element is converted like a record property first, then written as the JSON value that
/// `json_each` turns back into the same SQLite value and storage class: an INTEGER as an integer, a
/// REAL as a number with a fraction or an exponent (its shortest exact form, which SQLite reads back
/// to the same double), TEXT as a string, NULL as null. `json_each`'s `value` column has BLOB
/// affinity, which would keep `IN` from converting the values for a TEXT column; `+value` has none,
/// as bound values have none, so `IN` compares them by the same rules. JSON has no bytes, and SQLite
/// cuts a string at an escaped NUL: a BLOB element, or text holding a NUL, throws.
struct SQLJSONList: SQLSpecialArgument {
    let elements: [any Encodable & Sendable]

    func argument(encoder: ValueEncoder) throws -> SQLiteValue {
        var json = "["
        json.reserveCapacity(elements.count * 8 + 2)
        for (index, element) in elements.enumerated() {
            if index > 0 {
                json += ","
            }
            let value = try encoder.encode(element, codingPath: [IndexKey(String(index))])
            switch value {
            case .null:
                json += "null"
            case .integer(let integer):
                json += String(integer)
            case .real(let double):
                Self.appendReal(double, to: &json)
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw unrepresentable(element, index, "is text holding a NUL character, which SQLite's JSON cuts")
                }
                Self.appendString(text, to: &json)
            case .blob:
                throw unrepresentable(element, index, "is stored as a BLOB, which JSON cannot hold")
            }
        }
        json += "]"
        return .text(json)
    }

    /// The error for an element the JSON array cannot carry exactly. The element's type and position
    /// go in the error, not its value: it is user data.
    private func unrepresentable(_ element: any Encodable & Sendable, _ index: Int, _ reason: String) -> EncodingError {
        EncodingError.invalidValue(
            String(describing: type(of: element)),
            .init(
                codingPath: [IndexKey(String(index))],
                debugDescription:
                    "element \(index) (a \(type(of: element))) of a list of \(elements.count) values \(reason); a list "
                    + "longer than \(SQL.listParameterLimit) values is bound as one JSON array: split the list into "
                    + "shorter ones, or store the values as TEXT (a UUID with uuidStrategy .lowercaseText)"))
    }

    /// A double as a JSON number SQLite reads back as the same REAL: Swift's shortest round-trip form,
    /// with ".0" added to a whole number (else SQLite would read an INTEGER), and infinities as the
    /// out-of-range numbers SQLite's own JSON uses for them.
    private static func appendReal(_ double: Double, to json: inout String) {
        if double.isInfinite {
            json += double < 0 ? "-9e999" : "9e999"
            return
        }
        let text = double.description
        json += text
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            json += ".0"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    private static func appendString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}

/// A sequence interpolated as one value right after `IN` or inside `IN (…)`, where its JSON text
/// would fail to parse or silently match nothing: binding it throws, saying to use `\(list:)`.
struct MisplacedSequence: SQLSpecialArgument {
    let typeName: String

    func argument(encoder: ValueEncoder) throws -> SQLiteValue {
        throw EncodingError.invalidValue(
            typeName,
            .init(
                codingPath: [],
                debugDescription:
                    "a \(typeName) interpolated after IN is bound as one JSON text, which is not a list of "
                    + "values: write `IN \\(list: values)` to bind each element"))
    }
}
