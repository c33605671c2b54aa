/// Seeing what `migrate` would do before it runs.
extension Migrator {
    /// The pending migrations, in the order `migrate` would run them, each with the schema
    /// statements the table builder runs for it, then the changes ``syncTable(for:droppingColumns:)``
    /// would make, each as `migrate` would record it (`sync table books: added shelf`). The database does not change: the migrations run
    /// in one transaction, as `migrate` would run them, which is then rolled back.
    ///
    /// ```swift
    /// for migration in try migrator.preview(conn) {
    ///     print(migration)   // -- add shelves
    ///                        // ALTER TABLE "books" ADD COLUMN "shelf" TEXT;
    /// }
    /// ```
    ///
    /// A migration that throws makes `preview` throw ``MigrationError/failed(identifier:underlying:)``,
    /// as `migrate` would. Call it outside any transaction: it throws ``SQLiteError/Code/misuse``
    /// inside one. ``eraseDatabaseOnSchemaChange`` does not apply.
    public func preview(_ conn: Connection) throws -> [MigrationPreview] {
        try checkRegistrations()
        guard !conn.isInTransaction else {
            throw SQLiteError(
                code: .misuse,
                message: "preview cannot run inside a transaction: it runs the migrations in its own and rolls it back")
        }
        let foreignKeys = try conn.rows("PRAGMA foreign_keys", arguments: []).first.map { try $0[0] as Bool } ?? false
        try conn.execute(script: "PRAGMA foreign_keys = OFF")
        defer { try? conn.execute(script: "PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")") }
        let log = conn.schemaLog
        defer { log.statements = nil }
        var previews: [MigrationPreview] = []
        do {
            try conn.transaction(.immediate) { conn in
                let applied = try appliedIdentifiers(in: conn)
                try checkKnown(applied)
                let appliedBytes = Set(applied.map(ExactText.init))
                for migration in migrations where !appliedBytes.contains(ExactText(migration.identifier)) {
                    log.statements = []
                    do {
                        try migration.body(conn)
                    } catch {
                        throw MigrationError.failed(identifier: migration.identifier, underlying: error)
                    }
                    previews.append(
                        MigrationPreview(identifier: migration.identifier, statements: log.statements ?? []))
                }
                for sync in syncs {
                    log.statements = []
                    let actions: [String]
                    do {
                        actions = try sync.run(conn)
                    } catch {
                        throw MigrationError.failed(identifier: TableSync.ledgerPrefix + sync.table, underlying: error)
                    }
                    guard !actions.isEmpty else { continue }
                    previews.append(
                        MigrationPreview(
                            identifier: TableSync.ledgerPrefix + sync.table + ": " + actions.joined(separator: ", "),
                            statements: log.statements ?? []))
                }
                throw PreviewRollback()
            }
        } catch is PreviewRollback {
            return previews
        }
        return previews
    }
}

/// Thrown to roll back the transaction of a preview.
private struct PreviewRollback: Error {}
