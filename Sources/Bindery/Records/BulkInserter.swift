/// Inserts records one after another: runs of records of one shape in batches, through a multi-row
/// INSERT (see `BulkInserter+Batches.swift`), the others with one statement re-bound for each,
/// switching statements only when the set of non-NULL columns changes. While the columns stay the
/// same, the encoder binds each number to the statement as it encodes it (see
/// ``EncodedRow/bindDirectly(to:slots:startingAt:)``).
///
/// Made `returning`, its statements end in `RETURNING *` and ``insertReturning(_:as:)`` decodes the row
/// each one returns, with one decoder per statement. Made `upserting`, its statements are upserts
/// (``RecordTypeState/upsert(row:nonNull:present:rows:returning:)``, without `RETURNING`): a row's shape
/// is then also which slots it has (a nil property sets its column to NULL, a slot missing leaves it).
/// Made `updating`, its batches are upserts that stand in for UPDATEs by key (`BulkInserter+Updates.swift`).
final class BulkInserter {
    let connection: Connection
    let state: RecordTypeState
    let encoder: RowEncoderCore
    let row: EncodedRow
    let policy: ConflictPolicy
    let returning: Bool
    let upserting: Bool
    /// Whether the upserts stand in for UPDATEs by key (see `BulkInserter+Updates.swift`).
    let updating: Bool
    /// For ``updating``: what the table allows, read from its schema at the first batch.
    var updateTable: UpdateBatchTable?
    private let options: CodingOptions
    /// The one-row statement, the non-NULL columns it inserts and (for an upsert) the slots present.
    private var statement: Statement?
    private var columns: [Bool] = []
    private var present: [Bool] = []
    /// The multi-row statement, the non-NULL columns of each of its rows, (for an upsert) the slots
    /// present, and how many rows it has.
    var batch: Statement?
    var batchColumns: [Bool] = []
    var batchPresent: [Bool] = []
    var batchRows = 0
    /// For ``updating``: the slots of the multi-row statement's columns that set the rowid (see
    /// ``hasBatchableRowid()``); empty otherwise.
    var batchRowidSlots: [Int] = []
    /// The most parameters a statement may have on this connection (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    let parameterLimit: Int
    /// The decoder of the rows `statement` returns, and the statement it was made for.
    private var decoder: RowDecoder?
    private var decoderStatement: ObjectIdentifier?
    /// Whether ``finish()`` gave the encoder back.
    private var finished = false
    /// How many rows were inserted so far (those of an open savepoint group not yet: see ``group``).
    var inserted = 0
    /// The batches run since the savepoint they share was opened, for plain inserts and upserts (see
    /// `BulkInserter+Batches.swift`); nil when none is open.
    var group: SavepointGroup?
    /// Whether this insert's batches may be `INSERT OR FAIL`, read from the table's schema at the first
    /// batch (see ``batchPolicy()``); nil until then.
    var failing: FailingBatches?
    /// Whether a trigger may write the table (see `BulkInserter+TriggerWrites.swift`); nil until read.
    var triggerWrites: TriggerWrites?
    /// Whether records of one shape may follow a plan in batches (see ``ColumnPlan``): not for the
    /// upserts that stand in for UPDATEs, which read each record's key from its slots, nor once plans
    /// were missed too often (see ``missedPlan()``). ``planMisses`` counts the records that did not
    /// follow the plan the row had.
    var learnsPlans: Bool
    var planMisses = 0

    init(
        connection: Connection, state: RecordTypeState, policy: ConflictPolicy, returning: Bool = false,
        upserting: Bool = false, updating: Bool = false
    ) {
        self.connection = connection
        self.state = state
        // An encoder of its own when an operation on the same type is under way (see RecordTypeState).
        self.encoder = state.checkOutEncoder()
        self.row = encoder.row
        self.policy = policy
        self.returning = returning
        self.upserting = upserting || updating
        self.updating = updating
        self.learnsPlans = !updating
        self.options = connection.recordContext.options
        self.parameterLimit = connection.parameterLimit
    }

    /// Encodes, binds and runs `record` (borrowed, not copied).
    func insert<T: Encodable>(_ record: borrowing T) throws {
        try run(try bound(record))
    }

    /// Encodes, binds and runs `record` with `RETURNING *`; returns the row as stored (read
    /// back when a trigger changed rows), or nil when none was (a row skipped by ``ConflictPolicy/ignore``).
    func insertReturning<T: Record>(_ record: borrowing T, as type: T.Type) throws -> T? {
        let statement = try bound(record)
        let mark = connection.readBackMark()
        let stored: T
        do {
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            stored = try decoder(for: statement, T.self).decodeRow(T.self)
            while try statement.step() {}
            inserted += 1
        } catch let error as SQLiteError {
            throw error.with(arguments: row.values)
        }
        // Read back when a trigger changed rows after RETURNING saw this one (see
        // `Connection+TriggerReadBack.swift`).
        return try connection.storedAfterStatement(stored, state: state, since: mark)
    }

    /// `record`, encoded and bound to the statement for its columns.
    @inline(__always)
    private func bound<T: Encodable>(_ record: borrowing T) throws -> Statement {
        try encoder.encodeRow(record)
        if let statement, row.isBound(to: statement), hasPresentSlots(present) {
            if row.hasDeferredValues {
                try row.bindDeferred(to: statement)
            }
            return statement
        }
        return try bindRow()
    }

    /// The decoder of the rows `statement` returns: made after its first step, which re-prepares a
    /// statement whose schema changed, and kept while the statement stays the same.
    @inline(__always)
    func decoder<T>(for statement: Statement, _ type: T.Type) -> RowDecoder {
        if let decoder, decoderStatement == ObjectIdentifier(statement),
            decoder.reprepareCount == statement.reprepareCount, decoder.columnCount == statement.columnCount
        {
            return decoder
        }
        let attached = RowDecoder.attached(to: statement, options: options, for: T.self)
        decoder = attached
        decoderStatement = ObjectIdentifier(statement)
        return attached
    }

    /// Binds the row the slow way, to the statement for its non-NULL columns; from the next row on,
    /// values are bound as they are encoded.
    @inline(never)
    private func bindRow() throws -> Statement {
        let statement: Statement
        if let current = self.statement, row.nonNullSlotsEqual(columns), hasPresentSlots(present) {
            statement = current
        } else {
            releaseStatement()
            columns = row.nonNullSlots
            present = upserting ? row.present : []
            statement = try connection.checkOutStatement(sql(rows: 1, columns: columns, present: present))
            self.statement = statement
        }
        try row.bind(to: statement, slots: columns, startingAt: 1)
        row.bindDirectly(to: statement, slots: columns, startingAt: 1)
        return statement
    }

    /// The statement for rows of the shape of the row just encoded (its non-NULL slots `columns`; for an
    /// upsert, its slots `present`) with `rows` lists of parameters, an insert's under `policy` (the
    /// insert's own unless given).
    func sql(rows: Int, columns: [Bool], present: [Bool], policy: ConflictPolicy? = nil) -> String {
        guard upserting else {
            return state.insert(
                row: row, columns: columns, policy: policy ?? self.policy, returning: returning, rows: rows)
        }
        return state.upsert(row: row, nonNull: columns, present: present, rows: rows, returning: false)
    }

    /// Whether the row just encoded has the slots `present` (always true unless upserting).
    func hasPresentSlots(_ present: [Bool]) -> Bool {
        !upserting || row.presentSlotsEqual(present)
    }

    /// Runs the bound statement and counts the rows it inserted.
    @inline(__always)
    private func run(_ statement: Statement) throws {
        try statement.runAndReset(arguments: row.values)
        inserted += statement.changes
    }

    /// Gives the statements back to the cache and the encoder to the record type: the inserts are over.
    func finish() {
        releaseStatement()
        releaseBatch()
        if !finished {
            finished = true
            state.checkIn(encoder)
        }
    }

    /// Gives the one-row statement back to the cache.
    private func releaseStatement() {
        row.stopBinding()
        decoder = nil
        decoderStatement = nil
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }

    /// Gives the multi-row statement back to the cache.
    func releaseBatch() {
        row.stopBinding()
        decoder = nil
        decoderStatement = nil
        if let batch {
            connection.release(batch)
            self.batch = nil
        }
    }
}
