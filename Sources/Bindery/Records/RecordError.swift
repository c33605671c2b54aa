/// Errors of the record operations that are not SQLite's own.
public enum RecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No row of `table` has the primary key `key` (an update or a delete of a missing row).
    case notFound(table: String, key: [String: SQLiteValue])
    /// The record has no value, or NULL, for a primary-key column, so it cannot be found by key.
    case missingPrimaryKey(table: String, column: String)
    /// The column names given do not match the record type (an unknown column, or a key that is not
    /// the primary key).
    case unknownColumns(table: String, columns: [String])

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
        }
    }
}
