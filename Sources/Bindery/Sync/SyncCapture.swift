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
        try SyncState.append(try completed(bytes, on: connection), schemaVersion: copySchemaVersion, on: connection)
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
    func recording(on connection: Connection, _ body: () throws -> Void) throws -> [UInt8] {
        let session = try connection.openSession(tables: configuration.tables.map(\.name))
        defer { session.close() }
        try body()
        return try completed(session.changeset(), on: connection)
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
        let version = try connection.withStatement("PRAGMA schema_version") { statement in
            try statement.step() ? try statement.value(at: 0) : .null
        }
        guard case .integer(let version) = version else { return }
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

    /// The session's changeset `bytes` with every update made full-row: the session records an
    /// update's key and changed columns only, and the rest of the row (unchanged, so the same before
    /// and after) is read from the table, where the transaction has it now. Inserts and deletes hold
    /// whole rows already, and are copied as they are.
    private func completed(_ bytes: [UInt8], on connection: Connection) throws -> [UInt8] {
        guard try ChangesetReader.containsUpdate(bytes) else { return bytes }
        var reader = ChangesetReader(bytes: bytes)
        var written: [UInt8] = []
        written.reserveCapacity(bytes.count * 2)
        var start = reader.offset
        while let header = try reader.nextTable() {
            written += bytes[start..<reader.offset]
            let schema = try schema(of: header.name, on: connection)
            guard schema.columns.count == header.keyFlags.count else {
                throw SyncError.corruptState(
                    reason:
                        "table \(header.name) has \(schema.columns.count) columns, its changes \(header.keyFlags.count)"
                )
            }
            let keyColumns = header.keyFlags.indices.filter { header.keyFlags[$0] != 0 }
            while let operation = reader.nextOperation {
                start = reader.offset
                guard operation == Changeset.Operation.update.rawValue else {
                    _ = try reader.skipChange(columnCount: header.keyFlags.count)
                    written += bytes[start..<reader.offset]
                    continue
                }
                guard var change = try reader.nextChange(columnCount: header.keyFlags.count) else { break }
                let key = keyColumns.map { change.old[$0] ?? .null }
                guard let row = try schema.currentRow(key: key, on: connection) else {
                    throw SyncError.corruptState(reason: "an updated row of \(header.name) is missing")
                }
                for column in row.indices {
                    if change.old[column] == nil {
                        change.old[column] = row[column]
                    }
                    change.new[column] = row[column]
                }
                written.append(operation)
                written.append(change.indirect ? 1 : 0)
                Changeset.append(record: change.old, columnCount: row.count, to: &written)
                Changeset.append(record: change.new, columnCount: row.count, to: &written)
            }
            start = reader.offset
        }
        return written
    }
}
