/// The table builder: creating, altering, renaming and dropping tables and indexes from Swift, with
/// every name quoted and every value written as a literal.
extension Connection {
    /// Creates the table `name` with the columns and constraints that `body` declares.
    ///
    /// ```swift
    /// try conn.create(table: "books") { t in
    ///     t.column("id", .integer).primaryKey(autoincrement: true)
    ///     t.column("title", .text).notNull()
    ///     t.column("authorID", .integer).notNull().references("authors", onDelete: .cascade)
    /// }
    /// ```
    public func create(
        table name: String, options: TableOptions = [], _ body: (TableDefinition) throws -> Void
    ) throws {
        let statements = try tableStatements(name, options: options, body)
        // The table and its indexes together, or nothing.
        try transaction { conn in
            for statement in statements {
                try conn.runSchema(statement)
            }
        }
    }

    /// The `CREATE TABLE` statement that ``create(table:options:_:)`` runs, to read or print, followed
    /// by the `CREATE INDEX` statements of its ``ColumnDefinition/indexed()`` columns (each after
    /// `;` and a new line).
    ///
    /// ```swift
    /// print(try conn.createTableSQL("tags") { t in t.column("name", .text).notNull().unique() })
    /// ```
    public func createTableSQL(
        _ name: String, options: TableOptions = [], _ body: (TableDefinition) throws -> Void
    ) throws -> String {
        try tableStatements(name, options: options, body).joined(separator: ";\n")
    }

    /// The statements that create the table `body` declares: `CREATE TABLE`, then its indexes.
    private func tableStatements(
        _ name: String, options: TableOptions, _ body: (TableDefinition) throws -> Void
    ) throws -> [String] {
        let table = TableDefinition(name: name, options: options)
        try body(table)
        return try table.statements(encoder: recordContext.values)
    }

    /// Creates the index `name` on `columns` of `table`: `unique` refuses two rows with the same
    /// values, and `condition` makes a partial index of the rows it holds for.
    ///
    /// ```swift
    /// try conn.create(index: "books_title", on: "books", columns: ["title"])
    /// try conn.create(index: "books_isbn", on: "books", columns: ["isbn"], unique: true, where: "isbn IS NOT NULL")
    /// ```
    public func create(
        index name: String, on table: String, columns: [String], unique: Bool = false, ifNotExists: Bool = false,
        where condition: SQL? = nil
    ) throws {
        var sql = "CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
        sql += SQL.quote(identifier: name) + " ON " + SQL.quote(identifier: table)
        sql += " (" + columns.map(SQL.quote(identifier:)).joined(separator: ", ") + ")"
        if let condition {
            sql += " WHERE " + (try condition.inlined(encoder: recordContext.values))
        }
        guard unique else {
            try runSchema(sql)
            return
        }
        try transaction { conn in
            try conn.runSchema(sql)
            // Search layer hook: the triggers of a search table note the rows each UNIQUE key replaces.
            try conn.refreshSearchTriggers(on: table)
        }
    }

    /// Renames a table; its indexes and triggers, and the views, triggers and foreign keys that
    /// refer to it, follow.
    public func rename(table name: String, to newName: String) throws {
        // Search layer hook: a search table's triggers and side tables are made for its name.
        try checkRenaming(searchTable: name)
        try runSchema("ALTER TABLE \(SQL.quote(identifier: name)) RENAME TO \(SQL.quote(identifier: newName))")
    }

    /// Drops a table with its rows, indexes and triggers.
    public func drop(table name: String, ifExists: Bool = false) throws {
        try runSchema("DROP TABLE \(ifExists ? "IF EXISTS " : "")\(SQL.quote(identifier: name))")
    }

    /// Drops an index.
    public func drop(index name: String, ifExists: Bool = false) throws {
        try runSchema("DROP INDEX \(ifExists ? "IF EXISTS " : "")\(SQL.quote(identifier: name))")
    }

    /// Makes the changes `body` lists to the table `name`, all or nothing; see ``TableAlteration``.
    ///
    /// ```swift
    /// try conn.alter(table: "books") { t in
    ///     t.add(column: "shelf", .text)
    ///     t.change(column: "price", to: .real).notNull()
    /// }
    /// ```
    ///
    /// A change that `ALTER TABLE` cannot make rebuilds the table (a new table, its rows copied,
    /// the old one dropped and the new one renamed, its indexes and triggers made again), then
    /// checks the foreign keys of the table and of the tables that refer to it. Rows that break the
    /// new definition throw ``SchemaChangeError/rowsBreakConstraints(table:rows:)`` naming them, and
    /// nothing changes. In a ``Migrator`` migration foreign keys are off, as the rebuild needs;
    /// outside a transaction, `alter` turns them off for its own. Inside a transaction with foreign
    /// keys on, rebuilding a table that other tables refer to throws
    /// ``SchemaChangeError/foreignKeysEnforced(table:)``.
    public func alter(table name: String, _ body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(name: name)
        try body(alteration)
        try alter(alteration)
    }

    /// Makes the changes of `alteration`, as ``alter(table:_:)`` does.
    func alter(_ alteration: TableAlteration) throws {
        guard !alteration.changes.isEmpty else { return }
        if isInTransaction {
            try transaction { conn in try conn.apply(alteration) }
            return
        }
        let foreignKeys = try rows("PRAGMA foreign_keys", arguments: []).first.map { try $0[0] as Bool } ?? false
        if foreignKeys {
            try execute(script: "PRAGMA foreign_keys = OFF")
        }
        defer {
            if foreignKeys {
                try? execute(script: "PRAGMA foreign_keys = ON")
            }
        }
        try transaction(.immediate) { conn in try conn.apply(alteration) }
    }

    /// Makes the changes of `alteration`, inside a transaction.
    private func apply(_ alteration: TableAlteration) throws {
        // Search layer hook: a search table with external content reads its columns by name.
        for case .rename(let old, _) in alteration.changes {
            try checkSearchTablesAllowRenaming(column: old, of: alteration.name)
        }
        for case .drop(let column) in alteration.changes {
            try checkSearchTablesAllowDropping(column: column, of: alteration.name)
        }
        let table = SQL.quote(identifier: alteration.name)
        var pending: [TableAlteration.Change] = []
        let rebuilds = alteration.changes.contains(where: \.needsRebuild)
        for change in alteration.changes {
            switch change {
            case .rename(let old, let new):
                guard pending.isEmpty else {
                    pending.append(change)
                    continue
                }
                try runSchema(
                    "ALTER TABLE \(table) RENAME COLUMN \(SQL.quote(identifier: old)) TO \(SQL.quote(identifier: new))")
            case .add(let column) where !rebuilds && pending.isEmpty:
                let sql = "ALTER TABLE \(table) ADD COLUMN " + (try column.sql(encoder: recordContext.values))
                if try !attempt(sql) {
                    pending.append(change)
                }
            case .addWritten(let column) where !rebuilds && pending.isEmpty:
                let sql = "ALTER TABLE \(table) ADD COLUMN " + (try column.inlined(encoder: recordContext.values))
                if try !attempt(sql) {
                    pending.append(change)
                }
            case .drop(let column) where !rebuilds && pending.isEmpty:
                if try !attempt("ALTER TABLE \(table) DROP COLUMN \(SQL.quote(identifier: column))") {
                    pending.append(change)
                }
            default:
                pending.append(change)
            }
        }
        if !pending.isEmpty {
            try TableRebuild(connection: self, table: alteration.name, changes: pending).run()
            // Search layer hook: the rebuilt table's UNIQUE keys may have changed.
            try refreshSearchTriggers(on: alteration.name)
        }
        for change in alteration.changes {
            switch change {
            case .add(let column) where column.isIndexed:
                try runSchema(column.indexSQL(table: alteration.name, ifNotExists: false))
            case .replace(let column) where column.isIndexed:
                // The column's index of an earlier `indexed()` is made again by the rebuild.
                try runSchema(column.indexSQL(table: alteration.name, ifNotExists: true))
            default: break
            }
        }
        if !pending.isEmpty {
        } else if alteration.changes.contains(where: { if case .drop = $0 { true } else { false } }) {
            // SQLite's DROP COLUMN does not look at the columns a trigger's UPDATE … SET or INSERT
            // column list names: the triggers must still compile, or nothing changes.
            try TableRebuild(connection: self, table: alteration.name, changes: []).checkTriggersCompile(
                using: alteration.name)
        }
    }

    /// Runs a schema statement in a savepoint; returns false, with nothing changed, when SQLite
    /// refuses it.
    private func attempt(_ sql: String) throws -> Bool {
        do {
            // One statement only: a column written in SQL that holds a second one goes to the
            // rebuild, whose `CREATE TABLE` refuses it.
            try transaction { conn in
                try conn.checkCompiles(sql)
                try conn.execute(script: sql)
            }
        } catch is SQLiteError {
            return false
        }
        schemaLog.statements?.append(sql)
        return true
    }
}
