/// Which rows a write of a request's rows names by rowid rather than by key.
extension Connection {
    /// The name that reads the rowid of `table` when a column of its primary key `key` may hold NULL
    /// (a key column without `NOT NULL` that is not the rowid itself, as a `TEXT PRIMARY KEY` of a
    /// rowid table is): `rowid`, or `_rowid_` or `oid` where the table has a column of that name. Such
    /// a row matches no `key IN (…)`, and several rows may share a NULL key, so only its rowid names it.
    /// Nil for a table without a rowid (`WITHOUT ROWID` keys are never NULL), a view, a table not found
    /// (the write then fails naming it), a key column the table lacks, and a table whose every rowid
    /// name is a column.
    func rowidForNullableKey(table: String, key: [String]) throws -> String? {
        // As a statement finds an unqualified name: in temp, then in main, then in attached schemas.
        let found = try rows(
            "SELECT schema, type, wr FROM pragma_table_list(?1) ORDER BY schema = 'temp' DESC, schema = 'main' DESC",
            arguments: [.text(table)]
        ).first?.values
        guard let found, case .text(let schema) = found[0], found[1] == .text("table"), found[2] == .integer(0)
        else {
            return nil
        }
        let columns = try rows(
            "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1, ?2) ORDER BY cid",
            arguments: [.text(table), .text(schema)]
        ).map(\.values)
        let declaredKey = columns.filter { if case .integer(let pk) = $0[3] { return pk > 0 } else { return false } }
        var nullable = false
        for name in key {
            guard let column = columns.first(where: { Self.sameName($0[0], name) }) else {
                return nil
            }
            guard column[2] == .integer(0) else { continue }
            // The table's only key column, declared INTEGER, is the rowid (never NULL) unless SQLite made an
            // index for it (`INTEGER PRIMARY KEY DESC`).
            if declaredKey.count == 1, Self.sameName(declaredKey[0][0], name), case .text(let type) = column[1],
                FoldedIdentifier.same(type, "INTEGER"), try !hasKeyIndex(table: table, schema: schema)
            {
                continue
            }
            nullable = true
        }
        guard nullable else { return nil }
        return ["rowid", "_rowid_", "oid"].first { name in !columns.contains { Self.sameName($0[0], name) } }
    }

    /// Whether SQLite made an index for the primary key of `table` in `schema`.
    private func hasKeyIndex(table: String, schema: String) throws -> Bool {
        try rows(
            "SELECT count(*) FROM pragma_index_list(?1, ?2) WHERE origin = 'pk'",
            arguments: [.text(table), .text(schema)]
        ).first?.values.first != .integer(0)
    }

    /// Whether `value` is the text `name`, as SQLite compares names (ignoring ASCII case only).
    private static func sameName(_ value: SQLiteValue, _ name: String) -> Bool {
        if case .text(let text) = value { return FoldedIdentifier.same(text, name) }
        return false
    }
}
