import Foundation

/// Bindery's own sync tables in a synced database, and the statements on them:
/// `bindery_sync_state` (one row: the copy's id, the last hub sequence applied, the last error),
/// `bindery_sync_outbox` (the changesets not yet seen back from the hub, by the copy's own sequence)
/// and `bindery_sync_conflicts` (every conflict decision a merge made).
enum SyncState {
    /// One changeset of the outbox.
    struct Pending {
        var sequence: Int64
        var schemaVersion: Int
        var changeset: [UInt8]
        var pushed: Bool
    }

    /// Creates the tables when missing and the state row with a new copy id.
    static func create(on connection: Connection) throws {
        try connection.execute(
            script: """
                CREATE TABLE IF NOT EXISTS bindery_sync_state(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    copy TEXT NOT NULL,
                    last_applied INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    removed_through INTEGER NOT NULL DEFAULT 0,
                    format INTEGER NOT NULL DEFAULT 1);
                CREATE TABLE IF NOT EXISTS bindery_sync_outbox(
                    sequence INTEGER PRIMARY KEY,
                    schema_version INTEGER NOT NULL,
                    changeset BLOB NOT NULL,
                    pushed INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE IF NOT EXISTS bindery_sync_conflicts(
                    id INTEGER PRIMARY KEY,
                    hub_sequence INTEGER,
                    table_name TEXT NOT NULL,
                    key TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    decision TEXT NOT NULL,
                    dropped TEXT,
                    recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')));
                """)
        try connection.execute(
            "INSERT OR IGNORE INTO bindery_sync_state(id, copy) VALUES (1, ?)",
            arguments: [.text(UUID().uuidString.lowercased())])
    }

    /// Gives the copy a new id, for a database file just copied from a template that held sync state.
    ///
    /// The hub tells copies apart by their ids, and a pull takes an entry with the copy's own id and
    /// the sequence of one of its pending changesets for that changeset come back: two files with one
    /// id would each drop the other's changesets, unpushed, as their own (and the changes with them).
    /// The template's unpushed changesets (rows written while it was synced) stay pending, as this
    /// copy's: pushed by each copy made from the template, they write the same rows. Those the template
    /// pushed are the hub's, under the template's id: they leave the outbox, and come back from the
    /// hub as another copy's changes to rows this copy holds already.
    static func renewCopy(on connection: Connection) throws {
        try connection.execute(
            "UPDATE bindery_sync_state SET copy = ? WHERE id = 1",
            arguments: [.text(UUID().uuidString.lowercased())])
        try connection.execute("DELETE FROM bindery_sync_outbox WHERE pushed = 1", arguments: [])
    }

    /// The copy's id, the last hub sequence applied and the last error.
    static func read(on connection: Connection) throws -> (copy: String, lastApplied: Int64, lastError: String?) {
        let rows = try connection.rows(
            "SELECT copy, last_applied, last_error FROM bindery_sync_state WHERE id = 1", arguments: [])
        guard let row = rows.first, case .text(let copy) = row.values[0], case .integer(let last) = row.values[1]
        else {
            throw SyncError.corruptState(reason: "bindery_sync_state has no valid row")
        }
        if case .text(let error) = row.values[2] {
            return (copy, last, error)
        }
        return (copy, last, nil)
    }

    static func setLastApplied(_ sequence: Int64, on connection: Connection) throws {
        try connection.execute(
            "UPDATE bindery_sync_state SET last_applied = ? WHERE id = 1", arguments: [.integer(sequence)])
    }

    static func setLastError(_ error: String?, on connection: Connection) throws {
        try connection.execute(
            "UPDATE bindery_sync_state SET last_error = ? WHERE id = 1", arguments: [error.map { .text($0) } ?? .null])
    }

    /// Appends a changeset captured now to the outbox.
    static func append(_ changeset: [UInt8], schemaVersion: Int, on connection: Connection) throws {
        try connection.execute(
            // A sequence is never given twice (the hub knows each by it): above every one in the
            // outbox and every one removed from it. Kept without AUTOINCREMENT, whose
            // sqlite_sequence row would be one more page written by every captured transaction.
            """
            INSERT INTO bindery_sync_outbox(sequence, schema_version, changeset)
            VALUES (max(coalesce((SELECT max(sequence) FROM bindery_sync_outbox), 0),
                        (SELECT removed_through FROM bindery_sync_state WHERE id = 1)) + 1, ?, ?)
            """,
            arguments: [.integer(Int64(schemaVersion)), .blob(Data(changeset))])
    }

    /// The outbox, oldest first (at most `limit` changesets).
    static func pending(on connection: Connection, limit: Int = Int(Int32.max)) throws -> [Pending] {
        try connection.rows(
            "SELECT sequence, schema_version, changeset, pushed FROM bindery_sync_outbox ORDER BY sequence LIMIT ?",
            arguments: [.integer(Int64(limit))]
        ).map { row in
            guard case .integer(let sequence) = row.values[0], case .integer(let version) = row.values[1],
                case .blob(let bytes) = row.values[2], case .integer(let pushed) = row.values[3]
            else {
                throw SyncError.corruptState(reason: "a row of bindery_sync_outbox does not hold a changeset")
            }
            return Pending(
                sequence: sequence, schemaVersion: Int(version), changeset: Array(bytes), pushed: pushed != 0)
        }
    }

    static func replace(_ sequence: Int64, with changeset: [UInt8], on connection: Connection) throws {
        if changeset.isEmpty {
            try remove(sequence, on: connection)
        } else {
            try connection.execute(
                "UPDATE bindery_sync_outbox SET changeset = ? WHERE sequence = ?",
                arguments: [.blob(Data(changeset)), .integer(sequence)])
        }
    }

    static func remove(_ sequence: Int64, on connection: Connection) throws {
        try connection.execute("DELETE FROM bindery_sync_outbox WHERE sequence = ?", arguments: [.integer(sequence)])
        try connection.execute(
            "UPDATE bindery_sync_state SET removed_through = max(removed_through, ?) WHERE id = 1",
            arguments: [.integer(sequence)])
    }

    static func markPushed(through sequence: Int64, on connection: Connection) throws {
        try connection.execute(
            "UPDATE bindery_sync_outbox SET pushed = 1 WHERE sequence <= ?", arguments: [.integer(sequence)])
    }

    /// Logs a conflict decision.
    static func logConflict(
        hubSequence: Int64?, table: String, key: [SQLiteValue], kind: String, decision: String, dropped: String?,
        on connection: Connection
    ) throws {
        try connection.execute(
            """
            INSERT INTO bindery_sync_conflicts(hub_sequence, table_name, key, kind, decision, dropped)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            arguments: [
                hubSequence.map { .integer($0) } ?? .null, .text(table), .text(describe(key)), .text(kind),
                .text(decision), dropped.map { .text($0) } ?? .null,
            ])
    }

    /// A key as the conflict log and errors show it: its values as SQL literals, comma-separated.
    static func describe(_ key: [SQLiteValue]) -> String {
        key.map(\.description).joined(separator: ", ")
    }

    /// A row's values as the conflict log shows them: `name = literal`, comma-separated, for the
    /// columns `only` marks (all when nil).
    static func describe(_ row: [SQLiteValue], columns: [String], only: [Bool]? = nil) -> String {
        zip(columns, row).enumerated().filter { only?[$0.offset] ?? true }
            .map { "\($0.element.0) = \($0.element.1.description)" }.joined(separator: ", ")
    }

    /// The copy's schema version: how many migrations its ``Migrator`` applied (0 without one).
    static func schemaVersion(on connection: Connection) throws -> Int {
        let exists = try connection.rows(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?",
            arguments: [.text(MigrationLedger.tableName)])
        guard !exists.isEmpty else { return 0 }
        let rows = try connection.rows(
            "SELECT count(*) FROM \(SQL.quote(identifier: MigrationLedger.tableName))", arguments: [])
        guard let row = rows.first, case .integer(let count) = row.values[0] else { return 0 }
        return Int(count)
    }
}
