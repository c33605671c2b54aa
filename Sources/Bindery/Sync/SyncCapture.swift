import Foundation

/// Change capture on a synced database's writer connection: a session (``Session``) records the
/// synced tables' changes, and before each outermost transaction commits, its changes become one
/// changeset in `bindery_sync_outbox`, written in that same transaction. A crash therefore never
/// loses a committed change from the outbox, nor records one that did not commit.
///
/// A commit this capture has not recorded (a statement that changes a synced table outside a
/// transaction scope, or a `COMMIT` run as SQL) is refused by the commit hook
/// (``allowsCommit()``): it fails with `SQLITE_CONSTRAINT_COMMITHOOK` and rolls back, rather than
/// commit a change no other copy would ever see.
///
/// While a pull applies the hub's changesets (``isSuspended``), recording is off, so that remote
/// changes are not captured again.
final class SyncCapture: TransactionParticipant {
    let configuration: SyncConfiguration
    private var session: Session?
    /// The table schemas, checked; emptied when the schema changes.
    private var schemas: [String: SyncTableSchema] = [:]
    /// `PRAGMA schema_version` when the synced tables were last checked.
    private var checkedSchemaVersion: Int64 = -1
    /// The copy's schema version (``SyncState/schemaVersion(on:)``) at that time.
    private var copySchemaVersion = 0
    /// Whether a pull is applying changes now: nothing is recorded, and commits are allowed.
    private(set) var isSuspended = false

    /// Capture of `configuration`'s tables on `connection`; `missingOption` is the compile option the
    /// SQLite in use lacks (``Session/missingCompileOption``), given by tests.
    init(
        configuration: SyncConfiguration, connection: Connection,
        missingOption: String? = Session.missingCompileOption
    ) throws {
        if let missing = missingOption {
            throw SyncError.sessionExtensionUnavailable(missingOption: missing)
        }
        self.configuration = configuration
        try connection.transaction(.immediate) { connection in
            try SyncState.create(on: connection)
        }
        session = try connection.openSession(tables: configuration.tables.map(\.name))
    }

    // MARK: TransactionParticipant

    func willBegin(_ connection: Connection) throws {
        // Changes recorded and not committed (a transaction that rolled back) are dropped.
        guard !isSuspended else { return }
        if session?.isEmpty != true {
            try renew(on: connection)
        }
    }

    func willCommit(_ connection: Connection) throws {
        guard !isSuspended else { return }
        try checkSchema(on: connection)
        guard let session else {
            throw SyncError.corruptState(reason: "change capture has no session to record this transaction")
        }
        guard !session.isEmpty else { return }
        let bytes = try session.changeset()
        try renew(on: connection)
        guard !bytes.isEmpty else { return }
        // Inserts and deletes hold whole rows already; only updates are rewritten.
        let stored = try ChangesetReader.containsUpdate(bytes) ? completed(Changeset(parsing: bytes), on: connection).serialized() : bytes
        guard !stored.isEmpty else { return }
        try SyncState.append(stored, schemaVersion: copySchemaVersion, on: connection)
    }

    func allowsCommit() -> Bool {
        guard !isSuspended else { return true }
        guard let session else { return false }
        return session.isEmpty
    }

    func connectionWillClose() {
        session?.close()
        session = nil
    }

    // MARK: Pulls

    /// Runs `body` with recording off (a pull applying the hub's changesets), then starts a new
    /// recording.
    func suspended<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        // The session is closed rather than disabled: a disabled one is still called for every row
        // the pull changes.
        isSuspended = true
        session?.close()
        session = nil
        defer {
            isSuspended = false
            // Without a session nothing would be recorded: every later transaction makes one first
            // (willBegin), and a commit outside one is refused (allowsCommit).
            try? renew(on: connection)
        }
        return try body()
    }

    /// Records the changes `body` makes to the synced tables, and returns them as a completed
    /// changeset (a local changeset applied again over the hub's: its rebased form).
    func recording(on connection: Connection, _ body: () throws -> Void) throws -> Changeset {
        let session = try connection.openSession(tables: configuration.tables.map(\.name))
        defer { session.close() }
        try body()
        return try completed(Changeset(parsing: session.changeset()), on: connection)
    }

    /// The schema of the synced table `name`, checked.
    func schema(of name: String, on connection: Connection) throws -> SyncTableSchema {
        try checkSchema(on: connection)
        let key = name.lowercased()
        if let schema = schemas[key] {
            return schema
        }
        let schema = try SyncTableSchema(table: name, on: connection)
        schemas[key] = schema
        return schema
    }

    /// The copy's schema version now.
    func schemaVersion(on connection: Connection) throws -> Int {
        try checkSchema(on: connection)
        return copySchemaVersion
    }

    /// Checks every synced table again when the schema changed since the last check: a synced table
    /// without a safe key (or, once it exists, without a key at all, whose changes the session would
    /// silently skip) throws.
    func checkSchema(on connection: Connection) throws {
        let rows = try connection.rows("PRAGMA schema_version", arguments: [])
        guard case .integer(let version) = rows.first?.values.first else { return }
        guard version != checkedSchemaVersion else { return }
        schemas.removeAll()
        for table in configuration.tables {
            do {
                schemas[table.name.lowercased()] = try SyncTableSchema(table: table.name, on: connection)
            } catch SyncError.noSuchTable {
                // Not created yet (a later migration creates it): nothing to record until then.
            }
        }
        copySchemaVersion = try SyncState.schemaVersion(on: connection)
        checkedSchemaVersion = version
    }

    // MARK: Recording

    private func renew(on connection: Connection) throws {
        session?.close()
        session = nil
        session = try connection.openSession(tables: configuration.tables.map(\.name))
    }

    /// `changeset` with every update made full-row: the session records an update's key and changed
    /// columns only, and the rest of the row (unchanged, so the same before and after) is read from
    /// the table, where the transaction has it now.
    private func completed(_ changeset: Changeset, on connection: Connection) throws -> Changeset {
        var changeset = changeset
        for tableIndex in changeset.tables.indices {
            let table = changeset.tables[tableIndex]
            guard table.changes.contains(where: { $0.operation == .update }) else { continue }
            let schema = try schema(of: table.name, on: connection)
            guard schema.columns.count == table.columnCount else {
                throw SyncError.corruptState(
                    reason: "table \(table.name) has \(schema.columns.count) columns, its changes \(table.columnCount)")
            }
            for changeIndex in table.changes.indices where table.changes[changeIndex].operation == .update {
                var change = table.changes[changeIndex]
                let key = table.primaryKey.indices.filter { table.primaryKey[$0] }.map { change.old[$0] ?? .null }
                guard let row = try schema.currentRow(key: key, on: connection) else {
                    throw SyncError.corruptState(reason: "an updated row of \(table.name) is missing")
                }
                for column in row.indices {
                    if change.old[column] == nil {
                        change.old[column] = row[column]
                    }
                    change.new[column] = row[column]
                }
                changeset.tables[tableIndex].changes[changeIndex] = change
            }
        }
        return changeset
    }
}
