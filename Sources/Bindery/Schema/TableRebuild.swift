import Foundation

/// SQLite's generalized `ALTER TABLE` procedure (https://www.sqlite.org/lang_altertable.html#otheralter),
/// run inside the caller's transaction: create the new table under a free name, copy the rows, drop
/// the old table, rename the new one, make the indexes and triggers again, check views and foreign
/// keys.
struct TableRebuild {
    let connection: Connection
    let table: String
    let changes: [TableAlteration.Change]

    /// Rebuilds the table. Throws, leaving the transaction to be rolled back, when a row breaks the
    /// new definition, a foreign key is broken, or an index, trigger or view no longer compiles.
    func run() throws {
        let conn = connection
        let encoder = conn.recordContext.values
        guard
            let schemaRow = try conn.rows(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(table)]
            ).first
        else {
            throw SchemaChangeError.noSuchTable(table)
        }
        let name: String = try schemaRow[0]
        let quoted = SQL.quote(identifier: name)
        var statement = try CreateTableStatement(sql: try schemaRow[1], table: name)
        let oldColumns = try columns(of: name)
        var dropped: [String] = []
        var renames: [(String, String)] = []
        for change in changes {
            try apply(change, to: &statement, dropped: &dropped, renames: &renames, encoder: encoder)
        }
        // With foreign keys enforced, the DROP TABLE below deletes the old rows first, and runs the
        // actions of every foreign key that refers to the table: the new table's own, when the table
        // refers to itself, names the old table until the rename, and would lose or change rows.
        let references = try referringTables(to: name)
        if try conn.rows("PRAGMA foreign_keys", arguments: []).first.map({ try $0[0] as Bool }) == true,
            !references.isEmpty
        {
            throw SchemaChangeError.foreignKeysEnforced(table: name)
        }

        // What goes with the old table, to make again: indexes (not those over a dropped column),
        // triggers (whose `ON` clause may spell the table in another case, and temporary triggers,
        // which the DROP TABLE drops too), the AUTOINCREMENT sequence.
        let objects = try conn.rows(
            "SELECT type, name, sql FROM main.sqlite_schema WHERE tbl_name = ? COLLATE NOCASE "
                + "AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid",
            arguments: [.text(name)])
        var recreate: [(kind: String, name: String, sql: String)] = []
        for object in try temporaryTriggers(on: name) {
            recreate.append(("trigger", object.name, object.sql))
        }
        for object in objects {
            let kind: String = try object[0]
            let objectName: String = try object[1]
            if kind == "index", !dropped.isEmpty {
                let indexed = try conn.rows("SELECT name FROM pragma_index_xinfo(?)", arguments: [.text(objectName)])
                    .compactMap { try $0[0] as String? }
                if indexed.contains(where: { column in dropped.contains { $0.equalsIdentifier(column) } }) {
                    continue
                }
            }
            recreate.append((kind, objectName, try object[2]))
        }
        let sequence = try autoincrementSequence(of: name)

        // 4. The new table.
        var temporary = "bindery_new_" + name
        while try !conn.rows("SELECT 1 FROM sqlite_schema WHERE name = ? COLLATE NOCASE", arguments: [.text(temporary)])
            .isEmpty
        {
            temporary += "_"
        }
        try conn.runSchema(statement.sql(named: temporary))

        // 5. The rows: the columns both tables store, and the rowid whenever both tables have one and
        // the new table has no column that stands for it (SQLite may read the old rows in any order,
        // through a covering index, so numbering them afresh would move values between rowids).
        let newColumns = try columns(of: temporary)
        let copied = newColumns.filter { column in
            !column.generated && oldColumns.contains { !$0.generated && $0.name.equalsIdentifier(column.name) }
        }.map(\.name)
        var targets = copied.map(SQL.quote(identifier:))
        var sources = targets
        if statement.hasRowID, try CreateTableStatement(sql: try schemaRow[1], table: name).hasRowID,
            !newColumns.contains(where: \.isRowIDAlias)
        {
            let aliases = ["rowid", "_rowid_", "oid"]
            let source =
                aliases.first { alias in !oldColumns.contains { $0.name.equalsIdentifier(alias) } }
                ?? oldColumns.first(where: \.isRowIDAlias).map { SQL.quote(identifier: $0.name) }
            let target = aliases.first { alias in !newColumns.contains { $0.name.equalsIdentifier(alias) } }
            guard let source, let target else {
                throw SchemaChangeError.unreadableSchema(
                    table: name, reason: "columns named rowid, _rowid_ and oid hide the rowids the rebuild must keep")
            }
            targets.insert(target, at: 0)
            sources.insert(source, at: 0)
        }
        let quotedTemporary = SQL.quote(identifier: temporary)
        if !targets.isEmpty {
            // `OR ABORT`: an `ON CONFLICT IGNORE` or `REPLACE` clause of the new definition would
            // otherwise drop or overwrite the rows that break it, without an error.
            let copy =
                "INSERT OR ABORT INTO \(quotedTemporary) (\(targets.joined(separator: ", "))) "
                + "SELECT \(sources.joined(separator: ", ")) FROM \(quoted)"
            do {
                try conn.runSchema(copy)
            } catch let error as SQLiteError where error.code == .constraint || error.code == .mismatch {
                // The messages name the new table by its final name.
                let rejected = try rejectedRows(
                    of: name, from: quoted, into: quotedTemporary, targets: targets, sources: sources)
                let rows = rejected.map {
                    RejectedRow(key: $0.key, reason: $0.reason.replacingOccurrences(of: temporary, with: name))
                }
                // When no row fails on its own, the error is SQLite's, as it came.
                guard !rows.isEmpty else { throw error }
                throw SchemaChangeError.rowsBreakConstraints(table: name, rows: rows)
            }
        }

        // 6–7. Drop the old table, rename the new one; in legacy mode, so that SQLite does not check
        // (or rewrite) the views and triggers that refer to the table while it is missing.
        try conn.runSchema("DROP TABLE \(quoted)")
        let legacy = try conn.rows("PRAGMA legacy_alter_table", arguments: []).first.map { try $0[0] as Bool } ?? false
        try conn.execute(script: "PRAGMA legacy_alter_table = ON")
        do {
            try conn.runSchema("ALTER TABLE \(quotedTemporary) RENAME TO \(quoted)")
        } catch {
            try? conn.execute(script: "PRAGMA legacy_alter_table = \(legacy ? "ON" : "OFF")")
            throw error
        }
        try conn.execute(script: "PRAGMA legacy_alter_table = \(legacy ? "ON" : "OFF")")

        // 8. Indexes and triggers again, and the AUTOINCREMENT sequence where it was.
        for object in recreate {
            do {
                try conn.runSchema(object.sql)
            } catch let error as SQLiteError {
                throw SchemaChangeError.brokenDependency(kind: object.kind, name: object.name, reason: error.message)
            }
        }
        if let sequence {
            try conn.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ? COLLATE NOCASE",
                arguments: [.integer(sequence), .text(name)])
            if conn.changes == 0,
                statement.columns.contains(where: {
                    FoldedIdentifier.asciiUppercased($0.definition).contains("AUTOINCREMENT")
                })
            {
                try conn.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)",
                    arguments: [.text(name), .integer(sequence)])
            }
        }

        // Renames asked for after a change that needs the rebuild.
        for (old, new) in renames {
            try conn.runSchema(
                "ALTER TABLE \(quoted) RENAME COLUMN \(SQL.quote(identifier: old)) TO \(SQL.quote(identifier: new))")
        }

        // 9–11. The views and triggers must still compile (those of the table, and any other that
        // uses it); foreign keys must hold. What they compile against is the table's column names
        // (a column's type or constraints change nothing of it), so while every column of the old
        // table is still there by name, whatever compiled before compiles now, and the checks, which
        // compile the whole schema (4 ms for Northwind's 17 views), are skipped.
        let kept = try columns(of: name)
        if !oldColumns.allSatisfy({ old in kept.contains { $0.name.equalsIdentifier(old.name) } }) {
            try checkSchemaCompiles()
            try checkTriggersCompile(using: name)
        }
        var violations: [ForeignKeyViolation] = []
        for checked in [name] + references where violations.count < 100 {
            let rows = try conn.rows("SELECT * FROM pragma_foreign_key_check(?) LIMIT 100", arguments: [.text(checked)])
            for row in rows {
                violations.append(
                    ForeignKeyViolation(
                        table: try row[0], rowid: try row[1], parent: try row[2], foreignKeyIndex: try row[3]))
            }
        }
        guard violations.isEmpty else {
            throw SchemaChangeError.foreignKeyViolations(Array(violations.prefix(100)))
        }
    }

    /// Applies one change to the definition.
    private func apply(
        _ change: TableAlteration.Change, to statement: inout CreateTableStatement, dropped: inout [String],
        renames: inout [(String, String)], encoder: ValueEncoder
    ) throws {
        func index(of column: String) throws -> Int {
            // A column renamed earlier in the alteration keeps its old name until the renames run,
            // after the rebuild.
            var name = column
            for (old, new) in renames.reversed() where new.equalsIdentifier(name) {
                name = old
            }
            guard let index = statement.columns.firstIndex(where: { $0.name.equalsIdentifier(name) }) else {
                throw SchemaChangeError.noSuchColumn(table: table, column: column)
            }
            return index
        }
        switch change {
        case .add(let column):
            guard !statement.columns.contains(where: { $0.name.equalsIdentifier(column.name) }) else {
                throw SchemaChangeError.duplicateColumn(table: table, column: column.name)
            }
            statement.columns.append(try Self.column(column, encoder: encoder))
        case .addWritten(let sql):
            let text = try sql.inlined(encoder: encoder)
            guard let first = SQLTokenizer.tokens(of: text).first else {
                throw SchemaChangeError.invalidSQL(text, reason: "a column definition begins with its name")
            }
            let name = SQLTokenizer.name(first, in: text)
            guard !statement.columns.contains(where: { $0.name.equalsIdentifier(name) }) else {
                throw SchemaChangeError.duplicateColumn(table: table, column: name)
            }
            statement.columns.append(
                CreateTableStatement.Column(
                    name: name,
                    definition: SQLTokenizer.text(text, first.range.upperBound..<text.utf8.count)
                        .trimmingCharacters(in: .whitespacesAndNewlines)))
        case .change(let change):
            let index = try index(of: change.name)
            statement.columns[index].definition = try change.definition(
                from: statement.columns[index].definition, encoder: encoder)
        case .replace(let column):
            statement.columns[try index(of: column.name)] = try Self.column(column, encoder: encoder)
        case .drop(let column):
            statement.columns.remove(at: try index(of: column))
            dropped.append(column)
        case .rename(let old, let new):
            _ = try index(of: old)
            renames.append((old, new))
        case .order(let names):
            var ordered: [CreateTableStatement.Column] = []
            for name in names {
                ordered.append(statement.columns[try index(of: name)])
            }
            ordered += statement.columns.filter { column in !names.contains { $0.equalsIdentifier(column.name) } }
            statement.columns = ordered
        case .addConstraint(let constraint):
            statement.constraints.append(
                CreateTableStatement.Constraint(name: constraint.name, text: try constraint.sql(encoder: encoder)))
        case .dropConstraint(let name):
            guard let index = statement.constraints.firstIndex(where: { $0.name?.equalsIdentifier(name) == true })
            else {
                throw SchemaChangeError.noSuchConstraint(table: table, name: name)
            }
            statement.constraints.remove(at: index)
        case .dropConstraints:
            statement.constraints.removeAll()
        }
    }

    /// A builder column as the statement holds it.
    private static func column(_ column: ColumnDefinition, encoder: ValueEncoder) throws -> CreateTableStatement.Column
    {
        let sql = try column.sql(encoder: encoder)
        let name = SQL.quote(identifier: column.name)
        return CreateTableStatement.Column(
            name: column.name, definition: String(sql.dropFirst(name.count)).trimmingCharacters(in: .whitespaces))
    }

    /// A column of a table, as `PRAGMA table_xinfo` lists it.
    struct ColumnInfo {
        var name: String
        var generated: Bool
        var isRowIDAlias: Bool
    }

    /// The columns of `table` (of the main schema).
    private func columns(of table: String) throws -> [ColumnInfo] {
        let rows = try connection.rows(
            "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?, 'main')", arguments: [.text(table)])
        let keyCount = try rows.filter { try ($0[2] as Int) > 0 }.count
        // A single INTEGER key is the rowid unless SQLite made an index for it: in a WITHOUT ROWID
        // table, and for `INTEGER PRIMARY KEY DESC`, which is not the rowid.
        let keyIndexed = try !connection.rows(
            "SELECT 1 FROM pragma_index_list(?, 'main') WHERE origin = 'pk'", arguments: [.text(table)]
        ).isEmpty
        return try rows.map { row in
            let hidden: Int = try row[3]
            let type: String = try row[1]
            let pk: Int = try row[2]
            return ColumnInfo(
                name: try row[0], generated: hidden == 2 || hidden == 3,
                isRowIDAlias: pk == 1 && keyCount == 1 && FoldedIdentifier.same(type, "INTEGER")
                    && !keyIndexed)
        }
    }

    /// The tables whose foreign keys refer to `table` (itself included when it refers to itself).
    private func referringTables(to table: String) throws -> [String] {
        try connection.rows(
            """
            SELECT DISTINCT m.name FROM sqlite_schema AS m, pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND f."table" = ? COLLATE NOCASE
            """,
            arguments: [.text(table)]
        ).map { try $0[0] as String }
    }

    /// The table's `sqlite_sequence` value, when it has one.
    private func autoincrementSequence(of table: String) throws -> Int64? {
        guard
            try !connection.rows(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'", arguments: []
            ).isEmpty
        else { return nil }
        return try connection.rows(
            "SELECT seq FROM sqlite_sequence WHERE name = ? COLLATE NOCASE", arguments: [.text(table)]
        ).first
            .map { try $0[0] as Int64 }
    }

    /// The triggers in the temporary schema on the table `table` of the main schema (which the
    /// `DROP TABLE` drops with it), as statements that make them again; none when a temporary table
    /// of that name hides the main one.
    private func temporaryTriggers(on table: String) throws -> [(name: String, sql: String)] {
        guard
            try connection.rows(
                "SELECT 1 FROM temp.sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                arguments: [.text(table)]
            ).isEmpty
        else { return [] }
        let rows = try connection.rows(
            "SELECT name, sql FROM temp.sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE "
                + "AND sql IS NOT NULL ORDER BY rowid",
            arguments: [.text(table)])
        return try rows.map { row in
            let name: String = try row[0]
            let sql: String = try row[1]
            // SQLite keeps a trigger's statement as `CREATE TRIGGER …`, without the TEMP it was made with.
            let tokens = SQLTokenizer.tokens(of: sql)
            guard tokens.count > 2, tokens[0].kind == .word, tokens[1].kind == .word,
                FoldedIdentifier.same(SQLTokenizer.text(sql, tokens[0].range), "CREATE"),
                FoldedIdentifier.same(SQLTokenizer.text(sql, tokens[1].range), "TRIGGER")
            else {
                throw SchemaChangeError.unreadableSchema(
                    table: table, reason: "the statement of its temporary trigger \"\(name)\" is not CREATE TRIGGER")
            }
            return (name, "CREATE TEMP " + SQLTokenizer.text(sql, tokens[1].range.lowerBound..<sql.utf8.count))
        }
    }
    /// The rows that the copy cannot insert (at most 100), found by copying them one at a time in a
    /// savepoint that is rolled back.
    private func rejectedRows(
        of table: String, from old: String, into new: String, targets: [String], sources: [String]
    ) throws -> [RejectedRow] {
        let conn = connection
        let hasRowID = try CreateTableStatement(
            sql: try conn.rows(
                "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(table)]
            )
            .first.map { try $0[0] as String } ?? "", table: table
        ).hasRowID
        let keyColumns: [String] =
            hasRowID
            ? ["rowid"]
            : try conn.rows(
                "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [.text(table)]
            ).map { try $0[0] as String }
        let keys = keyColumns.map(SQL.quote(identifier:))
        let keyList = hasRowID ? "rowid" : keys.joined(separator: ", ")
        let condition = keys.map { (hasRowID ? "rowid" : $0) + " IS ?" }.joined(separator: " AND ")
        let insert =
            "INSERT OR ABORT INTO \(new) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) "
            + "FROM \(old) WHERE \(condition)"
        var rejected: [RejectedRow] = []
        try? conn.transaction { conn in
            let cursor = try conn.rowCursor("SELECT \(keyList) FROM \(old)", arguments: [])
            while rejected.count < 100, let row = try cursor.next() {
                let values = try (0..<keyColumns.count).map { try row[$0] as SQLiteValue }
                do {
                    try conn.execute(insert, arguments: values)
                } catch let error as SQLiteError {
                    let key = try zip(keyColumns, values).map { "\($0) = \(try SQL.literal($1))" }
                        .joined(separator: ", ")
                    rejected.append(RejectedRow(key: key, reason: error.message))
                }
            }
            throw CancellationError()
        }
        return rejected
    }
}
