import Foundation

/// The bookkeeping of a ``Migrator``: the table `bindery_migrations(identifier, applied_at)` that
/// lists the migrations applied to a database, created on first use.
struct MigrationLedger {
    /// The name of the bookkeeping table.
    static let tableName = "bindery_migrations"

    /// The connection whose database the ledger belongs to.
    let connection: Connection

    /// Whether the bookkeeping table exists yet.
    func exists() throws -> Bool {
        let rows = try connection.rows(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            arguments: [.text(Self.tableName)])
        return !rows.isEmpty
    }

    /// Creates the bookkeeping table unless it exists.
    func create() throws {
        try connection.execute(
            script: """
                CREATE TABLE IF NOT EXISTS \(Self.tableName) (\
                identifier TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)
                """)
    }

    /// The identifiers of the applied migrations, in the order they were applied; empty when the
    /// bookkeeping table does not exist (nothing was ever migrated, or the connection cannot write).
    func appliedIdentifiers() throws -> [String] {
        guard try exists() else { return [] }
        return try connection.rows("SELECT identifier FROM \(Self.tableName) ORDER BY rowid", arguments: [])
            .map { try $0[0] as String }
    }

    /// Records `identifier` as applied now, with the time in SQLite's text format
    /// (`yyyy-MM-dd HH:mm:ss.SSS`, UTC).
    func record(_ identifier: String) throws {
        // SQLiteDate gives nil only outside the years 0…9999; SQLite's clock then writes the same format.
        let now: SQLiteValue = SQLiteDate.string(from: Date()).map { .text($0) } ?? .null
        try connection.execute(
            "INSERT INTO \(Self.tableName) (identifier, applied_at) "
                + "VALUES (?, coalesce(?, strftime('%Y-%m-%d %H:%M:%f', 'now')))",
            arguments: [.text(identifier), now])
    }
}
