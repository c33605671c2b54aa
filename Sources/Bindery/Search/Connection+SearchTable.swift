import Foundation

/// FTS5 search tables over the columns of a table, kept in step with it by triggers.
extension Connection {
    /// Creates the FTS5 table `name` that indexes `columns` of `table` (and stores `unindexed`
    /// columns beside them, which are returned but never searched) and fills it from the rows
    /// already there; with `keptInStep`, creates the triggers that keep it in step on every insert,
    /// update, delete and upsert of the table, `INSERT OR REPLACE` and `UPDATE OR REPLACE` included.
    ///
    /// The search table's rowid is `table`'s rowid, which a query joins on, when `table` has an
    /// `INTEGER PRIMARY KEY` column (an alias of the rowid, which `VACUUM` keeps). Over a table without
    /// one (a TEXT or composite primary key, `WITHOUT ROWID`), whose rowids `VACUUM` may renumber, it
    /// is the id of the row's key in a mapping table `name_keys`, kept by the triggers (external content
    /// is then read through the view `name_source`): a key column that may hold NULL throws
    /// ``SearchTableError/nullableKey(searchTable:table:column:)``; a table without a primary key, or
    /// `keptInStep: false` with external content, throws ``SearchTableError/noStableRowID(searchTable:table:)``.
    /// `weights` (one per indexed column, 1 when missing) are stored in the search table as its
    /// `rank`, so that ``QueryRequest/matching(_:in:ranked:)`` sorts by `bm25` with them.
    ///
    /// ```swift
    /// try conn.create(
    ///     searchTable: "notes_fts", on: "notes", columns: ["title", "body"],
    ///     tokenizer: .unicode61(removeDiacritics: true), weights: ["title": 10])
    /// ```
    ///
    /// The triggers write to an FTS5 table, which SQLite allows only on a connection that trusts its
    /// schema: every connection that writes `table` must be opened with ``SchemaTrust/trustedSchema``
    /// (``Connection/Options/schemaTrust``, ``Database/Options-swift.struct/schemaTrust``), and
    /// this throws ``SearchTableError/untrustedSchema(searchTable:)`` on one that is not. Reading and
    /// searching need no trust. With `keptInStep: false` there are no triggers: the app writes the
    /// search table itself (`INSERT INTO notes_fts(rowid, title, body) VALUES (…)`, and for a
    /// deleted or changed row FTS5's `'delete'` command with the old values) or calls
    /// ``rebuild(searchTable:)``, on any connection.
    ///
    /// `INSERT OR REPLACE` deletes the rows in its way without firing delete triggers (unless
    /// `PRAGMA recursive_triggers` is on), so the triggers note, before each insert or update, the
    /// rows that conflict with it on the rowid or on a UNIQUE constraint of `table` as it is now, in
    /// the table `name_replaced`, and take those that the write deleted out of the index after it:
    /// plain, partial (`WHERE`) and expression UNIQUE indexes alike. A UNIQUE index added later with
    /// ``create(index:on:columns:unique:ifNotExists:where:)``, or a UNIQUE constraint by
    /// ``alter(table:_:)``, makes the triggers again; one added with plain SQL (`CREATE UNIQUE INDEX`
    /// through ``execute(_:)``) is not seen: drop and create the search table then. A UNIQUE index on a
    /// generated column throws ``SearchTableError/uncoveredUniqueIndex(searchTable:table:index:reason:)``.
    ///
    /// With external content, FTS5 reads the indexed columns from `table` by name: renaming one with
    /// ``TableAlteration/rename(column:to:)`` throws ``SearchTableError/indexedColumnRenamed(searchTable:table:column:)``
    /// and changes nothing; ``checkIntegrity(searchTable:)`` and ``rebuild(searchTable:)`` throw
    /// ``SearchTableError/contentMismatch(searchTable:table:columns:)`` after one renamed by plain SQL.
    ///
    /// `prefixes` makes FTS5 keep an index of the first 2, 3… characters of every word, for faster
    /// prefix queries (``SearchPattern/prefix(_:)``); `columnSize: false` stores no word counts (a
    /// smaller index; `bm25` then counts the words of the content table's text when it ranks, so it
    /// is refused for a contentless table); `detail` records less of where words are (see
    /// ``SearchDetail``: phrase queries then throw). With `ifNotExists`, a search table `name` that
    /// already exists as asked (same statement, weights and triggers) is left as it is, and one that
    /// exists otherwise throws ``SearchTableError/existsWithOtherDefinition(searchTable:existing:)``.
    ///
    /// ```swift
    /// try conn.create(
    ///     searchTable: "notes_fts", on: "notes", columns: ["title", "body"], unindexed: ["kind"],
    ///     tokenizer: .porter(wrapping: .unicode61(tokenCharacters: "-")), prefixes: [2, 3],
    ///     detail: .column, ifNotExists: true)
    /// ```
    ///
    /// Everything runs in one transaction: a refused call leaves the database as it was.
    ///
    /// - Throws: ``SearchTableError`` for an untrusted connection, a table without a key to point at
    ///   its rows by, no column or one named twice, a bad weight, an option FTS5 would not read as given
    ///   (``SearchTableError/invalidOption(searchTable:option:reason:)``) or a UNIQUE index the
    ///   triggers cannot follow;
    ///   ``SQLiteError`` when SQLite refuses a statement (a missing table or column, a name FTS5
    ///   reserves such as `rank`).
    public func create(
        searchTable name: String, on table: String, columns: [String], unindexed: [String] = [],
        tokenizer: SearchTokenizer = .unicode61(), content: SearchContent = .external,
        weights: [String: Double] = [:], prefixes: [Int] = [], columnSize: Bool = true, detail: SearchDetail = .full,
        keptInStep: Bool = true, ifNotExists: Bool = false
    ) throws {
        guard !keptInStep || options.schemaTrust.trustsSchemaCode else {
            throw SearchTableError.untrustedSchema(searchTable: name)
        }
        let declaration = SearchTableDeclaration(
            name: name, table: table, columns: columns, unindexed: unindexed, tokenizer: tokenizer, content: content,
            weights: weights, prefixes: prefixes, columnSize: columnSize, detail: detail)
        try declaration.check()
        let fts = SQL.quote(identifier: name)
        let source = SQL.quote(identifier: table)
        let columnList = declaration.allColumns.map(SQL.quote(identifier:)).joined(separator: ", ")
        try transaction { conn in
            // The index points at rows by rowid: only a rowid alias keeps them through VACUUM. A table
            // without one is searched through a mapping of its primary key to rowids, kept by the
            // triggers. A table not found is left to SQLite's own error below.
            var rowKey: (key: SearchRowKey, hasRowid: Bool)?
            if content == .external || keptInStep {
                let profile = try conn.insertProfile(ofTable: table)
                if !profile.columns.isEmpty, profile.rowidAlias == nil {
                    guard keptInStep else { throw SearchTableError.noStableRowID(searchTable: name, table: table) }
                    rowKey = try conn.searchRowKey(of: table, searchTable: name)
                }
            }
            let statement = try declaration.createStatement(keyed: rowKey != nil)
            if ifNotExists, let existing = try conn.schemaEntry(named: name) {
                guard ExactText.same(existing.sql, statement), try conn.searchRank(of: name) == declaration.rank,
                    try conn.hasSearchTriggers(name) == keptInStep
                else {
                    throw SearchTableError.existsWithOtherDefinition(
                        searchTable: name, existing: existing.isSearchTable ? existing.sql : "")
                }
                return
            }
            try conn.runSchema(statement)
            let uniqueKeys = keptInStep ? try conn.uniqueKeys(of: table, searchTable: name) : []
            if let rowKey {
                let key = rowKey.key
                try conn.runSchema(key.keysTableStatement(searchTable: name))
                if content == .external {
                    try conn.runSchema(
                        key.contentViewStatement(
                            searchTable: name, table: table, columns: declaration.allColumns,
                            rowidColumn: declaration.contentRowidColumn))
                }
                let triggers = SearchKeyedTriggers(
                    name: name, table: table, columns: declaration.allColumns, key: key, uniqueKeys: uniqueKeys,
                    hasRowid: rowKey.hasRowid)
                for statement in triggers.statements + key.syncStatements(searchTable: name, table: table) {
                    try conn.runSchema(statement)
                }
                try conn.runSchema(
                    "INSERT INTO \(fts)(rowid, \(columnList)) SELECT m.id, "
                        + declaration.allColumns.map { "t." + SQL.quote(identifier: $0) }.joined(separator: ", ")
                        + " FROM \(SearchRowKey.keysTable(name)) AS m JOIN \(source) AS t ON " + key.joinCondition)
            } else {
                if keptInStep {
                    let triggers = SearchTriggers(
                        name: name, table: table, columns: declaration.allColumns, uniqueKeys: uniqueKeys)
                    for statement in triggers.statements {
                        try conn.runSchema(statement)
                    }
                }
                try conn.runSchema(
                    "INSERT INTO \(fts)(rowid, \(columnList)) SELECT rowid, \(columnList) FROM \(source)")
            }
            if let rank = declaration.rank {
                try conn.execute("INSERT INTO \(fts)(\(fts), rank) VALUES ('rank', ?)", arguments: [.text(rank)])
            }
        }
    }

    /// Creates the FTS5 table `name` that indexes `columns` of `table`, kept in step by triggers
    /// unless `keptInStep` is false: the same as
    /// ``create(searchTable:on:columns:unindexed:tokenizer:content:weights:prefixes:columnSize:detail:keptInStep:ifNotExists:)``
    /// with FTS5's default options, which says all.
    ///
    /// ```swift
    /// try conn.create(
    ///     searchTable: "notes_fts", on: "notes", columns: ["title", "body"],
    ///     tokenizer: .unicode61(removeDiacritics: true), weights: ["title": 10])
    /// ```
    public func create(
        searchTable name: String, on table: String, columns: [String], tokenizer: SearchTokenizer = .unicode61(),
        content: SearchContent = .external, weights: [String: Double] = [:], keptInStep: Bool = true
    ) throws {
        try create(
            searchTable: name, on: table, columns: columns, unindexed: [], tokenizer: tokenizer, content: content,
            weights: weights, prefixes: [], columnSize: true, detail: .full, keptInStep: keptInStep,
            ifNotExists: false)
    }

    /// Drops the search table `name`, with the triggers and the table of replaced rows that
    /// ``create(searchTable:on:columns:tokenizer:content:weights:keptInStep:)`` made for it; the table
    /// it indexes is left as it is.
    public func drop(searchTable name: String) throws {
        try transaction { conn in
            let keyed = try conn.isKeyedSearchTable(name)
            for statement in SearchTriggers.dropStatements(name: name) {
                try conn.runSchema(statement)
            }
            try conn.runSchema("DROP TABLE \(SQL.quote(identifier: name))")
            if keyed {
                try conn.runSchema("DROP VIEW IF EXISTS \(SearchRowKey.contentView(name))")
                try conn.runSchema("DROP TABLE \(SearchRowKey.keysTable(name))")
            }
        }
    }

    /// Re-indexes the search table `name` from the table it indexes (FTS5 `rebuild`), after rows
    /// changed while its triggers were missing, or to recover from ``checkIntegrity(searchTable:)``
    /// failing. A contentless table cannot be rebuilt: FTS5's error is thrown as ``SQLiteError``.
    ///
    /// - Throws: ``SearchTableError/contentMismatch(searchTable:table:columns:)`` when the table no
    ///   longer has a column the search table reads (renamed or dropped by plain SQL).
    public func rebuild(searchTable name: String) throws {
        try checkSearchContent(of: name)
        try transaction { conn in
            if try conn.isKeyedSearchTable(name), let table = try conn.keyedSearchSource(of: name) {
                try conn.syncSearchKeys(of: name, table: table)
            }
            try conn.command("rebuild", searchTable: name)
        }
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
    ///   ``SearchTableError/contentMismatch(searchTable:table:columns:)`` when the table no longer has
    ///   a column the search table reads (renamed or dropped by plain SQL).
    ///   ``SQLiteError/Code/readOnly`` inside a ``Database/read(_:)`` or on a read-only connection:
    ///   SQLite runs the check as a write (it changes nothing), so it needs ``Database/write(_:)``.
    public func checkIntegrity(searchTable name: String) throws {
        try checkSearchContent(of: name)
        let fts = SQL.quote(identifier: name)
        if try isKeyedSearchTable(name), let table = try keyedSearchSource(of: name) {
            try checkSearchKeys(of: name, table: table)
        }
        do {
            try execute("INSERT INTO \(fts)(\(fts), rank) VALUES ('integrity-check', 1)", arguments: [])
        } catch let error as SQLiteError where error.code == .readOnly {
            throw error.explained(
                "checkIntegrity(searchTable: \(name)) runs FTS5's integrity-check command, which SQLite counts as "
                    + "a write although it changes nothing: call it inside Database.write, or on a connection "
                    + "that can write, not inside a read")
        }
    }

    private func command(_ command: String, searchTable name: String) throws {
        let fts = SQL.quote(identifier: name)
        try execute("INSERT INTO \(fts)(\(fts)) VALUES (?)", arguments: [.text(command)])
    }
}
