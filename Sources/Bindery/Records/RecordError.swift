import Foundation

/// Errors of the record operations that are not SQLite's own.
public enum RecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No row of `table` has the primary key `key` (an update or a delete of a missing row).
    case notFound(table: String, key: [String: SQLiteValue])
    /// The record has no value, or NULL, for a primary-key column, so it cannot be found by key.
    case missingPrimaryKey(table: String, column: String)
    /// `update(_:columns:)` was given names that are not columns of the record type.
    case unknownColumns(table: String, columns: [String])
    /// A `key:` look-up (`find(_:key:)`, `delete(_:key:)`) left out key columns: `key` is the
    /// primary key, `missing` the columns not given.
    case incompleteKey(table: String, key: [String], missing: [String])
    /// A `key:` look-up named `columns`, which are not key columns; `key` is the primary key.
    case notKeyColumns(table: String, key: [String], columns: [String])
    /// An `id:` look-up (`find(_:id:)`, `delete(_:id:)`) on a table whose primary key, `key`, has
    /// several columns: pass them all with the `key:` form.
    case compositeKey(table: String, key: [String])
    /// A key value given to a key look-up (`find`, `delete(_:id:)`, their `key:` forms) whose Swift
    /// type cannot match what the record's key column holds: an `Int` for a `UUID` key, a `String`
    /// for an integer key, a `Date` for an `Int` key. `record` is the record type, `expected` the
    /// key property's Swift type and SQL type (`UUID (TEXT)`), `given` the type of the value passed.
    case keyTypeMismatch(record: String, column: String, expected: String, given: String)

    /// A sentence naming the table and the key or columns.
    public var description: String {
        switch self {
        case .notFound(let table, let key):
            let shown = key.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
            return "no row in \"\(table)\" with \(shown)"
        case .missingPrimaryKey(let table, let column):
            return "the record for \"\(table)\" has no value for its primary-key column \"\(column)\""
        case .unknownColumns(let table, let columns):
            return "\"\(table)\" has no column(s) \(columns.joined(separator: ", ")) in this record type's keys"
        case .incompleteKey(let table, let key, let missing):
            let verb = missing.count == 1 ? "is" : "are"
            return "the key of \"\(table)\" is \(Self.list(key)); \(Self.quoted(missing)) \(verb) missing"
        case .notKeyColumns(let table, let key, let columns):
            let noun = columns.count == 1 ? "is not a key column" : "are not key columns"
            return "the key of \"\(table)\" is \(Self.list(key)); \(Self.quoted(columns)) \(noun)"
        case .compositeKey(let table, let key):
            return "\"\(table)\" has a \(key.count)-column key \(Self.list(key)): use find(_:key:) or delete(_:key:)"
        case .keyTypeMismatch(let record, let column, let expected, let given):
            return "the key column \"\(column)\" of \(record) holds \(expected); a key of type \(given) cannot match "
                + "it (pass a value of the key property's type)"
        }
    }

    /// `(a, b)`.
    private static func list(_ columns: [String]) -> String {
        "(" + columns.joined(separator: ", ") + ")"
    }

    /// `"a", "b"`.
    private static func quoted(_ columns: [String]) -> String {
        columns.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

extension RecordError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
