import Foundation

/// Change capture on a synced database's writer connection: a ``ChangeRecorder`` (SQLite's preupdate
/// hook) records the synced tables' changes, and before each outermost transaction commits, its
/// changes become one changeset in `bindery_sync_outbox`, written in that same transaction. A crash
/// therefore never loses a committed change from the outbox, nor records one that did not commit.
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
    private var recorder: ChangeRecorder?
    /// The table schemas, checked, by name as SQLite compares names (ASCII case folded only: "Été" and
    /// "été" are two tables); emptied when the schema changes.
    private var schemas: [FoldedIdentifier: SyncTableSchema] = [:]
    /// `PRAGMA schema_version` when the synced tables were last checked.
    private var checkedSchemaVersion: Int64 = -1
    /// The copy's schema version (``SyncState/schemaVersion(on:)``) at that time.
    private var copySchemaVersion = 0
    /// Whether a pull is applying changes now: nothing is recorded, and commits are allowed.
    private(set) var isSuspended = false

    /// Capture of `configuration`'s tables on `connection`; `missingOption` is the compile option the
    /// SQLite in use lacks (``ChangeRecorder/missingCompileOption``), given by tests. With
    /// `renewingCopy` (a database file just copied from a template), the copy gets an id of its own.
    init(
        configuration: SyncConfiguration, connection: Connection, renewingCopy: Bool = false,
        missingOption: String? = ChangeRecorder.missingCompileOption
    ) throws {
        if let missing = missingOption {
            throw SyncError.sessionExtensionUnavailable(missingOption: missing)
        }
        try configuration.check()
        self.configuration = configuration
        try connection.transaction(.immediate) { connection in
            try SyncState.create(on: connection)
            if renewingCopy {
                try SyncState.renewCopy(on: connection)
            }
        }
        recorder = try connection.openChangeRecorder(tables: configuration.tables.map(\.name))
    }

    // MARK: TransactionParticipant

    func willBegin(_ connection: Connection) throws {
        // Changes recorded and not committed (a transaction that rolled back) are dropped.
        guard !isSuspended else { return }
        recorder?.reset()
    }

    func willCommit(_ connection: Connection) throws {
        guard !isSuspended else { return }
        // The tables as the last check found them: one whose columns differ now changed them in this
        // transaction (or another connection did between two).
        let before = schemas
        try checkSchema(on: connection)
        guard let recorder else {
            throw SyncError.corruptState(reason: "change capture has no recorder for this transaction")
        }
        guard !recorder.isEmpty else { return }
        let bytes = try changeset(of: recorder, on: connection, before: before)
        recorder.reset()
        guard !bytes.isEmpty else { return }
        try SyncState.append(bytes, schemaVersion: copySchemaVersion, on: connection)
    }

    func allowsCommit() -> Bool {
        guard !isSuspended else { return true }
        return recorder?.isEmpty ?? false
    }

    func didRollBack() {
        // What the transaction changed is gone: a later commit of other tables is not refused for it.
        recorder?.reset()
    }

    func connectionWillClose() {
        recorder?.close()
        recorder = nil
    }

    // MARK: Pulls

    /// Runs `body` with recording off (a pull applying the hub's changesets), then starts a new
    /// recording.
    func suspended<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        isSuspended = true
        recorder?.isEnabled = false
        defer {
            isSuspended = false
            recorder?.isEnabled = true
            recorder?.reset()
        }
        return try body()
    }

    /// Records the changes `body` makes to the synced tables, and returns them as a changeset (a local
    /// changeset applied again over the hub's: its rebased form).
    func recording(on connection: Connection, _ body: () throws -> Void) throws -> [UInt8] {
        guard let recorder else {
            throw SyncError.corruptState(reason: "change capture has no recorder for this pull")
        }
        let wasEnabled = recorder.isEnabled
        recorder.reset()
        recorder.isEnabled = true
        defer {
            recorder.reset()
            recorder.isEnabled = wasEnabled
        }
        try body()
        try checkSchema(on: connection)
        return try changeset(of: recorder, on: connection)
    }

    /// The schema of the synced table `name`, checked.
    func schema(of name: String, on connection: Connection) throws -> SyncTableSchema {
        try checkSchema(on: connection)
        return try checkedSchema(of: name, on: connection)
    }

    /// The schema of the synced table `name`, as the last ``checkSchema(on:)`` found it.
    private func checkedSchema(of name: String, on connection: Connection) throws -> SyncTableSchema {
        let key = FoldedIdentifier(name)
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
    /// silently skip) throws, and so does one whose columns moved or went (see
    /// ``checkColumnPositions(_:earlier:)``).
    func checkSchema(on connection: Connection) throws {
        let version = try connection.withStatement("PRAGMA schema_version") { statement in
            try statement.step() ? try statement.value(at: 0) : .null
        }
        guard case .integer(let version) = version else { return }
        guard version != checkedSchemaVersion else { return }
        var checked: [FoldedIdentifier: SyncTableSchema] = [:]
        for table in configuration.tables {
            do {
                let schema = try SyncTableSchema(table: table.name, on: connection)
                if let earlier = schemas[FoldedIdentifier(table.name)] {
                    try Self.checkColumnPositions(schema, earlier: earlier)
                }
                checked[FoldedIdentifier(table.name)] = schema
            } catch SyncError.noSuchTable {
                // Not created yet (a later migration creates it): nothing to record until then.
            }
        }
        schemas = checked
        copySchemaVersion = try SyncState.schemaVersion(on: connection)
        checkedSchemaVersion = version
    }

    /// Throws ``SyncError/unsupportedColumn(table:column:reason:)`` when a column of `earlier` is no
    /// longer at its position in `schema` (moved, or dropped) and is not merely renamed there: a
    /// changeset holds a row's values by position, so the changesets of a copy that has not made the
    /// same change (or made before it) would write each value into another column. Columns added at
    /// the end, and columns renamed in place, keep every position.
    static func checkColumnPositions(_ schema: SyncTableSchema, earlier: SyncTableSchema) throws {
        let now = schema.columns.map(FoldedIdentifier.init)
        let before = earlier.columns.map(FoldedIdentifier.init)
        for (position, column) in before.enumerated() {
            if position < now.count, now[position] == column { continue }
            // Renamed in place: the old name is gone and the new one is new.
            if position < now.count, !now.contains(column), !before.contains(now[position]) { continue }
            let change = now.contains(column) ? "moved" : "was dropped"
            throw SyncError.unsupportedColumn(
                table: schema.name, column: earlier.columns[position],
                reason: "it \(change), and changesets hold a row's values by position: a copy on the earlier "
                    + "schema would write each value of the columns after it into another column; add columns "
                    + "at the end of a synced table only, and keep those it has where they are")
        }
    }

    // MARK: Recording

    /// What `recorder` saw, as a changeset of whole rows; the schema was checked.
    private func changeset(
        of recorder: ChangeRecorder, on connection: Connection, before: [FoldedIdentifier: SyncTableSchema] = [:]
    ) throws -> [UInt8] {
        try recorder.changeset { name in
            do {
                let schema = try checkedSchema(of: name, on: connection)
                let earlier = before[FoldedIdentifier(name)]
                return ChangeRecorder.Layout(
                    name: schema.name, keyFlags: schema.keyFlags, heldColumns: schema.heldColumns,
                    realColumns: schema.realColumns, requiredDefaults: schema.requiredDefaults,
                    columnsChanged: earlier.map { $0.columns != schema.columns || $0.keyFlags != schema.keyFlags }
                        ?? false,
                    selectRowSQL: schema.selectRowSQL)
            } catch SyncError.noSuchTable {
                return nil
            }
        }
    }
}
