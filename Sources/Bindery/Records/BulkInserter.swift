/// Inserts records one after another with one statement re-bound for each, switching statements
/// only when the set of non-NULL columns changes. While the columns stay the same, the encoder binds
/// each number to the statement as it encodes it (see ``EncodedRow/bindDirectly(to:slots:startingAt:)``).
final class BulkInserter {
    private let connection: Connection
    private let state: RecordTypeState
    private let encoder: RowEncoderCore
    private let row: EncodedRow
    private let policy: ConflictPolicy
    // Only `insert` and `finish` touch these, one call at a time: no dynamic exclusivity check.
    @exclusivity(unchecked) private var statement: Statement?
    @exclusivity(unchecked) private var columns: [Bool] = []
    /// How many rows were inserted so far.
    @exclusivity(unchecked) private(set) var inserted = 0

    init(connection: Connection, state: RecordTypeState, policy: ConflictPolicy) {
        self.connection = connection
        self.state = state
        self.encoder = state.encoder
        self.row = state.encoder.row
        self.policy = policy
    }

    /// Encodes, binds and runs the record at `record`.
    func insert<T: Encodable>(_ record: UnsafePointer<T>) throws {
        try encoder.encodeRow(at: record)
        if let statement, row.isBound(to: statement) {
            if row.hasDeferredValues {
                try row.bindDeferred(to: statement)
            }
            try run(statement)
        } else {
            try run(try bindRow())
        }
    }

    /// Binds the row the slow way, to the statement for its non-NULL columns; from the next row on,
    /// values are bound as they are encoded.
    @inline(never)
    private func bindRow() throws -> Statement {
        let statement: Statement
        if let current = self.statement, row.nonNullSlotsEqual(columns) {
            statement = current
        } else {
            finish()
            columns = row.nonNullSlots
            statement = try connection.checkOutStatement(
                state.insert(columns: columns, policy: policy, returning: false))
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

    /// Gives the statement back to the cache.
    func finish() {
        row.stopBinding()
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }
}
