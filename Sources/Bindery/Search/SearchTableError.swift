import Foundation

/// Why ``Connection/create(searchTable:on:columns:tokenizer:content:weights:keptInStep:)`` did not
/// create a search table (nothing was created), why a change to the table a search table indexes was
/// refused (nothing changed), or why a search table no longer matches that table.
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
    /// The indexed table has no `INTEGER PRIMARY KEY` column (an alias of its rowid) and no primary
    /// key the search table can point at its rows by instead, or the search table is not kept in step
    /// (`keptInStep: false`) with external content: `VACUUM` may renumber the rowids of such a table
    /// (and a `WITHOUT ROWID` table has none), which the search table would then point at the wrong
    /// rows.
    case noStableRowID(searchTable: String, table: String)
    /// The triggers cannot tell which rows an `INSERT OR REPLACE` deletes through the UNIQUE index
    /// `index` of `table` (`reason` says why), so the search table would keep rows the table no
    /// longer holds.
    case uncoveredUniqueIndex(searchTable: String, table: String, index: String, reason: String)
    /// A change to `table` (with ``Connection/alter(table:_:)``) gave a column of its primary key
    /// another type or collation: the search table maps that key to its rowids by the old one, and
    /// would point at the wrong rows. Drop the search table, make the change, and create it again.
    case keyChanged(searchTable: String, table: String)
    /// Renaming the search table itself (``Connection/rename(table:to:)``) was refused: its triggers
    /// and the tables beside it are made for its name. Drop it and create it under the new name.
    case searchTableRenamed(searchTable: String)
    /// Renaming `table` was refused: the search table reads it as its external content by that name,
    /// which FTS5 keeps as written. Drop the search table, rename the table, and create the search
    /// table again. (A search table over a table without an `INTEGER PRIMARY KEY` reads it through a
    /// view, which follows the rename.)
    case contentTableRenamed(searchTable: String, table: String)
    /// Renaming `column` of `table` was refused: the search table reads it by that name (external
    /// content), and FTS5 cannot rename its own columns. Drop the search table, rename the column,
    /// and create the search table again with the new name.
    case indexedColumnRenamed(searchTable: String, table: String, column: String)
    /// Dropping `column` of `table` was refused: the search table reads it (as its external content,
    /// through the view of a keyed search table, or in its triggers), and would no longer rank, show
    /// snippets, rebuild or be kept in step. Drop the search table first, or create it again without
    /// the column.
    case indexedColumnDropped(searchTable: String, table: String, column: String)
    /// The search table reads `columns` from `table`, which no longer has them (renamed or dropped
    /// with plain SQL): drop the search table and create it again over the table's columns.
    case contentMismatch(searchTable: String, table: String, columns: [String])
    /// An option has a value FTS5 would not read as given, or one that would make it give wrong
    /// answers with the other options: `option` is FTS5's name for it (`prefix`, `separators`,
    /// `tokenchars`, `columnsize`, `detail`), `reason` says why.
    case invalidOption(searchTable: String, option: String, reason: String)
    /// `column` is named twice among the columns and the unindexed columns (names compared as SQLite
    /// compares them).
    case duplicateColumn(searchTable: String, column: String)
    /// With `ifNotExists`, a search table of that name exists, but not as asked: other columns,
    /// options, weights, or triggers (`existing` is its `CREATE VIRTUAL TABLE` statement, or empty
    /// when it is not a search table).
    case existsWithOtherDefinition(searchTable: String, existing: String)
    /// The search table would point at the rows of `table` by their primary key, but its key column
    /// `column` may hold NULL (a primary key that is not an `INTEGER PRIMARY KEY` of a rowid table
    /// allows NULL, unless declared `NOT NULL`), and rows with a NULL key cannot be told apart.
    case nullableKey(searchTable: String, table: String, column: String)

    /// A request on `requested` was to match through the search table `searchTable`
    /// (``QueryRequest/matching(_:in:ranked:)``), which indexes `table`: its matches would have been
    /// paired with the rows of `requested` that have the same rowids or keys. Search `table`'s search
    /// table with a request on `table` (and include what you need from it by an association).
    case indexesAnotherTable(searchTable: String, table: String, requested: String)

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
                + "has no INTEGER PRIMARY KEY column, so VACUUM may renumber its rowids (or it is WITHOUT ROWID), "
                + "and the search table cannot point at its rows by primary key (it has none, or the search table is "
                + "not kept in step by triggers): give it an INTEGER PRIMARY KEY column or a primary key, keep the "
                + "search table in step, or create a contentless search table with keptInStep: false and write it "
                + "yourself"
        case .uncoveredUniqueIndex(let searchTable, let table, let index, let reason):
            return "search table \"\(searchTable)\" cannot be kept in step with \"\(table)\" by triggers: an INSERT OR "
                + "REPLACE that conflicts through its UNIQUE index \"\(index)\" deletes rows the triggers cannot see, "
                + "because \(reason); drop or change the index, or create the search table with keptInStep: false"
        case .keyChanged(let searchTable, let table):
            return "the type or collation of the primary key of \"\(table)\" changed, which search table "
                + "\"\(searchTable)\" maps to its rowids: drop the search table, make the change, and create it again"
        case .contentTableRenamed(let searchTable, let table):
            return "\"\(table)\" was not renamed: search table \"\(searchTable)\" reads it by that name as its "
                + "content; drop the search table, rename the table, and create the search table again"
        case .searchTableRenamed(let searchTable):
            return "search table \"\(searchTable)\" cannot be renamed (its triggers and side tables are made for its "
                + "name): drop it and create it under the new name"
        case .indexedColumnRenamed(let searchTable, let table, let column):
            return "column \"\(column)\" of \"\(table)\" was not renamed: search table \"\(searchTable)\" reads it by "
                + "that name and FTS5 cannot rename its columns; drop the search table, rename the column, and "
                + "create the search table again"
        case .indexedColumnDropped(let searchTable, let table, let column):
            return
                "column \"\(column)\" of \"\(table)\" was not dropped: search table \"\(searchTable)\" reads it; drop "
                + "the search table first, or create it again without the column"
        case .invalidOption(let searchTable, let option, let reason):
            return "search table \"\(searchTable)\" cannot have this \(option) option: \(reason)"
        case .duplicateColumn(let searchTable, let column):
            return "search table \"\(searchTable)\" names column \"\(column)\" twice"
        case .existsWithOtherDefinition(let searchTable, let existing):
            return "search table \"\(searchTable)\" already exists, but not as asked (other columns, options, weights "
                + "or triggers): "
                + (existing.isEmpty ? "it is not a search table" : "it was created as `\(existing)`")
                + "; drop it first, or use another name"
        case .indexesAnotherTable(let searchTable, let table, let requested):
            return
                "search table \"\(searchTable)\" indexes \"\(table)\", not \"\(requested)\": a request on \"\(requested)\" "
                + "cannot match through it (its matches would be paired with other rows); match through a "
                + "search table of \"\(requested)\", or request \"\(table)\""
        case .nullableKey(let searchTable, let table, let column):
            return "search table \"\(searchTable)\" would point at the rows of \"\(table)\" by their primary key, but "
                + "its column \"\(column)\" may hold NULL, and rows with a NULL key cannot be told apart: declare it "
                + "NOT NULL"
        case .contentMismatch(let searchTable, let table, let columns):
            return "search table \"\(searchTable)\" reads "
                + columns.map { "\"\($0)\"" }.joined(separator: ", ") + " from \"\(table)\", which has no such "
                + "column (renamed or dropped since): drop the search table and create it again over the table's columns"
        }
    }
}

extension SearchTableError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
