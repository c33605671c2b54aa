import Foundation

/// FTS5 search tables over the columns of a table, kept in step with it by triggers.
extension Connection {
    /// Creates the FTS5 table `name` that indexes `columns` of `table`, fills it from the rows
    /// already there, and creates the triggers that keep it in step on every insert, update and
    /// delete (upserts included): `name_ai`, `name_ad` and `name_au`.
    ///
    /// The search table's rowid is `table`'s rowid (its `INTEGER PRIMARY KEY`), which a query joins
    /// on. `weights` (one per column, 1 when missing) are stored in the search table as its `rank`,
    /// so that `ORDER BY rank` sorts by `bm25` with them.
    ///
    /// ```swift
    /// try conn.create(
    ///     searchTable: "notes_fts", on: "notes", columns: ["title", "body"],
    ///     tokenizer: .unicode61(removeDiacritics: true), weights: ["title": 10])
    /// ```
    ///
    /// The triggers write to an FTS5 table, which SQLite allows only on a connection that trusts its
    /// schema: open the connection (or the ``Database``) with
    /// ``Connection/Options/trustsSchema`` set, or this throws ``SQLiteError/Code/misuse``.
    ///
    /// - Throws: ``SQLiteError`` when a weight is not finite or names no indexed column, or when
    ///   SQLite refuses a statement (a missing table or column, a name FTS5 reserves such as `rank`).
    public func create(
        searchTable name: String, on table: String, columns: [String], tokenizer: SearchTokenizer = .unicode61(),
        content: SearchContent = .external, weights: [String: Double] = [:]
    ) throws {
        guard options.trustsSchema else {
            throw SQLiteError(
                code: .misuse,
                message: "search table '\(name)' is kept in step by triggers that write to an FTS5 table, which "
                    + "SQLite runs only on a connection that trusts its schema: open it with trustsSchema: true")
        }
        guard !columns.isEmpty else {
            throw SQLiteError(code: .misuse, message: "search table '\(name)' needs at least one column")
        }
        for (column, weight) in weights {
            guard columns.contains(column) else {
                throw SQLiteError(
                    code: .misuse, message: "weight for '\(column)', which search table '\(name)' does not index")
            }
            guard weight.isFinite else {
                throw SQLiteError(code: .misuse, message: "weight \(weight) for column '\(column)' is not finite")
            }
        }
        let fts = SQL.quote(identifier: name)
        let source = SQL.quote(identifier: table)
        let quotedColumns = columns.map(SQL.quote(identifier:))
        let columnList = quotedColumns.joined(separator: ", ")
        let contentOption: String
        switch content {
        case .external: contentOption = "content = \(Self.ftsString(table))"
        case .contentless: contentOption = "content = ''"
        }
        try transaction { conn in
            try conn.runSchema(
                "CREATE VIRTUAL TABLE \(fts) USING fts5(\(columnList), \(contentOption), "
                    + "tokenize = \(Self.ftsString(tokenizer.option)))")
            let newValues = quotedColumns.map { "new." + $0 }.joined(separator: ", ")
            let oldValues = quotedColumns.map { "old." + $0 }.joined(separator: ", ")
            let insert = "INSERT INTO \(fts)(rowid, \(columnList)) VALUES (new.rowid, \(newValues));"
            let delete = "INSERT INTO \(fts)(\(fts), rowid, \(columnList)) VALUES ('delete', old.rowid, \(oldValues));"
            try conn.runSchema(
                "CREATE TRIGGER \(SQL.quote(identifier: name + "_ai")) AFTER INSERT ON \(source) BEGIN \(insert) END")
            try conn.runSchema(
                "CREATE TRIGGER \(SQL.quote(identifier: name + "_ad")) AFTER DELETE ON \(source) BEGIN \(delete) END")
            try conn.runSchema(
                "CREATE TRIGGER \(SQL.quote(identifier: name + "_au")) AFTER UPDATE ON \(source) BEGIN \(delete) \(insert) END"
            )
            try conn.runSchema(
                "INSERT INTO \(fts)(rowid, \(columnList)) SELECT rowid, \(columnList) FROM \(source)")
            if !weights.isEmpty {
                let rank = "bm25(" + columns.map { String(weights[$0] ?? 1) }.joined(separator: ", ") + ")"
                try conn.execute("INSERT INTO \(fts)(\(fts), rank) VALUES ('rank', ?)", arguments: [.text(rank)])
            }
        }
    }

    /// Re-indexes the search table `name` from the table it indexes (FTS5 `rebuild`), after rows
    /// changed while its triggers were missing, or to recover from ``checkIntegrity(searchTable:)``
    /// failing. A contentless table cannot be rebuilt: FTS5's error is thrown as ``SQLiteError``.
    public func rebuild(searchTable name: String) throws {
        try command("rebuild", searchTable: name)
    }

    /// Merges the search table's index into one b-tree (FTS5 `optimize`): faster queries and a
    /// smaller file, at the cost of a write proportional to the index.
    public func optimize(searchTable name: String) throws {
        try command("optimize", searchTable: name)
    }

    /// Checks the search table's index, and for external content that it matches the table it
    /// indexes (FTS5 `integrity-check`).
    ///
    /// - Throws: ``SQLiteError`` with code ``SQLiteError/Code/corrupt`` when the index does not
    ///   match; ``rebuild(searchTable:)`` repairs it.
    public func checkIntegrity(searchTable name: String) throws {
        let fts = SQL.quote(identifier: name)
        try execute("INSERT INTO \(fts)(\(fts), rank) VALUES ('integrity-check', 1)", arguments: [])
    }

    private func command(_ command: String, searchTable name: String) throws {
        let fts = SQL.quote(identifier: name)
        try execute("INSERT INTO \(fts)(\(fts)) VALUES (?)", arguments: [.text(command)])
    }

    /// An FTS5 option value: single quotes around `text`, each single quote in it doubled.
    static func ftsString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
