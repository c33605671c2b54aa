/// The UNIQUE keys of a table, as the triggers of a search table over it compare rows.
extension Connection {
    /// Each UNIQUE constraint or index of `table` (its primary key included when it is not the
    /// rowid), as the search triggers compare a row with the row a write stores: partial indexes with
    /// their `WHERE` clause, indexes on expressions with their expressions.
    ///
    /// - Throws: ``SearchTableError/uncoveredUniqueIndex(searchTable:table:index:reason:)`` for an
    ///   index whose text cannot be read, or that involves a generated column (whose value a `BEFORE`
    ///   trigger does not see).
    func uniqueKeys(of table: String, searchTable: String) throws -> [SearchUniqueKey] {
        var ordinary: [String] = []
        // Named as SQLite names columns (ASCII case folded only): "É" and "é" are two columns.
        var generated: Set<FoldedIdentifier> = []
        for column in try rows("SELECT name, hidden FROM pragma_table_xinfo(?)", arguments: [.text(table)]) {
            let name: String = try column["name"]
            switch try column["hidden"] as Int64 {
            case 0: ordinary.append(name)
            case 2, 3: generated.insert(FoldedIdentifier(name))
            default: break
            }
        }
        // `new`'s values under the table's column names, for an index's own expressions and conditions.
        let newRow =
            "(SELECT "
            + ordinary.map { "new.\(SQL.quote(identifier: $0)) AS \(SQL.quote(identifier: $0))" }
            .joined(separator: ", ") + ") AS \(SQL.quote(identifier: table))"
        var keys: [SearchUniqueKey] = []
        let indexes = "SELECT name, \"unique\", partial FROM pragma_index_list(?)"
        for index in try rows(indexes, arguments: [.text(table)]) {
            guard try index["unique"] as Int64 == 1 else { continue }
            let indexName: String = try index["name"]
            func refuse(_ reason: String) -> SearchTableError {
                .uncoveredUniqueIndex(searchTable: searchTable, table: table, index: indexName, reason: reason)
            }
            var parts: [(column: String?, collation: String)] = []
            let columns = "SELECT name, key, coll FROM pragma_index_xinfo(?) ORDER BY seqno"
            for part in try rows(columns, arguments: [.text(indexName)]) {
                guard try part["key"] as Int64 == 1 else { continue }
                parts.append((try part["name"], try part["coll"]))
            }
            if parts.contains(where: { $0.column.map { generated.contains(FoldedIdentifier($0)) } ?? false }) {
                throw refuse("it indexes a generated column, whose value a BEFORE trigger does not see")
            }
            let partial = try index["partial"] as Int64 == 1
            var definition: IndexDefinition?
            if partial || parts.contains(where: { $0.column == nil }) {
                if !generated.isEmpty {
                    throw refuse(
                        "it is partial or on expressions, over a table with generated columns, whose values a "
                            + "BEFORE trigger does not see")
                }
                let sql =
                    try rows(
                        "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", arguments: [.text(indexName)]
                    ).first.map { try $0[0] as String? } ?? nil
                definition = sql.flatMap(IndexDefinition.init(sql:))
                guard let definition, definition.parts.count == parts.count, definition.condition != nil || !partial
                else {
                    throw refuse("its CREATE INDEX statement could not be read")
                }
            }
            var key = SearchUniqueKey(parts: [], condition: nil)
            for (offset, part) in parts.enumerated() {
                if let column = part.column {
                    let quoted = SQL.quote(identifier: column)
                    key.parts.append(.init(row: quoted, new: "new." + quoted, collation: part.collation))
                } else if let expression = definition?.parts[offset] {
                    key.parts.append(
                        .init(
                            row: expression, new: "SELECT (\(expression)) FROM \(newRow)", collation: part.collation))
                }
            }
            if partial, let condition = definition?.condition {
                key.condition = "(\(condition)) AND EXISTS (SELECT 1 FROM \(newRow) WHERE (\(condition)))"
            }
            if !key.parts.isEmpty { keys.append(key) }
        }
        return keys
    }
}
