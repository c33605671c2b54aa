import Foundation

/// Why a synced database, a ``SyncCopy``, a ``SyncHub`` or a transport refused or could not finish
/// a step. Every case names what it is about (a table, a key, a hub sequence number), and none
/// leaves a change half-applied: the step's transaction rolled back, or stopped before the named
/// changeset.
///
/// ```swift
/// do {
///     try await copy.pull()
/// } catch SyncError.newerSchema(let sequence, let needed, let have) {
///     print("changeset \(sequence) needs schema version \(needed), this copy has \(have): migrate first")
/// }
/// ```
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLite library in use was compiled without the pre-update hook (which records a synced
    /// table's changes) or the session extension (which applies them): `option` names the missing
    /// compile-time option (`SQLITE_ENABLE_PREUPDATE_HOOK` or `SQLITE_ENABLE_SESSION`). Debian's and
    /// Apple's SQLite have both.
    case sessionExtensionUnavailable(missingOption: String)
    /// A synced table's primary key could collide between copies, or the table has none: `reason`
    /// says which and what to use instead (a UUID or TEXT key chosen by the app).
    case unsafeKey(table: String, reason: String)
    /// A synced table has a column whose changes cannot be recorded: `reason` says why and what to do
    /// instead (a `VIRTUAL` generated column, whose values SQLite's pre-update hook does not give).
    case unsupportedColumn(table: String, column: String, reason: String)
    /// The resolver given to the synced table `table` (``SyncPolicy/resolve(_:_:)``) decodes and stores
    /// records of `recordType`, whose ``Record/tableName`` is `recordTable`, another table: the records
    /// it merges would be written to `recordTable`, and `table`'s row left as it was. Give each table
    /// a resolver of its own record type.
    case resolverOfAnotherTable(table: String, recordType: String, recordTable: String)
    /// ``SyncConfiguration/tables`` declares the table `table` twice (`other` is the second spelling,
    /// names compared as SQLite compares them): only the first declaration's policy would settle its
    /// conflicts. Declare each table once.
    case duplicateTable(String, other: String)
    /// A declared synced table does not exist in the database.
    case noSuchTable(String)
    /// The changeset at hub sequence `sequence` was made by a copy at schema version `needed`, newer
    /// than this copy's `have`: it is held, not applied, until this copy migrates.
    case newerSchema(sequence: Int64, needed: Int, have: Int)
    /// The changeset at hub sequence `sequence` (or this copy's own unpushed changeset, when
    /// `sequence` is nil) could not be applied: `reason` says why for the row `key` of `table`. It
    /// stays pending; nothing of it was applied. `key` is empty when the failure concerns no one row
    /// (a table the copy does not sync) or when SQLite does not say which row failed (a trigger's
    /// error outside any conflict, in a changeset of several rows); `table` is empty when it does not
    /// say which table either and the changeset changes several.
    case cannotApply(sequence: Int64?, table: String, key: String, reason: String)
    /// A changeset's bytes are not a valid SQLite changeset: `reason` says where.
    case malformedChangeset(reason: String)
    /// A push or pull message is not one this version of Bindery reads: `reason` says why.
    case malformedMessage(reason: String)
    /// A message was written for a protocol version this side does not speak.
    case unsupportedProtocolVersion(Int)
    /// A copy pushed changeset `sequence` twice with different contents: the hub kept the first.
    case conflictingRetry(copy: String, sequence: Int64)
    /// The hub database at `path` has hub tables of version `version`, written by a newer Bindery
    /// than this one, which reads version `supported`: open it with a newer Bindery.
    case newerHub(path: String, version: Int64, supported: Int64)
    /// The copy's sync state was changed or removed by something other than Bindery: `reason` says
    /// what was found.
    case corruptState(reason: String)
    /// The database given to a ``SyncCopy`` was not opened with ``Database/Options/sync``, so its
    /// writes are not captured.
    case notSynced

    /// A message in plain English naming what went wrong.
    public var description: String {
        switch self {
        case .sessionExtensionUnavailable(let option):
            return "sync needs SQLite's pre-update hook and session extension, and this SQLite was compiled "
                + "without \(option)"
        case .unsafeKey(let table, let reason):
            return "table \(table) cannot be synced: \(reason)"
        case .unsupportedColumn(let table, let column, let reason):
            return "table \(table) cannot be synced because of its column \(column): \(reason)"
        case .resolverOfAnotherTable(let table, let recordType, let recordTable):
            return "the resolver of the synced table \(table) merges records of \(recordType), which are stored in "
                + "\(recordTable): give \(table) a resolver of a record type whose table it is"
        case .duplicateTable(let table, let other):
            return
                "the synced table \(table) is declared twice (the second time as \(other)): declare each table once, "
                + "with the policy that settles its conflicts"
        case .noSuchTable(let table):
            return "the synced table \(table) does not exist"
        case .newerSchema(let sequence, let needed, let have):
            return "changeset \(sequence) was made at schema version \(needed), newer than this copy's \(have): "
                + "it is held until this copy migrates"
        case .cannotApply(let sequence, let table, let key, let reason):
            let which = sequence.map { "changeset \($0)" } ?? "an unpushed local changeset"
            switch (table.isEmpty, key.isEmpty) {
            case (true, _): return "\(which) cannot be applied: \(reason)"
            case (false, true): return "\(which) cannot be applied to table \(table): \(reason)"
            case (false, false): return "\(which) cannot be applied to row \(key) of \(table): \(reason)"
            }
        case .malformedChangeset(let reason):
            return "malformed changeset: \(reason)"
        case .malformedMessage(let reason):
            return "malformed sync message: \(reason)"
        case .unsupportedProtocolVersion(let version):
            return "sync protocol version \(version) is not supported"
        case .conflictingRetry(let copy, let sequence):
            return "copy \(copy) pushed its changeset \(sequence) again with different contents"
        case .newerHub(let path, let version, let supported):
            return "the hub database \(path) has hub tables of version \(version), newer than the \(supported) this "
                + "Bindery reads: open it with a newer Bindery"
        case .corruptState(let reason):
            return "the sync state of this database is damaged: \(reason)"
        case .notSynced:
            return "the database was not opened with Database.Options.sync: its writes are not captured"
        }
    }
}
