/// Savepoint groups and failing batches: the two ways a plain bulk insert spends less inside SQLite
/// than one savepoint and one `INSERT` a batch (callgrind, 100,000 rows of 10 INTEGER columns in
/// memory, a C loop of 100-row statements: 473.7M instructions with a savepoint a batch, 469.2M with
/// one savepoint for ten batches, 453.6M with that and `INSERT OR FAIL`).
///
/// - **Groups.** The batches of ``BulkInserter/insertAll(_:first:)`` (a plain insert or an upsert,
///   whose batches need no undo of their own when they run) share one savepoint by up to
///   ``BulkInserter/batchesPerSavepoint``: SQLite copies a page into its savepoint journal once per
///   savepoint, not once per batch. When a batch fails, the savepoint is rolled back, which undoes the
///   group's earlier batches too, and the records of all of them go one by one. A group is closed
///   (its savepoint released) before any record goes one by one and when the records run out, so that
///   a rollback never undoes a record inserted one by one.
/// - **Failing batches.** A multi-row `INSERT` that may abort halfway has SQLite keep a statement
///   journal, to undo the rows it inserted before the failure. The savepoint already does that, so a
///   plain insert under ``ConflictPolicy/abort`` runs its batches as `INSERT OR FAIL`, which keeps no
///   statement journal: a batch that fails leaves its first rows in place, and the savepoint's
///   rollback removes them with the rest. Where both succeed they store the same rows: an `OR`
///   clause only decides what a constraint that fails does, and `FAIL` then fails as `ABORT` does.
///   It can fail where a plain `INSERT` succeeds, where it overrules a conflict clause of the schema
///   or of a trigger's body (a column's `ON CONFLICT IGNORE`, an `INSERT OR IGNORE` in a trigger):
///   such a batch is rolled back and its records go one by one through the plain statement, with the
///   same rows in the end. So that such batches are not tried in vain, tables whose schema says
///   `CONFLICT` or that have a trigger (or are virtual, or of another schema) keep plain `INSERT`
///   batches. What the schema allows is read at the first batch of an insert, inside its transaction,
///   and kept for the record type until the schema changes.
extension BulkInserter {
    /// Batches that share one savepoint, from the record at ``start`` on.
    struct SavepointGroup {
        /// The index of the first record of the group's first batch.
        let start: Int
        /// How many batches ran in the group.
        var batches = 0
        /// How many records they held.
        var records = 0
        /// How many rows they inserted, added to ``BulkInserter/inserted`` when the group is closed.
        var inserted = 0
    }

    /// Whether the table lets batches be `INSERT OR FAIL`, and when that was read: the connection's
    /// ``Connection/schemaGeneration`` (which moves with the schema changes made on this connection,
    /// `temp`'s included) and `PRAGMA schema_version` (which moves with those made on any connection).
    struct FailingBatches {
        let allowed: Bool
        let schemaGeneration: UInt64
        let schemaVersion: Int64
    }

    /// The most batches one savepoint holds. Measured (callgrind, the C loop above): one savepoint
    /// for 10 batches costs 453.6M instructions, for 50 batches 452.3M; on a failure, the records of
    /// every batch of the group are encoded again, so the group is kept small.
    static let batchesPerSavepoint = 10

    /// The conflict policy of a multi-row insert: `FAIL` in place of ``ConflictPolicy/abort`` where the
    /// table allows it (see above), else the insert's own. What the schema allows is kept by the record
    /// type's state until the schema version or the connection's schema generation moves: an insert
    /// reads the schema version once, at its first batch.
    func batchPolicy() throws -> ConflictPolicy {
        guard policy == .abort, !returning, !upserting else { return policy }
        let generation = connection.schemaGeneration
        if let failing, failing.schemaGeneration == generation {
            return failing.allowed ? .fail : .abort
        }
        let version = try connection.withStatement("PRAGMA schema_version") { statement in
            try statement.step() ? try statement.value(at: 0) : .null
        }
        guard case .integer(let version) = version else { return policy }
        if let known = state.failingBatches, known.schemaGeneration == generation, known.schemaVersion == version {
            failing = known
            return known.allowed ? .fail : .abort
        }
        let allowed =
            try connection.insertProfile(ofTable: state.tableName).storesRowsAsGiven
            && !tableSchemaMentions(["CONFLICT"])
        let read = FailingBatches(allowed: allowed, schemaGeneration: generation, schemaVersion: version)
        failing = read
        state.failingBatches = read
        return allowed ? .fail : .abort
    }

    /// Runs the bound batch inside the open savepoint group, opening one when none is; returns nil
    /// when it ran, else the index of the first record the rollback of the group undid (the batch's
    /// own first, `index`, when nothing was undone). A batch made as `INSERT OR FAIL` before the
    /// connection changed the schema (an `encode(to:)` that ran DDL) is not run: its records go one
    /// by one and the next batch is made anew.
    func runGroupedBatch(_ statement: Statement, at index: Int) throws -> Int? {
        if let failing, failing.allowed, failing.schemaGeneration != connection.schemaGeneration {
            self.failing = nil
            releaseBatch()
            return index
        }
        if group == nil {
            try connection.runCached(Self.openSavepoint)
            group = SavepointGroup(start: index)
        }
        do {
            try statement.run()
        } catch let error as SQLiteError {
            statement.reset()
            let start = group?.start ?? index
            group = nil
            try undoBatch(error)
            return start
        }
        statement.reset()
        group?.batches += 1
        group?.records += batchRows
        group?.inserted += statement.changes
        if let group, group.batches >= Self.batchesPerSavepoint {
            try closeGroup()
        }
        return nil
    }

    /// Releases the open savepoint group, if any, and counts its rows as inserted.
    func closeGroup() throws {
        guard let group else { return }
        self.group = nil
        try connection.runCached(Self.releaseSavepoint)
        inserted += group.inserted
        connection.recordContext.batchedRecordCount &+= group.records
    }
}
