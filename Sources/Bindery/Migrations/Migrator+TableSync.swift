/// Tables that follow their record types.
extension Migrator {
    /// Keeps the table of record type `T` in step with the type on every ``migrate(_:)-(Connection)``,
    /// after the registered migrations: creates it when it is missing, adds the columns the type
    /// gained, rebuilds the table (keeping its rows, indexes and triggers) when a column's type or
    /// nullability changed, and drops the columns the type lost only when `droppingColumns`. A
    /// changed column gets the property's type and `NOT NULL` when it is not optional; its other
    /// constraints (foreign key, `UNIQUE`, `CHECK`, `DEFAULT`, `COLLATE`) and the table constraints
    /// stay as they are.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// migrator.syncTable(for: Student.self)
    /// try await migrator.migrate(db)   // a fresh install and an upgrade end with the same columns
    /// ```
    ///
    /// Each change runs in its own transaction, like a migration, and is recorded in the migration
    /// ledger as `sync table <name>: <what it did>` (`created`, `added shelf`, `changed price`,
    /// `dropped legacy`); ``migrate(_:)-(Connection)`` returns these identifiers after those of the
    /// migrations it applied. A change that fails throws ``MigrationError/failed(identifier:underlying:)``
    /// with the identifier `sync table <name>` and is rolled back: a new column that is not optional
    /// cannot be added to a table that has rows (``SchemaChangeError/rowsBreakConstraints(table:rows:)``
    /// names them). `migrate(_:upTo:)` does not sync. The primary key is not followed: a table whose
    /// declared key differs from the type's (in any order) throws
    /// ``MigrationError/primaryKeyChanged(table:database:type:)``, which says how to write that
    /// migration.
    ///
    /// The table follows the struct as it is when the program runs. To keep a migration that holds
    /// the schema as it was, print ``Connection/createTableCode(for:)`` once and paste it into one.
    public mutating func syncTable<T: Record>(for type: T.Type, droppingColumns: Bool = false) {
        syncs.append(TableSync(T.self, droppingColumns: droppingColumns))
    }

    /// Brings one table in step in its own transaction; returns the ledger identifier of what it
    /// did, or nil when the table was in step.
    func apply(_ sync: TableSync, to conn: Connection) throws -> String? {
        do {
            return try conn.transaction(.immediate) { conn in
                let ledger = MigrationLedger(connection: conn)
                try ledger.create()
                let actions = try sync.run(conn)
                guard !actions.isEmpty else { return nil }
                let violations = try ForeignKeyViolation.all(in: conn, limit: 100)
                guard violations.isEmpty else {
                    throw MigrationError.foreignKeyViolations(violations)
                }
                let base = TableSync.ledgerPrefix + sync.table + ": " + actions.joined(separator: ", ")
                let applied = Set(try ledger.appliedIdentifiers().map(ExactText.init))
                var identifier = base
                var count = 1
                while applied.contains(ExactText(identifier)) {
                    count += 1
                    identifier = base + " (\(count))"
                }
                try ledger.record(identifier)
                return identifier
            }
        } catch {
            throw MigrationError.failed(identifier: TableSync.ledgerPrefix + sync.table, underlying: error)
        }
    }
}
