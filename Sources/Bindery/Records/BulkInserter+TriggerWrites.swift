/// Whether a trigger may change rows of the table a `RETURNING` batch inserts into, other than by the
/// batch's own INSERT. One by one, each record comes back as its own INSERT left it (read back when
/// its triggers changed rows). A multi-row INSERT runs the triggers of all its rows before any row is
/// read back: a trigger of a later record that changes an earlier record's row (marking it as no
/// longer the latest of its group, say) would show in the earlier record. So a batch whose triggers
/// changed rows is kept only when no trigger can write the table; otherwise it is undone and its
/// records inserted one by one.
extension BulkInserter {
    /// What ``triggersMayWriteTable()`` found, and the connection's schema generation when it looked.
    struct TriggerWrites {
        let mayWrite: Bool
        let schemaGeneration: UInt64
    }

    /// Whether a trigger of the schema may change rows of the table other than by the INSERT: the body
    /// of a trigger (in `main` or `temp`, whatever table it is on) names the table (as a whole name,
    /// quoted or not, in any ASCII case), or a foreign key of
    /// the table changes its rows when the parent row changes (`CASCADE`, `SET NULL`, `SET DEFAULT`).
    /// The answer errs towards yes, which only costs a batch: a table outside `main` and `temp`, or a
    /// name holding a quote, which the schema's text may spell otherwise. Read once an insert, and
    /// again when the connection changed the schema.
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
        guard !name.contains(where: { "\"'`[]".contains($0) }) else { return true }
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
        let folded = Array(FoldedIdentifier.asciiUppercased(name).utf8)
        return triggers.contains { row in
            guard case .text(let sql) = row.values.first else { return true }
            let upper = FoldedIdentifier.asciiUppercased(sql)
            // The body, from the first BEGIN on: the table a trigger is on is named before it, and a
            // BEGIN met earlier (in a name) only makes more of the text count.
            guard let begin = upper.range(of: "BEGIN") else { return true }
            return Self.names(Array(upper[begin.upperBound...].utf8), folded)
        }
    }

    /// Whether `text` holds `name` as a whole name: not inside a longer one (`notes` in `notes_search`),
    /// whatever stands around it otherwise (a quote, a schema's dot, white space). Both ASCII uppercased.
    static func names(_ text: [UInt8], _ name: [UInt8]) -> Bool {
        guard !name.isEmpty, text.count >= name.count else { return false }
        for start in 0...(text.count - name.count) where text[start..<(start + name.count)].elementsEqual(name) {
            let end = start + name.count
            if (start == 0 || !isNamePart(text[start - 1])) && (end == text.count || !isNamePart(text[end])) {
                return true
            }
        }
        return false
    }

    /// Whether `byte` may be part of an unquoted name: a letter, a digit, `_`, `$` or a byte of a
    /// character beyond ASCII.
    private static func isNamePart(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || (0x30...0x39).contains(byte)
            || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
