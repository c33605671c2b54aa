/// Inserts records one after another with one statement re-bound for each, switching statements
/// only when the set of non-NULL columns changes. While the columns stay the same, the encoder binds
/// each number to the statement as it encodes it (see ``EncodedRow/bindDirectly(to:slots:startingAt:)``).
final class BulkInserter {
    private let connection: Connection
    private let state: RecordTypeState
    private let policy: ConflictPolicy
    // Only `insert` and `finish` touch these, one call at a time: no dynamic exclusivity check.
    @exclusivity(unchecked) private var statement: Statement?
    @exclusivity(unchecked) private var columns: [Bool] = []
    /// How many rows were inserted so far.
    @exclusivity(unchecked) private(set) var inserted = 0

    init(connection: Connection, state: RecordTypeState, policy: ConflictPolicy) {
        self.connection = connection
        self.state = state
        self.policy = policy
    }

    /// Encodes, binds and runs the record at `record`.
    func insert<T: Encodable>(_ record: UnsafePointer<T>) throws {
        let encoder = state.encoder
        try encoder.encodeRow(at: record)
        let row = encoder.row
        if let statement, row.isBound(to: statement) {
            if row.hasDeferredValues {
                try row.bindDeferred(to: statement)
            }
        } else {
            if statement == nil || !row.nonNullSlotsEqual(columns) {
                finish()
                columns = row.nonNullSlots
                statement = try connection.checkOutStatement(
                    state.insert(columns: columns, policy: policy, returning: false))
            }
            guard let statement else { return }
            try row.bind(to: statement, slots: columns, startingAt: 1)
            row.bindDirectly(to: statement, slots: columns, startingAt: 1)
        }
        guard let statement else { return }
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
        state.encoder.row.stopBinding()
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }
}
