import Foundation

/// Why the table builder did not change a schema. The change it was making was rolled back wholly.
///
/// ```swift
/// do {
///     try conn.alter(table: "books") { t in t.change(column: "price", to: .real).notNull() }
/// } catch SchemaChangeError.rowsBreakConstraints(let table, let rows) {
///     for row in rows { print(table, row.key, row.reason) }
/// }
/// ```
public enum SchemaChangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table does not exist.
    case noSuchTable(String)
    /// The table has no such column.
    case noSuchColumn(table: String, column: String)
    /// The table already has a column of that name.
    case duplicateColumn(table: String, column: String)
    /// The table has no table constraint of that name.
    case noSuchConstraint(table: String, name: String)
    /// A column refers to a record type whose table has a key of several columns (or none): one
    /// column cannot refer to it. Declare a foreign key over as many columns with
    /// ``TableDefinition/foreignKey(_:references:onDelete:onUpdate:deferred:name:)-(_,Parent.Type,_,_,_,_)``.
    case keyColumnCount(column: String, table: String, keyColumns: [String])
    /// No object of that kind has that name: a table (``Connection/reindex(table:)``) or an index
    /// (``Connection/reindex(index:)``) of the main schema, or a collation the connection knows
    /// (``Connection/reindex(collation:)``).
    case noSuchObject(kind: String, name: String)
    /// Some SQL given to the builder cannot be written into a schema statement; the reason says why.
    case invalidSQL(String, reason: String)
    /// Rows of the table that break the table's new definition (a NOT NULL, CHECK, UNIQUE or type of
    /// a `STRICT` table), at most the first 100.
    case rowsBreakConstraints(table: String, rows: [RejectedRow])
    /// Rows that break a foreign key after the change (at most the first 100).
    case foreignKeyViolations([ForeignKeyViolation])
    /// The change needs the table rebuilt, foreign keys refer to it (those of other tables, or its
    /// own when it refers to itself), and foreign keys are enforced in the current transaction, where
    /// SQLite cannot turn them off: dropping the old table would run their `ON DELETE` actions
    /// (deleting or changing rows, a table's own included) or fail. Run the change in a ``Migrator``
    /// migration or outside a transaction.
    case foreignKeysEnforced(table: String)
    /// A view, trigger or index no longer compiles after the change (it uses a column that was
    /// dropped or renamed): one of the table's own, or any other in the schema that uses the table,
    /// such as a search table's trigger. `kind` is `view`, `trigger`, `index` or `table`; nothing was
    /// changed. Drop or change it in the same migration.
    case brokenDependency(kind: String, name: String, reason: String)
    /// The table's `CREATE TABLE` statement, as SQLite keeps it, could not be read.
    case unreadableSchema(table: String, reason: String)

    /// A sentence naming the table, column or object and what went wrong.
    public var description: String {
        switch self {
        case .noSuchTable(let table):
            return "no table \"\(table)\""
        case .noSuchColumn(let table, let column):
            return "table \"\(table)\" has no column \"\(column)\""
        case .duplicateColumn(let table, let column):
            return "table \"\(table)\" already has a column \"\(column)\""
        case .noSuchConstraint(let table, let name):
            return "table \"\(table)\" has no constraint \"\(name)\""
        case .invalidSQL(let text, let reason):
            return "cannot write \(text) into the schema: \(reason)"
        case .rowsBreakConstraints(let table, let rows):
            let shown = rows.prefix(5).map(\.description).joined(separator: "; ")
            let more = rows.count > 5 ? "; and \(rows.count - 5) more" : ""
            return "\(rows.count) row(s) of \"\(table)\" break its new definition: \(shown)\(more)"
        case .foreignKeyViolations(let violations):
            let shown = violations.prefix(5).map(\.description).joined(separator: "; ")
            let more = violations.count > 5 ? "; and \(violations.count - 5) more" : ""
            return "\(violations.count) row(s) break a foreign key: \(shown)\(more)"
        case .foreignKeysEnforced(let table):
            return "rebuilding \"\(table)\", which foreign keys refer to, needs foreign keys off, and SQLite cannot "
                + "turn them off inside a transaction: run the change in a Migrator migration or outside a transaction"
        case .brokenDependency(let kind, let name, let reason):
            return "\(kind) \"\(name)\" no longer works after the change: \(reason)"
        case .unreadableSchema(let table, let reason):
            return "cannot read the definition of table \"\(table)\": \(reason)"
        case .keyColumnCount(let column, let table, let keyColumns):
            return
                "column \"\(column)\" cannot refer to \"\(table)\", whose primary key has \(keyColumns.count) columns "
                + "(\(keyColumns.joined(separator: ", "))): declare a foreign key over as many columns"
        case .noSuchObject(let kind, let name):
            return "no \(kind) named \"\(name)\""
        }
    }
}

extension SchemaChangeError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// A row that a table rebuild could not copy into the table's new definition.
public struct RejectedRow: Sendable, Hashable, CustomStringConvertible {
    /// The row's key: `rowid = 7`, or the primary-key columns of a `WITHOUT ROWID` table
    /// (`code = 'FR', year = 2020`).
    public var key: String
    /// SQLite's message, such as `NOT NULL constraint failed: books.price`.
    public var reason: String

    /// Creates a rejected row.
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    /// `rowid = 7: NOT NULL constraint failed: books.price`.
    public var description: String { "\(key): \(reason)" }
}
