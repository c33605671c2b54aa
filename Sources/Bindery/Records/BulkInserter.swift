/// Inserts records one after another with one statement re-bound for each, switching statements
/// only when the set of non-NULL columns changes.
final class BulkInserter {
    private let connection: Connection
    private let state: RecordTypeState
    private let policy: ConflictPolicy
    private var statement: Statement?
    private var columns: [Bool] = []
    /// How many rows were inserted so far.
    private(set) var inserted = 0

    init(connection: Connection, state: RecordTypeState, policy: ConflictPolicy) {
        self.connection = connection
        self.state = state
        self.policy = policy
    }

    /// Encodes, binds and runs one record.
    func insert<T: Encodable>(_ record: T) throws {
        let encoder = state.encoder
        try encoder.encodeRow(record)
        let row = encoder.row
        if statement == nil || !row.nonNullSlotsEqual(columns) {
            finish()
            columns = row.nonNullSlots
            statement = try connection.checkOutStatement(
                state.insert(columns: columns, policy: policy, returning: false))
        }
        guard let statement else { return }
        try connection.bindSlots(statement, row: row, slots: columns, startingAt: 1)
        do {
            try statement.run()
        } catch let error as SQLiteError {
            statement.reset()
            throw error.with(arguments: row.values)
        }
        statement.reset()
        inserted += connection.changes
    }

    /// Gives the statement back to the cache.
    func finish() {
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }
}
