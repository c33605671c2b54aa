/// Whether a trigger may change rows of the table a `RETURNING` batch inserts into, other than by the
/// batch's own INSERT. One by one, each record comes back as its own INSERT left it (read back when
/// its triggers changed rows). A multi-row INSERT runs the triggers of all its rows before any row is
/// read back: a trigger of a later record that changes an earlier record's row (marking it as no
/// longer the latest of its group, say) would show in the earlier record. So when a batch's triggers
/// changed rows and one may write the table, its rows are read back and checked against what
/// `RETURNING` gave (see `BulkInserter+Batches.swift`); when none may, `RETURNING`'s rows stand.
extension BulkInserter {
    /// What ``triggersMayWriteTable()`` found, and the connection's schema generation when it looked.
    struct TriggerWrites {
        let mayWrite: Bool
        let schemaGeneration: UInt64
    }

    /// Whether a trigger of the schema may change rows of the table other than by the INSERT: the body
    /// of a trigger (in `main` or `temp`, whatever table it is on) names the table (a name, quoted or
    /// not, or a string where a name may stand, that SQLite takes for the table's), or a foreign key of
    /// the table changes its rows when the parent row changes (`CASCADE`, `SET NULL`, `SET DEFAULT`).
    /// The answer errs towards yes, which only costs reading the batch's rows back: a table outside
    /// `main` and `temp`, or a name read where it names something else (a column of that name). Read
    /// once an insert, and again when the connection changed the schema.
    func triggersMayWriteTable() throws -> Bool {
        let generation = connection.schemaGeneration
        if let triggerWrites, triggerWrites.schemaGeneration == generation {
            return triggerWrites.mayWrite
        }
        let mayWrite = try readTriggersMayWriteTable()
        triggerWrites = TriggerWrites(mayWrite: mayWrite, schemaGeneration: generation)
        return mayWrite
    }

    /// ``triggersMayWriteTable()``, read from the schema now.
    private func readTriggersMayWriteTable() throws -> Bool {
        let name = state.tableName
        let schemas = try connection.rows(
            "SELECT schema FROM pragma_table_list(?1) WHERE type = 'table'", arguments: [.text(name)])
        guard schemas.count == 1, case .text(let schema) = schemas[0].values.first, schema == "main" || schema == "temp"
        else { return true }
        let cascading = try connection.rows(
            "SELECT count(*) FROM pragma_foreign_key_list(?1, ?2) "
                + "WHERE on_delete IN ('CASCADE', 'SET NULL', 'SET DEFAULT') "
                + "OR on_update IN ('CASCADE', 'SET NULL', 'SET DEFAULT')",
            arguments: [.text(name), .text(schema)])
        guard cascading.first?.values.first == .integer(0) else { return true }
        let triggers = try connection.rows(
            "SELECT sql FROM main.sqlite_schema WHERE type = 'trigger' "
                + "UNION ALL SELECT sql FROM temp.sqlite_schema WHERE type = 'trigger'", arguments: [])
        return triggers.contains { row in
            guard case .text(let sql) = row.values.first else { return true }
            return Self.body(of: sql, names: name)
        }
    }

    /// Whether the body of the trigger `sql` (its tokens after the first `BEGIN`; the table the trigger
    /// is on is named before it) names `table`. A trigger without `BEGIN` counts as naming it.
    static func body(of sql: String, names table: String) -> Bool {
        let tokens = SQLTokenizer.tokens(of: sql)
        guard
            let begin = tokens.firstIndex(where: { token in
                token.kind == .word && FoldedIdentifier.asciiKeyword(SQLTokenizer.text(sql, token.range)) == "BEGIN"
            })
        else { return true }
        return tokens[(begin + 1)...].contains { token in
            switch token.kind {
            case .word, .quotedName, .string:
                return FoldedIdentifier.same(SQLTokenizer.name(token, in: sql), table)
            default:
                return false
            }
        }
    }
}
