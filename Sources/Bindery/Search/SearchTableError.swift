import Foundation

/// Why ``Connection/create(searchTable:on:columns:tokenizer:content:weights:keptInStep:)`` did not
/// create a search table. Nothing was created.
///
/// ```swift
/// do {
///     try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
/// } catch SearchTableError.untrustedSchema(let searchTable) {
///     print("open the database with schemaTrust: .trustedSchema to keep \(searchTable) in step")
/// }
/// ```
public enum SearchTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The search table is to be kept in step by triggers, which write to an FTS5 table, and SQLite
    /// runs such triggers only on a connection that trusts its schema: without
    /// ``SchemaTrust/trustedSchema`` (``Connection/Options/schemaTrust``) every later write of the
    /// table would fail.
    case untrustedSchema(searchTable: String)
    /// No column to index was given.
    case noColumns(searchTable: String)
    /// A weight names a column the search table does not index.
    case weightForUnindexedColumn(searchTable: String, column: String)
    /// A weight is not a finite number.
    case invalidWeight(searchTable: String, column: String, weight: Double)
    /// The indexed table has no `INTEGER PRIMARY KEY` column (an alias of its rowid): `VACUUM` may
    /// renumber the rowids of such a table (and a `WITHOUT ROWID` table has none), which the search
    /// table would then point at the wrong rows.
    case noStableRowID(searchTable: String, table: String)

    /// A sentence naming the search table, the column and what went wrong.
    public var description: String {
        switch self {
        case .untrustedSchema(let searchTable):
            return "search table \"\(searchTable)\" would be kept in step by triggers that write to an FTS5 table, "
                + "which SQLite runs only on a connection that trusts its schema: open the connection or the "
                + "Database with schemaTrust: .trustedSchema, or create it with keptInStep: false and write it yourself"
        case .noColumns(let searchTable):
            return "search table \"\(searchTable)\" needs at least one column to index"
        case .weightForUnindexedColumn(let searchTable, let column):
            return "search table \"\(searchTable)\" has a weight for \"\(column)\", a column it does not index"
        case .invalidWeight(let searchTable, let column, let weight):
            return "search table \"\(searchTable)\" has weight \(weight) for \"\(column)\", which is not finite"
        case .noStableRowID(let searchTable, let table):
            return "search table \"\(searchTable)\" would point at the rows of \"\(table)\" by rowid, but \"\(table)\" "
                + "has no INTEGER PRIMARY KEY column, so VACUUM may renumber its rowids (or it is WITHOUT ROWID): "
                + "give it an INTEGER PRIMARY KEY column, or create a contentless search table with keptInStep: false "
                + "and write it yourself"
        }
    }
}

extension SearchTableError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
