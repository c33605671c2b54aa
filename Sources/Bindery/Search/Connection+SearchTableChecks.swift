/// Checks that keep a search table with external content and the table it reads from agreeing on
/// column names: FTS5 reads the indexed columns from that table by name.
extension Connection {
    /// The FTS5 tables whose external content is `table` (names compared as SQLite compares them).
    func searchTables(readingFrom table: String) throws -> [SearchTableDefinition] {
        let candidates = try rows(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
            arguments: [])
        return try candidates.compactMap { row in
            guard let sql: String = try row["sql"],
                let definition = SearchTableDefinition(name: try row["name"], sql: sql),
                let content = definition.content, FoldedIdentifier.same(content, table)
            else { return nil }
            return definition
        }
    }

    /// Throws ``SearchTableError/indexedColumnRenamed(searchTable:table:column:)`` when a search table
    /// reads `column` of `table`: FTS5 cannot rename its columns, so after the rename its snippets,
    /// highlights, integrity check and rebuild would fail. The table builder calls this before it
    /// renames a column (``TableAlteration/rename(column:to:)``).
    func checkSearchTablesAllowRenaming(column: String, of table: String) throws {
        for searchTable in try searchTables(readingFrom: table)
        where searchTable.columns.contains(where: { FoldedIdentifier.same($0, column) }) {
            throw SearchTableError.indexedColumnRenamed(searchTable: searchTable.name, table: table, column: column)
        }
    }

    /// Throws ``SearchTableError/indexedColumnDropped(searchTable:table:column:)`` when a search table
    /// that indexes `table` (``indexedTable(ofSearchTable:)``: as its external content, through a keyed
    /// search table's view, or in its triggers) reads `column`: without it, the search table could no
    /// longer rank, show snippets, rebuild or be kept in step, and with `keptInStep: false` nothing
    /// else would say so. The table builder calls this before it drops a column
    /// (``TableAlteration/drop(column:)``).
    func checkSearchTablesAllowDropping(column: String, of table: String) throws {
        let candidates = try rows(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
            arguments: [])
        for row in candidates {
            guard let sql: String = try row["sql"],
                let definition = SearchTableDefinition(name: try row["name"], sql: sql),
                definition.columns.contains(where: { FoldedIdentifier.same($0, column) }),
                let indexed = try indexedTable(ofSearchTable: definition.name), FoldedIdentifier.same(indexed, table)
            else { continue }
            throw SearchTableError.indexedColumnDropped(searchTable: definition.name, table: table, column: column)
        }
    }

    /// Throws ``SearchTableError/contentMismatch(searchTable:table:columns:)`` when the search table
    /// `name` reads columns its content table no longer has (renamed or dropped by plain SQL).
    func checkSearchContent(of name: String) throws {
        guard
            let sql = try rows(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(name)]
            ).first.map({ try $0[0] as String? }) ?? nil,
            let definition = SearchTableDefinition(name: name, sql: sql), let content = definition.content,
            !content.isEmpty
        else { return }
        let present = try rows("SELECT name FROM pragma_table_xinfo(?)", arguments: [.text(content)])
            .map { FoldedIdentifier(try $0[0] as String) }
        guard !present.isEmpty else { return }  // a missing table: FTS5's own error names it
        let missing = definition.columns.filter { !present.contains(FoldedIdentifier($0)) }
        if !missing.isEmpty {
            throw SearchTableError.contentMismatch(searchTable: name, table: content, columns: missing)
        }
    }
}

extension Connection {
    /// Makes the triggers of every search table kept in step with `table` again, for the UNIQUE keys
    /// `table` has now: the triggers note the rows an `INSERT OR REPLACE` deletes through each key,
    /// so a key added later needs them made again. The table builder calls this after it creates a
    /// UNIQUE index (``create(index:on:columns:unique:ifNotExists:where:)``) or rebuilds a table
    /// (``alter(table:_:)``). Call it inside a transaction.
    ///
    /// - Throws: ``SearchTableError/uncoveredUniqueIndex(searchTable:table:index:reason:)`` for a key
    ///   the triggers cannot follow.
    func refreshSearchTriggers(on table: String) throws {
        // (See checkRenaming(searchTable:) for the table itself.)
        let triggers = try rows(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE",
            arguments: [.text(table)]
        ).map { try $0[0] as String }
        let names = Set(triggers)
        for trigger in triggers where trigger.hasSuffix("_bi") {
            let name = String(trigger.dropLast(3))
            guard ["_ai", "_au", "_bu", "_ad"].allSatisfy({ names.contains(name + $0) }),
                let sql = try rows(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [.text(name)]
                ).first.map({ try $0[0] as String? }) ?? nil,
                let definition = SearchTableDefinition(name: name, sql: sql)
            else { continue }
            let uniqueKeys = try uniqueKeys(of: table, searchTable: name)
            let statements: [String]
            if let stored = try keysTableStatement(of: name) {
                let rowKey = try searchRowKey(of: table, searchTable: name)
                // The mapping's columns compare as the key did when it was made.
                guard stored == rowKey.key.keysTableStatement(searchTable: name) else {
                    throw SearchTableError.keyChanged(searchTable: name, table: table)
                }
                statements =
                    SearchKeyedTriggers(
                        name: name, table: table, columns: definition.columns, key: rowKey.key, uniqueKeys: uniqueKeys,
                        hasRowid: rowKey.hasRowid
                    ).statements
            } else {
                statements =
                    SearchTriggers(name: name, table: table, columns: definition.columns, uniqueKeys: uniqueKeys)
                    .statements
            }
            for statement in SearchTriggers.dropStatements(name: name) + statements {
                try runSchema(statement)
            }
        }
    }

    /// Throws ``SearchTableError/searchTableRenamed(searchTable:)`` when `name` is a search table kept
    /// in step by triggers, or one that maps keys to its rowids: SQLite renames the table in the
    /// triggers' statements but not the hidden column of the same name they write, and the mapping
    /// table, the content view and the triggers keep the old name; and
    /// ``SearchTableError/contentTableRenamed(searchTable:table:)`` when a search table reads `name`
    /// as its content, by name. The table builder calls this before it renames a table
    /// (``Connection/rename(table:to:)``).
    func checkRenaming(searchTable name: String) throws {
        if let reader = try searchTables(readingFrom: name).first {
            throw SearchTableError.contentTableRenamed(searchTable: reader.name, table: name)
        }
        let companions =
            try rows(
                "SELECT count(*) FROM sqlite_schema WHERE (type = 'trigger' AND name = ?) OR (type = 'table' AND name = ?)",
                arguments: [.text(name + "_ai"), .text(name + "_keys")]
            ).first.map { try $0[0] as Int64 } ?? 0
        guard companions > 0,
            let sql = try rows(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(name)]
            ).first.map({ try $0[0] as String? }) ?? nil,
            SearchTableDefinition(name: name, sql: sql) != nil
        else { return }
        throw SearchTableError.searchTableRenamed(searchTable: name)
    }
}
