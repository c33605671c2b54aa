/// Errors of the record operations that are not SQLite's own.
public enum RecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No row of `table` has the primary key `key` (an update or a delete of a missing row).
    case notFound(table: String, key: [String: SQLiteValue])
    /// The record has no value, or NULL, for a primary-key column, so it cannot be found by key.
    case missingPrimaryKey(table: String, column: String)
    /// The column names given do not match the record type (an unknown column, or a key that is not
    /// the primary key).
    case unknownColumns(table: String, columns: [String])
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
        case .keyTypeMismatch(let record, let column, let expected, let given):
            return "the key column \"\(column)\" of \(record) holds \(expected); a key of type \(given) cannot match "
                + "it (pass a value of the key property's type)"
        }
    }
}
