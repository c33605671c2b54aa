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
            let value: SQLiteValue
            do {
                value = try encoder.encode(element, codingPath: [])
            } catch EncodingError.invalidValue(let culprit, let context) {
                // NaN, a date out of range …: named by its place in the list, not as a column.
                throw EncodingError.invalidValue(
                    culprit,
                    .init(
                        codingPath: [IndexKey(String(index))] + context.codingPath,
                        debugDescription: context.debugDescription
                            + " (element \(index) of a list of \(elements.count) values)",
                        underlyingError: context.underlyingError))
            }
            switch Self.append(value, to: &json) {
            case nil:
                break
            case .textWithNUL:
                throw unrepresentable(
                    element, index, "is text holding a NUL character, which SQLite's JSON cuts short", advice: "")
            case .blob:
                let isUUID = SQLTypeName(type(of: element)).unwrapped.base == "UUID"
                throw unrepresentable(
                    element, index, "is stored as a BLOB, which JSON cannot hold",
                    advice: isUUID ? ", or store UUIDs as TEXT (uuidStrategy .lowercaseText)" : "")
            }
        }
        json += "]"
        return .text(json)
    }

    /// The error for an element the JSON array cannot carry exactly. The element's type and position
    /// go in the error, not its value: it is user data.
    private func unrepresentable(
        _ element: any Encodable & Sendable, _ index: Int, _ reason: String, advice: String
    ) -> EncodingError {
        let limit = SQL.listParameterLimit
        return EncodingError.invalidValue(
            String(describing: type(of: element)),
            .init(
                codingPath: [IndexKey(String(index))],
                debugDescription:
                    "element \(index) (\(SQLTypeName(type(of: element)))) of a list of \(elements.count) values "
                    + "\(reason); a list of more than \(limit) values is bound as one JSON array: split it into "
                    + "lists of at most \(limit) values, or put the values in a temporary table and write "
                    + "`IN (SELECT value FROM that_table)`\(advice)"))
    }

    /// What JSON cannot carry exactly: a BLOB, and text holding a NUL, which SQLite's JSON cuts short.
    enum Unrepresentable {
        case blob
        case textWithNUL
    }

    /// Appends `value` to `json` as the JSON value SQLite reads back as the same value (NULL as null,
    /// an INTEGER as a number, a REAL per ``appendReal(_:to:)``, TEXT as a string); returns why it
    /// could not, having appended nothing, for the caller's own error.
    static func append(_ value: SQLiteValue, to json: inout String) -> Unrepresentable? {
        switch value {
        case .null:
            json += "null"
        case .integer(let integer):
            json += String(integer)
        case .real(let double):
            appendReal(double, to: &json)
        case .text(let text):
            guard !text.utf8.contains(0) else { return .textWithNUL }
            appendString(text, to: &json)
        case .blob:
            return .blob
        }
        return nil
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

/// Where a value interpolated into ``SQL`` stands relative to an `IN`.
enum SQLINPosition: Sendable {
    /// Right after the keyword: `x IN \(value)`, where SQLite wants parentheses or a table name.
    case afterKeyword
    /// Inside the parentheses of a list: `x IN (\(value))`, `x IN (?, \(value))`.
    case inParentheses
}

/// A value interpolated right after `IN` or inside `IN (…)`. It is bound as `\(value)` binds it,
/// unless what it encodes to cannot be meant: JSON text (an array, a set, a dictionary, a keyed
/// struct), which is one text and not a list of values, or any value right after the keyword, which
/// SQLite would refuse with a bare syntax error. Those throw, saying to use `\(list:)`.
///
/// The decision is made from the value's encoding, not from its type's conformances: a `Sequence`
/// that encodes as one string is bound as that string.
struct SQLINValue<Value: Encodable & Sendable>: SQLSpecialArgument {
    let value: Value
    let position: SQLINPosition

    func argument(encoder: ValueEncoder) throws -> SQLiteValue {
        let jsonCount = encoder.jsonCount
        let argument = try encoder.encode(value, codingPath: [])
        if encoder.jsonCount != jsonCount, case .text(let json) = argument {
            throw misplaced(
                "\(subject()) interpolated after IN is bound as one JSON "
                    + (json.hasPrefix("{") ? "object" : "array")
                    + " text, which is not a list of values: write `IN \\(list: values)` to bind each element")
        }
        guard position == .inParentheses else {
            throw misplaced(
                "a value interpolated right after IN needs parentheses: write `IN (\\(value))` for one value, "
                    + "or `IN \\(list: values)` to bind each element of a sequence")
        }
        return argument
    }

    /// "an array ([Int64])", "a set (Set<String>)", "a dictionary ([String: Int])", or "a value of
    /// type Point".
    private func subject() -> String {
        let name = SQLTypeName(Value.self)
        switch name.unwrapped.base {
        case "Array", "ContiguousArray", "ArraySlice": return "an array (\(name))"
        case "Set": return "a set (\(name))"
        case "Dictionary": return "a dictionary (\(name))"
        default: return "a value of type \(name)"
        }
    }

    private func misplaced(_ description: String) -> EncodingError {
        EncodingError.invalidValue(
            String(describing: Value.self), .init(codingPath: [], debugDescription: description))
    }
}
