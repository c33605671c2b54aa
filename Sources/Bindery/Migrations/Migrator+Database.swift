/// Migrating a ``Database``: the ``Connection`` methods, run on its writer or a reader.
extension Migrator {
    /// Applies every pending migration on the database's writer connection and returns the identifiers
    /// it applied; see ``Migrator`` for the guarantees.
    ///
    /// ```swift
    /// let db = try Database(path: "app.sqlite")
    /// let applied = try await migrator.migrate(db)
    /// ```
    @discardableResult
    public func migrate(_ db: Database) async throws -> [String] {
        try await db.writeWithoutTransaction { conn in
            try self.migrate(conn)
        }
    }

    /// Applies the pending migrations registered up to and including `target` on the database's
    /// writer connection and returns the identifiers it applied.
    ///
    /// ```swift
    /// try await migrator.migrate(db, upTo: "create table students")
    /// ```
    @discardableResult
    public func migrate(_ db: Database, upTo target: String) async throws -> [String] {
        try await db.writeWithoutTransaction { conn in
            try self.migrate(conn, upTo: target)
        }
    }

    /// The identifiers of the migrations applied to the database, in the order they were applied.
    ///
    /// ```swift
    /// let applied = try await migrator.appliedIdentifiers(in: db)
    /// ```
    public func appliedIdentifiers(in db: Database) async throws -> [String] {
        try await db.read { conn in
            try self.appliedIdentifiers(in: conn)
        }
    }

    /// The identifiers of the registered migrations that the database has not applied, in order.
    ///
    /// ```swift
    /// let pending = try await migrator.pendingIdentifiers(in: db)
    /// ```
    public func pendingIdentifiers(in db: Database) async throws -> [String] {
        try await db.read { conn in
            try self.pendingIdentifiers(in: conn)
        }
    }

    /// Whether the database has applied every registered migration.
    ///
    /// ```swift
    /// if try await !migrator.hasCompletedMigrations(in: db) { try await migrator.migrate(db) }
    /// ```
    public func hasCompletedMigrations(in db: Database) async throws -> Bool {
        try await db.read { conn in
            try self.hasCompletedMigrations(in: conn)
        }
    }

    /// The pending migrations and the schema statements the table builder runs for each, on the
    /// database's writer connection, without changing the database; see ``preview(_:)-(Connection)``.
    ///
    /// ```swift
    /// for migration in try await migrator.preview(db) { print(migration) }
    /// ```
    public func preview(_ db: Database) async throws -> [MigrationPreview] {
        try await db.writeWithoutTransaction { conn in
            try self.preview(conn)
        }
    }
}
