import Foundation

/// The checks a rebuild runs after the copy: every view and trigger that depends on the rebuilt table
/// must still compile, and when one does not, the error names it.
extension TableRebuild {
    /// Makes SQLite compile every view and trigger of the schema, as its own `ALTER TABLE` does, by
    /// renaming a table made for the purpose with `legacy_alter_table` off; throws
    /// ``SchemaChangeError/brokenDependency(kind:name:reason:)`` naming the first that no longer
    /// compiles (a trigger that names `new.b` after `b` was dropped, a view that selects it).
    func checkSchemaCompiles() throws {
        let conn = connection
        var probe = "bindery_schema_check"
        while try !conn.rows(
            "SELECT 1 FROM main.sqlite_schema WHERE name IN (?, ?) COLLATE NOCASE",
            arguments: [.text(probe), .text(probe + "_renamed")]
        ).isEmpty {
            probe += "_"
        }
        let created = "main." + SQL.quote(identifier: probe)
        let renamed = "main." + SQL.quote(identifier: probe + "_renamed")
        let legacy = try conn.rows("PRAGMA legacy_alter_table", arguments: []).first.map { try $0[0] as Bool } ?? false
        try conn.execute(script: "PRAGMA legacy_alter_table = OFF")
        defer { try? conn.execute(script: "PRAGMA legacy_alter_table = \(legacy ? "ON" : "OFF")") }
        try conn.execute(script: "CREATE TABLE \(created) (x)")
        do {
            try conn.execute(script: "ALTER TABLE \(created) RENAME TO \(SQL.quote(identifier: probe + "_renamed"))")
        } catch let error as SQLiteError {
            try? conn.execute(script: "DROP TABLE IF EXISTS \(created)")
            throw try brokenDependency(in: error) ?? error
        }
        try conn.execute(script: "DROP TABLE \(renamed)")
    }

    /// A trigger of the schema, as ``checkTriggersCompile(using:)`` reads it.
    struct TriggerInfo {
        var schema: String
        var name: String
        var table: String
        /// `INSERT`, `UPDATE` or `DELETE`.
        var event: String
    }

    /// Compiles every trigger that may use `table` (those on it, and those whose statement names it)
    /// by preparing, unrun, the statements that fire them; throws
    /// ``SchemaChangeError/brokenDependency(kind:name:reason:)`` naming the first that no longer
    /// compiles. This finds what the schema check of ``checkSchemaCompiles()`` does not look at: a
    /// column named by an `UPDATE … SET` or an `INSERT` column list in a trigger's body.
    func checkTriggersCompile(using table: String) throws {
        var triggers: [TriggerInfo] = []
        for schema in ["main", "temp"] {
            let rows = try connection.rows(
                "SELECT name, tbl_name, sql FROM \(schema).sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL "
                    + "ORDER BY rowid",
                arguments: [])
            for row in rows {
                let sql: String = try row[2]
                let tokens = SQLTokenizer.tokens(of: sql)
                let words = tokens.filter { $0.kind == .word }.map {
                    FoldedIdentifier.asciiUppercased(SQLTokenizer.text(sql, $0.range))
                }
                guard let event = words.first(where: { ["INSERT", "UPDATE", "DELETE"].contains($0) }) else { continue }
                let on: String = try row[1]
                let uses =
                    on.equalsIdentifier(table)
                    || tokens.contains { token in
                        (token.kind == .word || token.kind == .quotedName || token.kind == .string)
                            && SQLTokenizer.name(token, in: sql).equalsIdentifier(table)
                    }
                guard uses else { continue }
                triggers.append(TriggerInfo(schema: schema, name: try row[0], table: on, event: event))
            }
        }
        var checked: [(table: String, event: String)] = []
        for trigger in triggers {
            guard !checked.contains(where: { $0.table.equalsIdentifier(trigger.table) && $0.event == trigger.event })
            else { continue }
            checked.append((trigger.table, trigger.event))
            let quoted = SQL.quote(identifier: trigger.table)
            let statement: String
            switch trigger.event {
            case "INSERT":
                statement = "INSERT INTO \(quoted) DEFAULT VALUES"
            case "DELETE":
                statement = "DELETE FROM \(quoted)"
            default:
                let columns = try connection.rows(
                    "SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0", arguments: [.text(trigger.table)]
                ).map { SQL.quote(identifier: try $0[0] as String) }
                guard !columns.isEmpty else { continue }
                statement = "UPDATE \(quoted) SET " + columns.map { "\($0) = \($0)" }.joined(separator: ", ")
            }
            do {
                try connection.checkCompiles(statement)
            } catch let error as SQLiteError {
                let firing = triggers.filter { $0.table.equalsIdentifier(trigger.table) && $0.event == trigger.event }
                throw try culprit(among: firing, of: statement, error: error)
            }
        }
    }

    /// The trigger among `triggers` without which `statement` compiles, found by dropping each in a
    /// savepoint that is rolled back, as a broken dependency; the table when none is.
    func culprit(among triggers: [TriggerInfo], of statement: String, error: SQLiteError) throws
        -> SchemaChangeError
    {
        for trigger in triggers where triggers.count > 1 {
            var compilesWithout = false
            try? connection.transaction { conn in
                try conn.execute(
                    script: "DROP TRIGGER \(trigger.schema).\(SQL.quote(identifier: trigger.name))")
                compilesWithout = (try? conn.checkCompiles(statement)) != nil
                throw CancellationError()
            }
            if compilesWithout {
                return .brokenDependency(kind: "trigger", name: trigger.name, reason: error.message)
            }
        }
        if triggers.count == 1 {
            return .brokenDependency(kind: "trigger", name: triggers[0].name, reason: error.message)
        }
        return .brokenDependency(kind: "table", name: triggers.first?.table ?? table, reason: error.message)
    }

    /// The view or trigger that SQLite's message `error in trigger name: reason` names, with the
    /// reason; nil for another message.
    func brokenDependency(in error: SQLiteError) throws -> SchemaChangeError? {
        let prefix = "error in "
        guard error.message.hasPrefix(prefix) else { return nil }
        let rest = error.message.dropFirst(prefix.count)
        var objects: [(kind: String, name: String)] = []
        for query in [
            "SELECT type, name FROM main.sqlite_schema WHERE type IN ('view', 'trigger', 'table')",
            "SELECT type, name FROM temp.sqlite_schema WHERE type IN ('view', 'trigger', 'table')",
        ] {
            objects += try connection.rows(query, arguments: []).map { (try $0[0] as String, try $0[1] as String) }
        }
        // The longest name first: "v" must not be taken for the "v 2" of "error in view v 2: …".
        for object in objects.sorted(by: { $0.name.utf8.count > $1.name.utf8.count }) {
            let head = object.kind + " " + object.name
            guard rest.hasPrefix(head) else { continue }
            let after = rest.dropFirst(head.count)
            guard after.hasPrefix(":") || after.hasPrefix(" "), let colon = after.range(of: ": ") else { continue }
            return .brokenDependency(kind: object.kind, name: object.name, reason: String(after[colon.upperBound...]))
        }
        return nil
    }
}
