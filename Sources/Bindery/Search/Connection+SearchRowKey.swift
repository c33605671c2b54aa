/// Search tables over a table whose rowid `VACUUM` may renumber: the mapping of its primary key to the
/// search table's rowids (``SearchRowKey``), read from the schema, brought in step and checked.
extension Connection {
    /// The primary key of `table` as a search table over it maps it, and whether `table` has a rowid.
    ///
    /// - Throws: ``SearchTableError/noStableRowID(searchTable:table:)`` when `table` has no primary
    ///   key; ``SearchTableError/nullableKey(searchTable:table:column:)`` for a key column of a rowid
    ///   table that is not `NOT NULL`.
    func searchRowKey(of table: String, searchTable: String) throws -> (key: SearchRowKey, hasRowid: Bool) {
        let kind = try rows(
            "SELECT wr, strict FROM pragma_table_list(?) WHERE schema = 'main'", arguments: [.text(table)]
        ).first
        let withoutRowid = try kind.map { try $0[0] as Int64 == 1 } ?? false
        let strict = try kind.map { try $0[1] as Int64 == 1 } ?? false
        var collations: [FoldedIdentifier: String] = [:]
        let keyIndex = try rows(
            "SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", arguments: [.text(table)]
        ).first.map { try $0[0] as String }
        if let keyIndex {
            for part in try rows(
                "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1", arguments: [.text(keyIndex)])
            {
                if let name: String = try part["name"] { collations[FoldedIdentifier(name)] = try part["coll"] }
            }
        }
        var columns: [SearchRowKey.Column] = []
        for column in try rows(
            "SELECT name, type, \"notnull\" FROM pragma_table_xinfo(?) WHERE pk > 0 ORDER BY pk",
            arguments: [.text(table)])
        {
            let name: String = try column["name"]
            if !withoutRowid, try column["notnull"] as Int64 == 0 {
                throw SearchTableError.nullableKey(searchTable: searchTable, table: table, column: name)
            }
            columns.append(
                .init(
                    name: name,
                    affinity: SearchRowKey.affinity(ofDeclaredType: try column["type"] ?? "", strict: strict),
                    collation: collations[FoldedIdentifier(name)] ?? "BINARY"))
        }
        guard !columns.isEmpty else { throw SearchTableError.noStableRowID(searchTable: searchTable, table: table) }
        return (SearchRowKey(columns: columns), !withoutRowid)
    }

    /// Whether the search table `name` points at rows through a mapping of keys (its table `name_keys`,
    /// as ``SearchRowKey`` makes it, exists).
    func isKeyedSearchTable(_ name: String) throws -> Bool {
        try keysTableStatement(of: name) != nil
    }

    /// The `CREATE TABLE` statement of the mapping table of the search table `name`, as SQLite keeps
    /// it; nil when `name` maps no keys.
    func keysTableStatement(of name: String) throws -> String? {
        let sql =
            try rows(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [.text(name + "_keys")]
            ).first.map { try $0[0] as String? } ?? nil
        guard let sql, sql.hasPrefix("CREATE TABLE \(SearchRowKey.keysTable(name))(id INTEGER PRIMARY KEY, \"k0\" ")
        else { return nil }
        return sql
    }

    /// The table a keyed search table reads, from its content view (`… JOIN "table" AS t ON …`, as
    /// SQLite keeps it through renames), or for a contentless one from its triggers; nil when neither
    /// exists.
    func keyedSearchSource(of name: String) throws -> String? {
        guard
            let sql = try rows(
                "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = ?",
                arguments: [.text(SearchRowKey.contentViewName(name))]
            ).first.map({ try $0[0] as String? }) ?? nil
        else {
            // A contentless search table has no view: its triggers name the table.
            return try rows(
                "SELECT tbl_name FROM sqlite_schema WHERE type = 'trigger' AND name IN (?, ?, ?, ?, ?)",
                arguments: SearchTriggers.triggerSuffixes.map { .text(name + "_" + $0) }
            ).first.map { try $0[0] as String }
        }
        let tokens = SQLTokenizer.tokens(of: sql)
        guard
            let join = tokens.indices.first(where: {
                tokens[$0].kind == .word
                    && FoldedIdentifier.same(SQLTokenizer.text(sql, tokens[$0].range), "JOIN")
            }), join + 1 < tokens.count
        else { return nil }
        return SQLTokenizer.name(tokens[join + 1], in: sql)
    }

    /// Brings the mapping of the keyed search table `name` over `table` in step with the table's rows
    /// (before a rebuild).
    func syncSearchKeys(of name: String, table: String) throws {
        let key = try searchRowKey(of: table, searchTable: name).key
        for statement in key.syncStatements(searchTable: name, table: table) {
            try execute(statement, arguments: [])
        }
    }

    /// Throws ``SQLiteError/Code/corrupt`` when the mapping of the keyed search table `name` over
    /// `table` is not in step with its rows: a row without a mapping, or a mapping without a row.
    func checkSearchKeys(of name: String, table: String) throws {
        let key = try searchRowKey(of: table, searchTable: name).key
        let keys = SearchRowKey.keysTable(name)
        let source = SQL.quote(identifier: table)
        let unmapped: Int64 =
            try rows(
                "SELECT count(*) FROM \(source) WHERE NOT EXISTS (SELECT 1 FROM \(keys) WHERE "
                    + key.matches(source, keys: keys) + ")", arguments: []
            ).first.map { try $0[0] } ?? 0
        let stale: Int64 =
            try rows(
                "SELECT count(*) FROM \(keys) WHERE NOT EXISTS (SELECT 1 FROM \(source) WHERE "
                    + key.matches(source, keys: keys) + ")", arguments: []
            ).first.map { try $0[0] } ?? 0
        guard unmapped == 0, stale == 0 else {
            throw SQLiteError(
                code: .corrupt,
                message: "search table \"\(name)\" maps the keys of \"\(table)\" out of step with its rows "
                    + "(\(unmapped) row(s) without a mapping, \(stale) mapping(s) without a row): rebuild(searchTable:) "
                    + "repairs it")
        }
    }

    /// The condition that joins the rows of `table` to the matches of the keyed search table
    /// `searchTable`, whose rowid `rowid` names: `"t"."code" = (SELECT "k0" FROM "name_keys" WHERE id =
    /// rowid) AND …`; nil when the search table is not keyed (it joins on the rowid).
    func keyedSearchJoinCondition(searchTable: String, table: String, rowid: String) throws -> String? {
        guard try isKeyedSearchTable(searchTable) else { return nil }
        let key = try searchRowKey(of: table, searchTable: searchTable).key
        let keys = SearchRowKey.keysTable(searchTable)
        let qualifier = SQL.quote(identifier: table)
        return key.columns.enumerated().map {
            "\(qualifier).\(SQL.quote(identifier: $0.element.name)) = (SELECT \(SearchRowKey.slot($0.offset)) "
                + "FROM \(keys) WHERE id = \(rowid)) COLLATE \(SQL.quote(identifier: $0.element.collation))"
        }
        .joined(separator: " AND ")
    }
}
