/// Inserts records one after another with one statement re-bound for each, switching statements
/// only when the set of non-NULL columns changes. While the columns stay the same, the encoder binds
/// each number to the statement as it encodes it (see ``EncodedRow/bindDirectly(to:slots:startingAt:)``).
///
/// Made `returning`, its statements end in `RETURNING *` and ``insertReturning(_:as:)`` decodes the row
/// each one returns, with one decoder per statement.
final class BulkInserter {
    private let connection: Connection
    private let state: RecordTypeState
    private let encoder: RowEncoderCore
    private let row: EncodedRow
    private let policy: ConflictPolicy
    private let returning: Bool
    private let options: CodingOptions
    private var statement: Statement?
    private var columns: [Bool] = []
    /// The decoder of the rows `statement` returns, and the statement it was made for.
    private var decoder: RowDecoder?
    private var decoderStatement: ObjectIdentifier?
    /// Whether ``finish()`` gave the encoder back.
    private var finished = false
    /// How many rows were inserted so far.
    private(set) var inserted = 0

    init(connection: Connection, state: RecordTypeState, policy: ConflictPolicy, returning: Bool = false) {
        self.connection = connection
        self.state = state
        // An encoder of its own when an operation on the same type is under way (see RecordTypeState).
        self.encoder = state.checkOutEncoder()
        self.row = encoder.row
        self.policy = policy
        self.returning = returning
        self.options = connection.recordContext.options
    }

    /// Encodes, binds and runs `record` (borrowed, not copied).
    func insert<T: Encodable>(_ record: borrowing T) throws {
        try run(try bound(record))
    }

    /// Encodes, binds and runs `record` with `RETURNING *`; returns the row as stored (read
    /// back when a trigger changed rows), or nil when none was (a row skipped by ``ConflictPolicy/ignore``).
    func insertReturning<T: Record>(_ record: borrowing T, as type: T.Type) throws -> T? {
        let statement = try bound(record)
        let before = connection.totalChanges
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
        // A trigger changed rows after RETURNING saw this one: it is read back (see
        // `Connection+TriggerReadBack.swift`).
        if connection.triggersChangedRows(since: before),
            let changed = try connection.storedAfterTriggers(stored, state: state)
        {
            return changed
        }
        return stored
    }

    /// `record`, encoded and bound to the statement for its columns.
    @inline(__always)
    private func bound<T: Encodable>(_ record: borrowing T) throws -> Statement {
        try encoder.encodeRow(record)
        if let statement, row.isBound(to: statement) {
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
    private func decoder<T>(for statement: Statement, _ type: T.Type) -> RowDecoder {
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
        if let current = self.statement, row.nonNullSlotsEqual(columns) {
            statement = current
        } else {
            releaseStatement()
            columns = row.nonNullSlots
            statement = try connection.checkOutStatement(
                state.insert(row: row, columns: columns, policy: policy, returning: returning))
            self.statement = statement
        }
        try row.bind(to: statement, slots: columns, startingAt: 1)
        row.bindDirectly(to: statement, slots: columns, startingAt: 1)
        return statement
    }

    /// Runs the bound statement and counts the rows it inserted.
    @inline(__always)
    private func run(_ statement: Statement) throws {
        do {
            try statement.run()
        } catch let error as SQLiteError {
            statement.reset()
            throw error.with(arguments: row.values)
        }
        statement.reset()
        inserted += statement.changes
    }

    /// Gives the statement back to the cache and the encoder to the record type: the inserts are over.
    func finish() {
        releaseStatement()
        if !finished {
            finished = true
            state.checkIn(encoder)
        }
    }

    /// Gives the statement back to the cache.
    private func releaseStatement() {
        row.stopBinding()
        decoder = nil
        decoderStatement = nil
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }
}
