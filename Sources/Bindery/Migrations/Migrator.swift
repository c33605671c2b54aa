/// Evolves a database schema from code: named migrations that each run once, in the order they were
/// registered, all or nothing.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("create students") { conn in
///     try conn.create(table: "students") { t in
///         t.column("id", .integer).primaryKey()
///         t.column("name", .text).notNull()
///     }
/// }
/// migrator.register("index names") { conn in
///     try conn.create(index: "students_name", on: "students", columns: ["name"])
/// }
/// let applied = try migrator.migrate(conn)                       // on every launch
/// ```
///
/// What `migrate` promises:
/// - Each pending migration runs in its own `IMMEDIATE` transaction, with foreign keys turned off
///   (so a migration can rebuild a table that others refer to) and `PRAGMA foreign_key_check` before
///   it commits. When the body throws, or leaves rows that break a foreign key, that migration is
///   rolled back wholly and ``MigrationError/failed(identifier:underlying:)`` is thrown; the
///   migrations before it stay applied and those after it do not run. Foreign keys are set back as
///   they were afterwards, whatever happened. (The check covers the whole database and runs even on
///   a connection whose foreign keys were off: rows that broke a foreign key before must be repaired
///   first.)
/// - A database that holds applied migrations this program does not register (one migrated by a
///   newer version) is refused with ``MigrationError/unknownApplied(_:)`` before anything runs.
/// - Several connections or processes may migrate one file at once: a migration is looked up again
///   once its transaction holds the write lock, so each runs exactly once.
///
/// The applied identifiers are kept in a table `bindery_migrations(identifier, applied_at)`, made on
/// first use. Migrations are identified by name only: never change or rename one that has shipped;
/// register a new one instead.
public struct Migrator: Sendable {
    /// One registered migration.
    struct Migration: Sendable {
        let identifier: String
        let body: @Sendable (Connection) throws -> Void
    }

    /// The registered migrations, in order.
    var migrations: [Migration] = []
    /// The record types whose tables `migrate` keeps in step, in order.
    var syncs: [TableSync] = []

    /// For development only, and unsafe for production: when the schema that the migrations applied
    /// to a database produce (checked by running them on a fresh in-memory database) differs from
    /// the database's own schema, or the database holds migrations that are not registered, `migrate`
    /// erases the whole database, data included, and migrates it from scratch. A database that has
    /// applied no migration is left alone, and a new migration that is merely pending erases nothing.
    /// Default `false`.
    ///
    /// It lets you edit a migration while you work on it and relaunch, instead of registering a new
    /// one for every change. Never ship it turned on: a user's data would be deleted whenever a
    /// schema differs.
    ///
    /// ```swift
    /// #if DEBUG
    /// migrator.eraseDatabaseOnSchemaChange = true
    /// #endif
    /// ```
    public var eraseDatabaseOnSchemaChange = false

    /// Creates a migrator with no migrations.
    public init() {}

    /// The identifiers of the registered migrations, in the order they run.
    public var registeredIdentifiers: [String] {
        migrations.map(\.identifier)
    }

    /// Registers a migration to run after those registered before it. `body` runs inside the
    /// migration's transaction: it must not commit or roll back itself; throwing rolls it back.
    ///
    /// ```swift
    /// migrator.register("add students.email") { conn in
    ///     try conn.execute(script: "ALTER TABLE students ADD COLUMN email TEXT")
    /// }
    /// ```
    ///
    /// Registering an identifier twice makes `migrate` throw ``MigrationError/duplicateIdentifier(_:)``.
    public mutating func register(_ identifier: String, _ body: @escaping @Sendable (Connection) throws -> Void) {
        migrations.append(Migration(identifier: identifier, body: body))
    }

    // MARK: Migrating

    /// Applies every pending migration, in order, and returns the identifiers it applied (empty when
    /// the database was up to date). See ``Migrator`` for the guarantees.
    ///
    /// ```swift
    /// let applied = try migrator.migrate(conn)   // ["create table students", "index names"]
    /// ```
    ///
    /// Call it outside any transaction: it throws ``SQLiteError/Code/misuse`` inside one.
    @discardableResult
    public func migrate(_ conn: Connection) throws -> [String] {
        try migrate(conn, through: nil)
    }

    /// Applies the pending migrations registered up to and including `target`, in order, and returns
    /// the identifiers it applied. Migrations registered after `target` do not run; those already
    /// applied stay applied.
    ///
    /// ```swift
    /// try migrator.migrate(conn, upTo: "create table students")
    /// ```
    ///
    /// An unregistered `target` throws ``MigrationError/unknownTarget(_:)`` before anything runs.
    @discardableResult
    public func migrate(_ conn: Connection, upTo target: String) throws -> [String] {
        try migrate(conn, through: target)
    }

    /// The identifiers of the migrations applied to the database, in the order they were applied.
    /// Identifiers this migrator does not register are included.
    ///
    /// ```swift
    /// let applied = try migrator.appliedIdentifiers(in: conn)
    /// ```
    public func appliedIdentifiers(in conn: Connection) throws -> [String] {
        try MigrationLedger(connection: conn).appliedIdentifiers()
    }

    /// The identifiers of the registered migrations that the database has not applied, in the order
    /// `migrate` would run them.
    ///
    /// ```swift
    /// if try !migrator.pendingIdentifiers(in: conn).isEmpty { … }
    /// ```
    public func pendingIdentifiers(in conn: Connection) throws -> [String] {
        try checkRegistrations()
        let applied = Set(try appliedIdentifiers(in: conn).map(ExactText.init))
        return registeredIdentifiers.filter { !applied.contains(ExactText($0)) }
    }

    /// Whether the database has applied every registered migration.
    ///
    /// ```swift
    /// guard try migrator.hasCompletedMigrations(in: conn) else { … }
    /// ```
    public func hasCompletedMigrations(in conn: Connection) throws -> Bool {
        try pendingIdentifiers(in: conn).isEmpty
    }

    // MARK: Implementation

    /// Applies the pending migrations up to `target` (all when nil).
    func migrate(_ conn: Connection, through target: String?) throws -> [String] {
        let selected = try migrations(through: target)
        guard !conn.isInTransaction else {
            throw SQLiteError(
                code: .misuse,
                message: "migrate cannot run inside a transaction: each migration runs in its own, with foreign "
                    + "keys turned off, which SQLite allows only outside a transaction")
        }
        // PRAGMA foreign_keys does nothing inside a transaction: it is set before each one begins.
        let foreignKeys = try conn.rows("PRAGMA foreign_keys", arguments: []).first.map { try $0[0] as Bool } ?? false
        try conn.execute(script: "PRAGMA foreign_keys = OFF")
        defer { try? conn.execute(script: "PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")") }

        if eraseDatabaseOnSchemaChange {
            try eraseIfSchemaChanged(conn)
        }
        let applied = try appliedIdentifiers(in: conn)
        try checkKnown(applied)
        let alreadyApplied = Set(applied.map(ExactText.init))
        var done: [String] = []
        for migration in selected where !alreadyApplied.contains(ExactText(migration.identifier)) {
            if try apply(migration, to: conn) {
                done.append(migration.identifier)
            }
        }
        if target == nil {
            for sync in syncs {
                if let identifier = try apply(sync, to: conn) {
                    done.append(identifier)
                }
            }
        }
        return done
    }

    /// Runs one migration in its own transaction, unless it was applied meanwhile (by another
    /// connection that held the write lock first); returns whether it ran.
    private func apply(_ migration: Migration, to conn: Connection) throws -> Bool {
        do {
            return try conn.transaction(.immediate) { conn in
                let ledger = MigrationLedger(connection: conn)
                try ledger.create()
                // Looked up again now that this transaction holds the write lock.
                let applied = try ledger.appliedIdentifiers()
                try checkKnown(applied)
                guard !applied.contains(where: { ExactText.same($0, migration.identifier) }) else { return false }
                try migration.body(conn)
                let violations = try ForeignKeyViolation.all(in: conn, limit: 100)
                guard violations.isEmpty else {
                    throw MigrationError.foreignKeyViolations(violations)
                }
                try ledger.record(migration.identifier)
                return true
            }
        } catch let error as MigrationError {
            if case .unknownApplied = error {
                throw error
            }
            throw MigrationError.failed(identifier: migration.identifier, underlying: error)
        } catch {
            throw MigrationError.failed(identifier: migration.identifier, underlying: error)
        }
    }

    /// The registered migrations up to and including `target` (all when nil), after checking that no
    /// identifier is registered twice and that `target` is registered.
    private func migrations(through target: String?) throws -> ArraySlice<Migration> {
        try checkRegistrations()
        guard let target else { return migrations[...] }
        guard let index = migrations.firstIndex(where: { ExactText.same($0.identifier, target) }) else {
            throw MigrationError.unknownTarget(target)
        }
        return migrations[...index]
    }

    /// Throws ``MigrationError/duplicateIdentifier(_:)`` for the first identifier registered twice.
    func checkRegistrations() throws {
        var seen: Set<ExactText> = []
        for migration in migrations where !seen.insert(ExactText(migration.identifier)).inserted {
            throw MigrationError.duplicateIdentifier(migration.identifier)
        }
    }

    /// Throws ``MigrationError/unknownApplied(_:)`` when `applied` holds identifiers that are not
    /// registered.
    func checkKnown(_ applied: [String]) throws {
        let known = Set(registeredIdentifiers.map(ExactText.init))
        let unknown = applied.filter { !known.contains(ExactText($0)) && !Self.isTableSync($0) }
        guard unknown.isEmpty else {
            throw MigrationError.unknownApplied(unknown)
        }
    }
}

/// Identifiers are told apart as the ledger's `TEXT PRIMARY KEY` tells them apart, by their bytes
/// (``ExactText``): Swift's `String` equality holds "café" composed and decomposed equal; the ledger
/// keeps both, and so a migration applied under one spelling is not the one registered under the other.
extension Migrator {
    /// Whether `identifier` is one a table sync recorded (it starts with ``TableSync/ledgerPrefix``).
    static func isTableSync(_ identifier: String) -> Bool {
        identifier.utf8.starts(with: TableSync.ledgerPrefix.utf8)
    }
}
