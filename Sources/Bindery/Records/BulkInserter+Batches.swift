/// Batches: a run of records of one shape (the same non-NULL columns) goes through one multi-row
/// INSERT (`VALUES (?, …), (?, …), …`), which moves each row through SQLite with far less work per
/// statement than one INSERT per row. Everything the caller sees stays as with one statement per
/// record:
///
/// - Records are encoded in order, each bound where it lies in the batch as it is encoded. A record of
///   another shape (or one the encoder could not bind as it went) ends the batch: the records before
///   it are encoded again and inserted one by one, and the next batch starts with it (see
///   ``BatchPacing`` for when). Fewer records left than a batch holds go one by one.
/// - Each batch runs inside a savepoint: a plain insert's and an upsert's share one savepoint by up
///   to ten (see `BulkInserter+Groups.swift`), the others have one each. When a batch fails, the
///   savepoint is rolled back (with ``ConflictPolicy/fail`` or a trigger's `RAISE(FAIL)` SQLite keeps
///   the rows before the failure) and the records it held are inserted again one by one: the error
///   thrown is that of the record that fails, with its position in the sequence
///   (``SQLiteError/recordIndex``), and the rows before it are as the one-by-one insert leaves them.
///   When SQLite rolled the whole transaction back (a `RAISE(ROLLBACK)`, a full disk), nothing can run
///   any more: the batch's error is thrown as it is. ``ConflictPolicy/rollback`` is never batched, so
///   that its error keeps naming its record.
/// - With `RETURNING *`, SQLite gives the rows of one statement in the order it inserted them, which
///   for a multi-row VALUES is the order of its lists (SQLite gathers them as it inserts and returns
///   them afterwards). When a batch returns fewer rows than it has records (``ConflictPolicy/ignore``
///   skipped one, or a trigger's `RAISE(IGNORE)`), which record each row belongs to is not known: the
///   savepoint is rolled back and the batch inserted one by one. So it is when its triggers changed
///   rows and a trigger may write the table, which could have changed an earlier record's row after
///   its own INSERT (see `BulkInserter+TriggerWrites.swift`), unless each row read back is as
///   `RETURNING` gave it; when none may, each row is as `RETURNING` gave it.
extension BulkInserter {
    /// The most records one batch holds; fewer when their parameters would pass the connection's limit.
    /// Measured (callgrind, 10 INTEGER columns, in memory): 50 rows a statement cost 0.78× one row a
    /// statement, 100 rows 0.77×; the savepoints around them are in `BulkInserter+Groups.swift`.
    static let largestBatch = 100

    /// Inserts `records` in order, the first of which is at position `first` in the sequence given.
    @inline(__always)
    func insertAll<C: RandomAccessCollection>(_ records: C, first: Int) throws
    where C.Element: Encodable, C.Index == Int {
        try inBatches(
            records, run: { statement, index in try runGroupedBatch(statement, at: index) },
            oneByOne: { start, end in try insertEach(records, from: start, to: end, first: first) })
    }

    /// Inserts `records` in order with `RETURNING *`, the first of which is at position `first` in the
    /// sequence given, and appends to `stored` what `result` makes of each row as stored (nil for a row
    /// skipped) and its record.
    @inline(__always)
    func insertAllReturning<C: RandomAccessCollection, Result>(
        _ records: C, first: Int, into stored: inout RecordBuffer<Result>,
        result: (C.Element?, borrowing C.Element) -> Result
    ) throws where C.Element: Record, C.Index == Int {
        var returned = RecordBuffer<C.Element>(capacity: Self.largestBatch)
        defer { returned.deallocate() }
        try inBatches(
            records,
            run: { statement, index in
                guard try runReturningBatch(statement, into: &returned) else { return index }
                var position = index
                returned.drain { record in
                    stored.append(result(record, records[position]))
                    position += 1
                }
                return nil
            },
            oneByOne: { start, end in
                try insertEachReturning(records, from: start, to: end, first: first, into: &stored, result: result)
            })
    }

    /// Walks `records` a batch at a time: each batch bound (``boundBatch(_:at:window:)``) is run by
    /// `run`, given its statement and the index of its first record, which returns nil when it ran
    /// whole, else the index of the first record its failure undid (its own first record, or that of
    /// the first batch of its savepoint group); those records up to the end of the batch, the records
    /// of a batch that ended early, and those left when fewer than a batch remain, go to `oneByOne` as
    /// a range of indices, after the open savepoint group is closed. ``ConflictPolicy/rollback`` never
    /// batches.
    @inline(__always)
    func inBatches<C: RandomAccessCollection>(
        _ records: C, run: (Statement, Int) throws -> Int?, oneByOne: (Int, Int) throws -> Void
    ) throws where C.Element: Encodable, C.Index == Int {
        var index = records.startIndex
        var pacing = BatchPacing()
        while policy != .rollback && records.endIndex - index >= Self.largestBatch {
            var window = Self.largestBatch
            if pacing.tries() {
                if let statement = try boundBatch(records, at: index, window: &window) {
                    guard let undone = try run(statement, index) else {
                        pacing.ran()
                        index += window
                        continue
                    }
                    pacing.failed()
                    window += index - undone
                    index = undone
                } else {
                    pacing.broke(after: window)
                }
            }
            // A record of another shape, or a batch that failed: its records one by one.
            try closeGroup()
            let end = min(index + window, records.endIndex)
            try oneByOne(index, end)
            index = end
        }
        try closeGroup()
        try oneByOne(index, records.endIndex)
    }

    // MARK: One by one

    /// Inserts `records[start..<end]` one by one; an error names its record.
    @inline(__always)
    private func insertEach<C: RandomAccessCollection>(_ records: C, from start: Int, to end: Int, first: Int) throws
    where C.Element: Encodable, C.Index == Int {
        for index in start..<end {
            do {
                try insert(records[index])
            } catch let error as SQLiteError {
                throw error.with(recordIndex: first + index - records.startIndex)
            }
        }
    }

    /// Inserts `records[start..<end]` one by one with `RETURNING *`; an error names its record.
    @inline(__always)
    private func insertEachReturning<C: RandomAccessCollection, Result>(
        _ records: C, from start: Int, to end: Int, first: Int, into stored: inout RecordBuffer<Result>,
        result: (C.Element?, borrowing C.Element) -> Result
    ) throws where C.Element: Record, C.Index == Int {
        for index in start..<end {
            do {
                stored.append(result(try insertReturning(records[index], as: C.Element.self), records[index]))
            } catch let error as SQLiteError {
                throw error.with(recordIndex: first + index - records.startIndex)
            }
        }
    }

    // MARK: Batches

    /// Encodes the records of one batch from `records[index]` on into the multi-row statement for the
    /// first one's shape, each bound where it lies; returns the statement, or nil when a record does
    /// not have that shape, the shape cannot be batched (no column, too many) or fewer records are
    /// left than a batch holds. `window` is set to the number of records to insert one by one when nil
    /// is returned (those before the first of another shape; 1 when the first record's shape is not
    /// batched), and to the number of records the batch holds otherwise.
    @inline(__always)
    func boundBatch<C: RandomAccessCollection>(_ records: C, at index: Int, window: inout Int) throws
        -> Statement?
    where C.Element: Encodable, C.Index == Int {
        row.aim(atRowOffset: 0)
        let statement: Statement
        if let batch, row.hasPlan(for: batch), follow(records, from: index, to: index + 1, offset: 0, perRow: 0) {
            statement = batch
        } else {
            try encoder.encodeRow(records[index])
            if let batch, row.isBound(to: batch), hasPresentSlots(batchPresent) {
                if row.hasDeferredValues {
                    try row.bindDeferred(to: batch)
                }
                statement = batch
            } else if let made = try batchForRow() {
                statement = made
            } else {
                window = 1
                return nil
            }
        }
        guard hasBatchableRowid() else {
            window = 1
            return nil
        }
        let rows = batchRows
        window = rows
        guard records.endIndex - index >= rows else { return nil }
        let perRow = Int32(row.parametersPerRow)
        var offset = perRow
        var position = index + 1
        let end = index + rows
        // Read once a batch: records that may follow plans learn one where the row has none.
        let learns = learnsPlans && encoder.followsPlans
        while position < end {
            if row.hasPlan(for: statement) {
                let followed = encodeFollowingPlan(records, from: position, to: end, offset: offset, perRow: perRow)
                position += followed
                offset &+= perRow &* Int32(truncatingIfNeeded: followed)
                guard position < end else { break }
                missedPlan()
            }
            row.aim(atRowOffset: offset)
            if learns {
                guard try encodeLearningPlan(records[position], statement) else {
                    window = position - index
                    return nil
                }
            } else {
                try encoder.encodeRow(records[position])
                guard try boundInBatch(statement) else {
                    window = position - index
                    return nil
                }
            }
            offset &+= perRow
            position += 1
        }
        return statement
    }

    /// Encodes `record`, of a type that may follow plans (see ``ColumnPlan``), into its row of the
    /// batch `statement` (``EncodedRow/aim(atRowOffset:)``), as any other record, learning a plan from
    /// it when it may; returns whether it was bound there whole, its TEXT and BLOB values too.
    private func encodeLearningPlan<T: Encodable>(_ record: borrowing T, _ statement: Statement) throws -> Bool {
        if learnsPlans, row.learnsPlan, encoder.followsPlans {
            let learned = try encoder.encodeRowLearningPlan(record)
            guard try boundInBatch(statement) else { return false }
            if learned {
                row.commitPlan()
            }
            return true
        }
        try encoder.encodeRow(record)
        return try boundInBatch(statement)
    }

    /// Whether the record just encoded was bound whole to its row of the batch `statement`, as it was
    /// encoded; its TEXT and BLOB values are bound now.
    private func boundInBatch(_ statement: Statement) throws -> Bool {
        guard row.isBound(to: statement), hasPresentSlots(batchPresent), hasBatchableRowid() else { return false }
        if row.hasDeferredValues {
            try row.bindDeferred(to: statement)
        }
        return true
    }

    /// Encodes `records[start..<end]` following the row's plan into consecutive rows of its target,
    /// the first at parameter offset `offset` (``RowEncoderCore/encodeFollowingPlan(_:from:to:offset:perRow:)``);
    /// returns how many did, in order. A collection without contiguous storage follows none.
    private func encodeFollowingPlan<C: RandomAccessCollection>(
        _ records: C, from start: Int, to end: Int, offset: Int32, perRow: Int32
    ) -> Int where C.Element: Encodable, C.Index == Int {
        let base = records.startIndex
        return records.withContiguousStorageIfAvailable { buffer in
            encoder.encodeFollowingPlan(buffer, from: start - base, to: end - base, offset: offset, perRow: perRow)
        } ?? 0
    }

    /// Whether `records[start..<end]` all followed the row's plan (see
    /// ``encodeFollowingPlan(_:from:to:offset:perRow:)``); a miss is counted when not.
    private func follow<C: RandomAccessCollection>(
        _ records: C, from start: Int, to end: Int, offset: Int32, perRow: Int32
    ) -> Bool where C.Element: Encodable, C.Index == Int {
        guard encodeFollowingPlan(records, from: start, to: end, offset: offset, perRow: perRow) == end - start else {
            missedPlan()
            return false
        }
        return true
    }

    /// Counts a record that did not follow the row's plan: when misses come more often than one in 64
    /// records (past the first 16), the insert stops learning plans, so that records whose keys change
    /// from one to the next are not encoded twice each.
    private func missedPlan() {
        planMisses += 1
        if planMisses > 16 && planMisses * 64 > inserted + batchRows {
            learnsPlans = false
        }
    }

    /// The multi-row statement for the shape of the row just encoded, with the row bound as its first;
    /// from the next row on, values are bound as they are encoded. Nil when rows of this shape are not
    /// batched: no column to insert (`DEFAULT VALUES`), or too many for two rows a statement.
    @inline(never)
    func batchForRow() throws -> Statement? {
        let statement: Statement
        if let current = batch, row.nonNullSlotsEqual(batchColumns), hasPresentSlots(batchPresent) {
            statement = current
        } else {
            let columns = row.nonNullSlots
            let parameters = columns.reduce(0) { $1 ? $0 + 1 : $0 }
            guard parameters > 0 else { return nil }
            let rows = min(Self.largestBatch, parameterLimit / parameters)
            guard rows >= 2, try !updating || mayBatchUpdate() else { return nil }
            releaseBatch()
            let present = upserting ? row.present : []
            do {
                statement = try connection.checkOutStatement(
                    sql(rows: rows, columns: columns, present: present, policy: try batchPolicy()))
            } catch is SQLiteError where updating {
                // The upsert does not fit the table (its key is no PRIMARY KEY or UNIQUE constraint, say):
                // the records go through the UPDATE, which reports what is wrong.
                refuseUpdateBatches()
                return nil
            }
            batch = statement
            batchColumns = columns
            batchPresent = present
            batchRows = rows
            batchRowidSlots = updating ? rowidSlots(among: columns) : []
        }
        try row.bind(to: statement, slots: batchColumns, startingAt: 1)
        row.bindDirectly(to: statement, slots: batchColumns, startingAt: 1)
        return statement
    }

    /// Runs the bound batch (without `RETURNING`) inside its savepoint, and keeps it when `keeps`, asked
    /// once it ran, says so; returns whether it was kept. When it failed or was not kept, the savepoint
    /// is rolled back and false returned.
    func runInSavepoint(_ statement: Statement, keeps: () -> Bool) throws -> Bool {
        try connection.runCached(Self.openSavepoint)
        do {
            try statement.run()
        } catch let error as SQLiteError {
            statement.reset()
            try undoBatch(error)
            return false
        }
        statement.reset()
        guard keeps() else {
            try undoBatch(nil)
            return false
        }
        try connection.runCached(Self.releaseSavepoint)
        connection.recordContext.batchedRecordCount &+= batchRows
        return true
    }

    /// Runs the bound batch with `RETURNING *` inside its savepoint and leaves in `returned` each row
    /// as stored, in the order of the batch's records; returns whether it did. When the batch failed,
    /// returned fewer rows than it has records, or had triggers change rows when one may write the
    /// table, the savepoint is rolled back, `returned` left empty and false returned: the records are
    /// to be inserted one by one.
    private func runReturningBatch<T: Record>(_ statement: Statement, into returned: inout RecordBuffer<T>)
        throws -> Bool
    {
        let rows = batchRows
        try connection.runCached(Self.openSavepoint)
        let before = connection.totalChanges
        do {
            defer { statement.reset() }
            // More rows than records cannot come from one INSERT; were one to come, the batch would not
            // count as returned in order.
            while try statement.step(), returned.count <= rows {
                try returned.append { try decoder(for: statement, T.self).decodeRow(T.self) }
            }
        } catch let error as SQLiteError {
            returned.removeAll()
            try undoBatch(error)
            return false
        } catch {
            returned.removeAll()
            throw error
        }
        guard returned.count == rows else {
            returned.removeAll()
            try undoBatch(nil)
            return false
        }
        // A trigger changed rows. Each record is to come back as its own INSERT and that INSERT's
        // triggers left its row, as `insert` returns it (see `Connection+TriggerReadBack.swift`), which a
        // read back once the whole batch ran cannot always tell: a later record's trigger may have
        // changed the row since, or a later record of the same key replaced it. When no trigger may
        // write the table (see `BulkInserter+TriggerWrites.swift`), each row is as `RETURNING` gave it.
        // Otherwise the rows are read back by key and kept when each is as `RETURNING` gave it (a search
        // table's triggers read the table and write their own); when one differs or is not found, the
        // batch is undone and its records inserted one by one, each read back after its own INSERT.
        // (Missed: a row its own trigger changed that a later record's trigger changed back, which
        // nothing after the batch can tell.)
        if connection.totalChanges &- before > rows {
            let asReturned: Bool
            do {
                asReturned = try !triggersMayWriteTable() || rowsAreAsReturned(returned)
            } catch {
                returned.removeAll()
                try undoBatch(nil)
                throw error
            }
            guard asReturned else {
                returned.removeAll()
                try undoBatch(nil)
                return false
            }
        }
        inserted += rows
        try connection.runCached(Self.releaseSavepoint)
        connection.recordContext.batchedRecordCount &+= rows
        return true
    }

    /// Whether each row of `returned` (as `RETURNING` gave them) is still as stored
    /// (``Connection/isStoredAsReturned(_:state:)``).
    private func rowsAreAsReturned<T: Record>(_ returned: RecordBuffer<T>) throws -> Bool {
        var alike = true
        try returned.forEach { record in
            if alike {
                alike = try connection.isStoredAsReturned(record, state: state)
            }
        }
        return alike
    }

    /// Rolls the batch's savepoint back after `error` (nil: the batch returned fewer rows than it has
    /// records), and releases it. When SQLite rolled the whole transaction back, the error is thrown:
    /// nothing more can run.
    func undoBatch(_ error: SQLiteError?) throws {
        guard connection.isInTransaction else {
            throw error ?? Connection.rolledBackBySQLite
        }
        connection.status.possibleUndos &+= 1
        try connection.runCached(Self.rollBackSavepoint)
        try connection.runCached(Self.releaseSavepoint)
    }

    static let openSavepoint = "SAVEPOINT bindery_batch"
    static let releaseSavepoint = "RELEASE SAVEPOINT bindery_batch"
    static let rollBackSavepoint = "ROLLBACK TRANSACTION TO SAVEPOINT bindery_batch"
}

/// How often a bulk insert tries a batch. A record encoded into a batch that ends early is encoded
/// again to go one by one: pacing keeps a sequence whose shapes change often from encoding most of
/// its records twice. After a batch that ended within its first quarter (a short run of one shape),
/// or that failed or skipped rows, the records of one batch go one by one before the next try, then
/// of 2, 4, up to 32 batches while tries keep ending so. A batch that ended later found the end of a
/// long run: the next try comes at once.
struct BatchPacing {
    private var waiting = 0
    private var nextWait = 1

    /// Whether to try a batch now (false while waiting after a batch that ended early).
    mutating func tries() -> Bool {
        guard waiting == 0 else {
            waiting -= 1
            return false
        }
        return true
    }

    /// A batch tried ended after `window` records, at a record of another shape.
    mutating func broke(after window: Int) {
        if window > BulkInserter.largestBatch / 4 {
            nextWait = 1
        } else {
            failed()
        }
    }

    /// A batch failed or skipped rows, or ended within its first quarter: wait before the next try.
    mutating func failed() {
        waiting = nextWait
        nextWait = min(nextWait * 2, 32)
    }

    /// A batch ran whole: the next one that ends early waits the least.
    mutating func ran() {
        nextWait = 1
    }
}
