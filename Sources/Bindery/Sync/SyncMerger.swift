/// Applies one changeset to a synced database with each table's conflict policy (``SyncPolicy``),
/// logging every decision in `bindery_sync_conflicts`.
///
/// The incoming changeset is always the *later* one: a changeset of the hub's log applied over the
/// changesets before it, or this copy's own unpushed changeset applied again over the hub's (the
/// rebase). Every copy applies the hub's log in the same order with the same policies, so every copy
/// decides every conflict the same way.
///
/// The rules besides the policies (documented in <doc:Sync#Conflicts>):
/// - an update of a row deleted earlier: the delete wins (a resolver may bring the row back);
/// - a delete of a row changed earlier: the delete wins (a resolver may keep the row);
/// - a change breaking a UNIQUE, CHECK or NOT NULL constraint: the change is dropped;
/// - rows left without their parent (a foreign key): deleted, as `ON DELETE CASCADE` would;
/// - a delete of a row already deleted: nothing to do, and not a conflict.
struct SyncMerger {
    /// Where the changeset comes from.
    enum Phase {
        /// The hub's log, at this sequence.
        case hub(Int64)
        /// This copy's own unpushed changes, applied again over the hub's.
        case rebase
    }

    let capture: SyncCapture
    let connection: Connection
    let phase: Phase

    private var hubSequence: Int64? {
        if case .hub(let sequence) = phase { return sequence }
        return nil
    }

    /// Applies `bytes`, whole or not at all: an error leaves the database as it was.
    func apply(_ bytes: [UInt8]) throws {
        var orphansPossible = false
        try connection.transaction { connection in
            try connection.applyChangeset(bytes) { conflict in
                if case .foreignKey = conflict.kind {
                    orphansPossible = true
                    return .omit
                }
                return try resolve(conflict)
            }
            if orphansPossible {
                try SyncOrphans(capture: capture, connection: connection, hubSequence: hubSequence).remove()
            }
        }
    }

    // MARK: Conflicts

    private func resolve(_ conflict: ChangesetConflict) throws -> ChangesetConflict.Action {
        guard let table = capture.configuration.table(named: conflict.table) else {
            throw SyncError.cannotApply(
                sequence: hubSequence, table: conflict.table, key: "", reason: "this copy does not sync the table")
        }
        let schema = try capture.schema(of: table.name, on: connection)
        let isInsert = conflict.operation == Int32(Changeset.Operation.insert.rawValue)
        let isDelete = conflict.operation == Int32(Changeset.Operation.delete.rawValue)
        let key = schema.key(of: isInsert ? conflict.new : conflict.old)
        if conflict.kind == .notFound, isDelete {
            return .omit
        }
        if conflict.kind == .constraint {
            try log(
                table, key, "constraint",
                "the later change is dropped: it breaks a UNIQUE, CHECK or NOT NULL constraint",
                dropped: full(isDelete ? conflict.old : conflict.new), schema)
            return .omit
        }
        let base = conflict.kind == .conflict ? nil : full(conflict.old)
        let current = conflict.kind == .notFound ? nil : full(conflict.current)
        let incoming = isDelete ? nil : full(conflict.new)
        let kind: String
        switch (conflict.kind, isDelete) {
        case (.notFound, _): kind = "update of a deleted row"
        case (.conflict, _): kind = "insert of an existing key"
        case (_, true): kind = "delete of a changed row"
        default: kind = "update of a changed row"
        }
        switch table.policy.kind {
        case .resolver(let resolver):
            return try decide(
                resolver, table: table, schema: schema, key: key, kind: kind, base: base, current: current,
                incoming: incoming, conflict: conflict)
        case .lastWriterWins, .fieldWise:
            if conflict.kind == .notFound {
                try log(table, key, kind, "the delete wins", dropped: incoming, schema)
                return .omit
            }
            if isDelete {
                try log(table, key, kind, "the delete wins", dropped: current, schema)
                return .replace
            }
            guard case .fieldWise = table.policy.kind, conflict.kind == .data, let base, let current, let incoming
            else {
                try log(
                    table, key, kind, "the later change wins the row (\(table.policy.name))", dropped: current, schema)
                return .replace
            }
            try checkExactText(conflict, table: table, schema: schema, key: key, merge: "a field-wise merge")
            // A column the later change did not change keeps the earlier one's value.
            let merged = incoming.indices.map { incoming[$0] != base[$0] ? incoming[$0] : current[$0] }
            if merged != current {
                guard
                    try write(
                        table, key, made: "the field-wise merge", dropped: incoming, schema,
                        { connection in
                            try schema.write(merged, on: connection)
                        })
                else { return .omit }
            }
            // What the merge dropped: the earlier values of the columns both changed.
            let overwritten = current.indices.map { merged[$0] != current[$0] && base[$0] != current[$0] }
            try log(
                table, key, kind, "merged column by column, the later change winning the columns both changed",
                dropped: overwritten.contains(true) ? current : nil, schema, only: overwritten)
            return .omit
        }
    }

    /// Settles a conflict with a resolver: `local` is the row as this copy has it, `remote` the other
    /// change's; which of `current` and `incoming` each is depends on the phase.
    private func decide(
        _ resolver: AnySyncResolver, table: SyncTable, schema: SyncTableSchema, key: [SQLiteValue], kind: String,
        base: [SQLiteValue]?, current: [SQLiteValue]?, incoming: [SQLiteValue]?, conflict: ChangesetConflict
    ) throws -> ChangesetConflict.Action {
        try checkExactText(conflict, table: table, schema: schema, key: key, merge: "a resolver")
        let rebasing = hubSequence == nil
        let versions = AnySyncResolver.Versions(
            table: schema.name, columns: schema.columns, primaryKey: schema.primaryKey, key: key, base: base,
            local: rebasing ? incoming : current, remote: rebasing ? current : incoming)
        let decision: AnySyncResolver.Decision
        do {
            decision = try resolver.decide(versions, on: connection)
        } catch SyncError.cannotApply(_, let table, let key, let reason) {
            throw SyncError.cannotApply(sequence: hubSequence, table: table, key: key, reason: reason)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.cannotApply(
                sequence: hubSequence, table: schema.name, key: SyncState.describe(key),
                reason: "the resolver threw \(error)")
        }
        /// Takes the incoming change.
        func takeIncoming() throws -> ChangesetConflict.Action {
            if conflict.kind == .notFound, let incoming {
                _ = try write(table, key, made: "the resolver's choice", dropped: incoming, schema) { connection in
                    try schema.write(incoming, on: connection)
                }
                return .omit
            }
            return .replace
        }
        switch decision {
        case .keepLocal:
            try log(table, key, kind, "resolver: keep local", dropped: rebasing ? current : incoming, schema)
            return rebasing ? try takeIncoming() : .omit
        case .keepRemote:
            try log(table, key, kind, "resolver: keep remote", dropped: rebasing ? incoming : current, schema)
            return rebasing ? .omit : try takeIncoming()
        case .delete:
            try log(table, key, kind, "resolver: delete", dropped: current, schema)
            if current != nil {
                try schema.delete(key: key, on: connection)
            }
            return .omit
        case .merged(let writeMerged):
            guard try write(table, key, made: "the resolver's merged record", dropped: incoming, schema, writeMerged)
            else { return .omit }
            try log(table, key, kind, "resolver: merged", dropped: nil, schema)
            return .omit
        }
    }

    /// Writes a row the merge made (`made`: a field-wise merge, a resolver's merged record, an update of
    /// a deleted row a resolver keeps); returns false when that row breaks a UNIQUE, CHECK or NOT NULL
    /// constraint (each change alone may keep them: `start` raised on one copy and `end` lowered on
    /// another). The later change is then dropped and logged, as it is when a change breaks a constraint
    /// by itself: the row keeps its earlier values on every copy, where the error stopped every later
    /// pull. (SQLite undoes the failed statement alone.) Any other failure throws
    /// ``SyncError/cannotApply(sequence:table:key:reason:)`` naming the row.
    private func write(
        _ table: SyncTable, _ key: [SQLiteValue], made: String, dropped: [SQLiteValue]?, _ schema: SyncTableSchema,
        _ body: (Connection) throws -> Void
    ) throws -> Bool {
        do {
            try body(connection)
            return true
        } catch let error as SQLiteError where error.code == .constraint {
            try log(
                table, key, "constraint",
                "the later change is dropped: the row \(made) makes of it breaks a UNIQUE, CHECK or NOT NULL constraint",
                dropped: dropped, schema)
            return false
        } catch let error as SQLiteError {
            // Any other failure (a trigger's error, say) stops the pull: named by its row, which the
            // changeset's apply, which threw it, cannot tell.
            throw SyncError.cannotApply(
                sequence: hubSequence, table: table.name, key: SyncState.describe(key),
                reason: "the row \(made) makes could not be written: \(error.message)")
        }
    }

    /// Throws ``SyncError/cannotApply(sequence:table:key:reason:)`` when a value of the conflict is TEXT
    /// that is not valid UTF-8: read into a `String`, it holds U+FFFD in place of the invalid bytes, so
    /// `merge` would compare other values than those stored, and write those back in their place.
    private func checkExactText(
        _ conflict: ChangesetConflict, table: SyncTable, schema: SyncTableSchema, key: [SQLiteValue], merge: String
    ) throws {
        guard let column = conflict.invalidTextColumn else { return }
        let name = column < schema.columns.count ? schema.columns[column] : "\(column + 1)"
        throw SyncError.cannotApply(
            sequence: hubSequence, table: table.name, key: SyncState.describe(key),
            reason: "column \(name) holds TEXT that is not valid UTF-8, which \(merge) cannot compare or write back "
                + "as stored: store such bytes as a BLOB, or sync the table with lastWriterWins")
    }

    /// A full row's values (a full-row changeset defines every column; an undefined one reads NULL).
    private func full(_ values: [SQLiteValue?]) -> [SQLiteValue]? {
        values.isEmpty ? nil : values.map { $0 ?? .null }
    }

    /// Logs a decision with the values it dropped (of the columns `only` marks, or all).
    private func log(
        _ table: SyncTable, _ key: [SQLiteValue], _ kind: String, _ decision: String, dropped: [SQLiteValue]?,
        _ schema: SyncTableSchema, only: [Bool]? = nil
    ) throws {
        try SyncState.logConflict(
            hubSequence: hubSequence, table: table.name, key: key, kind: kind, decision: decision,
            dropped: dropped.map { SyncState.describe($0, columns: schema.columns, only: only) }, on: connection)
    }
}
