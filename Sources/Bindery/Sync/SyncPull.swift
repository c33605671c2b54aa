/// One pull's work on the writer, in one transaction: undo this copy's pending changesets, apply
/// the hub's in order, then apply the pending ones again over them, recording their rebased form.
///
/// A copy's synced tables are always the hub's log (up to the last sequence applied) plus its own
/// pending changesets on top. Undoing the pending ones brings the tables back to the log's state,
/// which every copy shares, so that every copy applies the hub's changesets to the same rows and
/// decides every conflict the same way; the pending changesets, applied again after them, are
/// later than every hub changeset, as they will be when the hub orders them.
struct SyncPull {
    let capture: SyncCapture
    let connection: Connection

    /// What a pull did.
    struct Outcome: Sendable {
        var applied = 0
        var lastApplied: Int64 = 0
        /// Why it stopped before the last entry, if it did.
        var stop: SyncError?
    }

    func apply(_ entries: [SyncLogEntry]) throws -> Outcome {
        try capture.suspended(on: connection) {
            let state = try SyncState.read(on: connection)
            var outcome = Outcome(lastApplied: state.lastApplied)
            let entries = entries.filter { $0.sequence > state.lastApplied }.sorted { $0.sequence < $1.sequence }
            guard !entries.isEmpty else { return outcome }
            var pending = try SyncState.pending(on: connection)
            for changeset in pending.reversed() {
                try undo(changeset.changeset)
            }
            let schemaVersion = try capture.schemaVersion(on: connection)
            for entry in entries {
                if entry.schemaVersion > schemaVersion {
                    outcome.stop = .newerSchema(
                        sequence: entry.sequence, needed: entry.schemaVersion, have: schemaVersion)
                    break
                }
                do {
                    try check(entry)
                    try SyncMerger(capture: capture, connection: connection, phase: .hub(entry.sequence))
                        .apply(Array(entry.changeset))
                } catch let error as SyncError {
                    outcome.stop = error
                    break
                } catch {
                    // Outside any conflict (a trigger's error, a full disk), SQLite does not say which
                    // change failed: the error names the table and the row when the changeset holds one.
                    let subject = Self.subject(of: Array(entry.changeset))
                    outcome.stop = .cannotApply(
                        sequence: entry.sequence, table: subject.table, key: subject.key, reason: "\(error)")
                    break
                }
                if entry.copy == state.copy,
                    let index = pending.firstIndex(where: { $0.sequence == entry.copySequence })
                {
                    pending.remove(at: index)
                    try SyncState.remove(entry.copySequence, on: connection)
                }
                outcome.applied += 1
                outcome.lastApplied = entry.sequence
            }
            for changeset in pending {
                let rebased = try capture.recording(on: connection) {
                    try SyncMerger(capture: capture, connection: connection, phase: .rebase).apply(changeset.changeset)
                }
                try SyncState.replace(changeset.sequence, with: rebased, on: connection)
            }
            try SyncState.setLastApplied(outcome.lastApplied, on: connection)
            try SyncState.setLastError(outcome.stop?.description, on: connection)
            return outcome
        }
    }

    /// The table a changeset changes, when it changes one ("" otherwise), and the key of its row when it
    /// changes one row ("" otherwise), as the conflict log shows keys: what an error can name when
    /// SQLite does not say which change failed.
    static func subject(of bytes: [UInt8]) -> (table: String, key: String) {
        guard let changeset = try? Changeset(parsing: bytes), changeset.tables.count == 1 else { return ("", "") }
        let table = changeset.tables[0]
        guard table.changes.count == 1 else { return (table.name, "") }
        let change = table.changes[0]
        let row = change.operation == .insert ? change.new : change.old
        let key = zip(row, table.primaryKey).filter(\.1).compactMap(\.0)
        guard !key.isEmpty, key.count == table.primaryKey.filter({ $0 }).count else { return (table.name, "") }
        return (table.name, SyncState.describe(key))
    }

    /// Applies the inverse of a pending changeset. The tables hold exactly what it left (nothing
    /// else writes them uncaptured), so only a delete finding its row gone already (removed by a
    /// cascade of the same undo) is expected; anything else means the tables were changed behind
    /// sync's back.
    private func undo(_ bytes: [UInt8]) throws {
        let inverse = try Changeset.inverse(of: bytes)
        try connection.applyChangeset(inverse) { conflict in
            if conflict.kind == .notFound, conflict.operation == Int32(Changeset.Operation.delete.rawValue) {
                return .omit
            }
            if case .foreignKey = conflict.kind {
                return .omit
            }
            throw SyncError.corruptState(
                reason: "a row of \(conflict.table) differs from what this copy's pending changes left: it was "
                    + "changed without being recorded")
        }
    }

    /// Throws when `entry` changes a table this copy does not sync, or has more columns than the
    /// copy's table (made by a newer schema).
    private func check(_ entry: SyncLogEntry) throws {
        var reader = ChangesetReader(bytes: Array(entry.changeset))
        while let header = try reader.nextTable() {
            guard capture.configuration.table(named: header.name) != nil else {
                throw SyncError.cannotApply(
                    sequence: entry.sequence, table: header.name, key: "", reason: "this copy does not sync the table")
            }
            let schema = try capture.schema(of: header.name, on: connection)
            guard header.keyFlags.count <= schema.columns.count else {
                throw SyncError.newerSchema(
                    sequence: entry.sequence, needed: entry.schemaVersion,
                    have: try capture.schemaVersion(on: connection))
            }
            guard header.keyFlags == Array(schema.keyFlags.prefix(header.keyFlags.count)) else {
                // sqlite3changeset_apply would skip the table without a word.
                throw SyncError.cannotApply(
                    sequence: entry.sequence, table: header.name, key: "",
                    reason: "the changeset's primary key is not the table's here (other columns or another order)")
            }
            while try reader.skipChange(columnCount: header.keyFlags.count) {}
        }
    }
}
