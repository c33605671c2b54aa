/// ``Migrator/eraseDatabaseOnSchemaChange``: erasing a development database whose schema no longer
/// matches its migrations.
extension Migrator {
    /// Erases the database of `conn` when the migrations it applied, run on a fresh in-memory
    /// database, produce another schema than its own, or when it applied migrations that are not
    /// registered; returns whether it erased. A database that applied nothing is left alone.
    ///
    /// Runs with foreign keys off (``migrate(_:through:)`` turns them off), in one `IMMEDIATE`
    /// transaction.
    @discardableResult
    func eraseIfSchemaChanged(_ conn: Connection) throws -> Bool {
        try conn.transaction(.immediate) { conn in
            let applied = try appliedIdentifiers(in: conn).filter { !Self.isTableSync($0) }
            guard !applied.isEmpty else { return false }
            let current = try SchemaSnapshot(reading: conn)
            let known = Set(registeredIdentifiers.map(ExactText.init))
            let needsErase: Bool
            if applied.contains(where: { !known.contains(ExactText($0)) }) {
                needsErase = true
            } else {
                // The tables that follow their types are brought in step by `migrate`: left out.
                let synced = syncs.map(\.table)
                func unsynced(_ snapshot: SchemaSnapshot) -> [SchemaSnapshot.Object] {
                    snapshot.objects.filter { object in !synced.contains { $0.equalsIdentifier(object.tableName) } }
                }
                let expected = try referenceSchema(applying: Set(applied.map(ExactText.init)), like: conn)
                needsErase = unsynced(expected) != unsynced(current)
            }
            if needsErase {
                try current.dropAll(in: conn)
            }
            return needsErase
        }
    }

    /// The schema that the registered migrations in `identifiers` produce on a fresh in-memory
    /// database with the options and coding options of `conn`.
    private func referenceSchema(applying identifiers: Set<ExactText>, like conn: Connection) throws -> SchemaSnapshot {
        var reference = Migrator()
        reference.migrations = migrations.filter { identifiers.contains(ExactText($0.identifier)) }
        let scratch = try Connection.inMemory(options: conn.options)
        defer { scratch.close() }
        scratch.codingOptions = conn.codingOptions
        try reference.migrate(scratch)
        return try SchemaSnapshot(reading: scratch)
    }
}
