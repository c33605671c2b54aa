import Foundation

/// A primary-key column as the schema probe reads the record type, and which key values can match
/// what it holds.
///
/// The rules: a value of the property's own Swift type always matches. `Date`, `UUID` and `Decimal`
/// keys are stored in a form of their own (a date's text, a lowercase UUID, a decimal's digits),
/// which a value of another type would have to spell exactly: only a value of that type matches
/// them, and such a value matches no other key. A `Bool` matches only a `Bool` key, and a
/// raw-value enum only a key of that same enum: stored as 0/1 or as their raw values, they would
/// otherwise match an unrelated integer or text key by accident. Otherwise the value's storage must
/// be the column's: an integer of any width for INTEGER (an `Int64` for an `Int` key, an `Int` for an
/// `Int`-backed enum key), an integer or a floating-point number for REAL, text for TEXT (a `String`
/// for a `String`-backed enum key), bytes for BLOB; a column of no declared type takes any value. A
/// nil key matches no row, as SQL's `= NULL` says, and is not refused.
struct RecordKeyColumn {
    /// The column name.
    let name: String
    /// The SQL type the probe gave the column.
    let sqlType: String
    /// The property's Swift type (an optional's wrapped type).
    let swiftType: Any.Type

    /// Whether a key of Swift type `given`, stored as `value`, can equal what the column holds.
    func accepts(_ value: SQLiteValue, ofType given: Any.Type) -> Bool {
        if case .null = value {
            return true
        }
        let given = Self.unwrapped(given)
        if ObjectIdentifier(given) == ObjectIdentifier(swiftType) {
            return true
        }
        if Self.hasOwnForm(swiftType) || Self.hasOwnForm(given) || given == Bool.self || Self.isRawValueEnum(given) {
            return false
        }
        switch (sqlType, value) {
        case ("", _), ("INTEGER", .integer), ("REAL", .integer), ("REAL", .real), ("TEXT", .text), ("BLOB", .blob):
            return true
        default:
            return false
        }
    }

    /// What the column holds, for an error: `UUID (TEXT)`.
    var expected: String {
        sqlType.isEmpty ? "\(swiftType)" : "\(swiftType) (\(sqlType))"
    }

    private static func hasOwnForm(_ type: Any.Type) -> Bool {
        type == Date.self || type == UUID.self || type == Decimal.self
    }

    /// Whether `type` is an enum with raw values (`enum Level: Int`).
    private static func isRawValueEnum(_ type: Any.Type) -> Bool {
        type is any RawRepresentable.Type && TypeKind(of: type) == .enum
    }

    /// `type`, without any `Optional` around it.
    static func unwrapped(_ type: Any.Type) -> Any.Type {
        var type = type
        while let optional = type as? any OptionalKeyValue.Type {
            type = optional.wrappedKeyType
        }
        return type
    }
}

/// `Optional` as a key value: its wrapped type is the one compared.
private protocol OptionalKeyValue {
    static var wrappedKeyType: Any.Type { get }
}

extension Optional: OptionalKeyValue {
    fileprivate static var wrappedKeyType: Any.Type { Wrapped.self }
}
