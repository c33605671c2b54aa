/// Updates records one after another by primary key, in the caller's transaction: the UPDATE for the
/// slots a row has is kept checked out while the rows keep them, and re-bound for each. The records a
/// bulk update does not batch (see `BulkInserter+Updates.swift`) go through it, with the batches'
/// encoder.
final class BulkUpdater {
    private let connection: Connection
    private let state: RecordTypeState
    private let encoder: RowEncoderCore
    private let row: EncodedRow
    /// The UPDATE checked out, and the plan it was made for.
    private var statement: Statement?
    private var plan: RecordTypeState.UpdatePlan?

    /// An updater that encodes with `encoder`, checked out by its caller (who gives it back).
    init(connection: Connection, state: RecordTypeState, encoder: RowEncoderCore) {
        self.connection = connection
        self.state = state
        self.encoder = encoder
        self.row = encoder.row
    }

    /// Updates the row with `record`'s primary key, as ``Connection/update(_:)`` does; an SQLite error
    /// names the record's position in the sequence, `index`.
    func update<T: Encodable>(_ record: borrowing T, at index: Int) throws {
        do {
            try encoder.encodeRow(record)
            let plan = try state.updatePlan(for: row)
            guard let sql = plan.sql else {
                // No column to set: the row only has to be there.
                try connection.runUpdate(
                    state: state, row: row, keySlots: plan.keySlots, sql: nil, parameters: plan.parameters)
                return
            }
            let statement = try self.statement(for: plan, sql: sql)
            try row.bind(to: statement, parameters: plan.parameters)
            try statement.runAndReset(arguments: row.values)
            if statement.changes == 0 {
                throw state.notFound(row, keySlots: plan.keySlots)
            }
        } catch let error as SQLiteError {
            throw error.with(recordIndex: index)
        }
    }

    /// Updates `records[start..<end]` in order, the first of `records` being at position `first` in the
    /// sequence given.
    func update<C: RandomAccessCollection>(_ records: C, from start: Int, to end: Int, first: Int) throws
    where C.Element: Encodable, C.Index == Int {
        for index in start..<end {
            try update(records[index], at: first + index - records.startIndex)
        }
    }

    /// The statement for `plan`, whose SQL is `sql`: the one checked out when it was made for the same
    /// plan.
    private func statement(for plan: RecordTypeState.UpdatePlan, sql: String) throws -> Statement {
        if let statement, self.plan === plan {
            return statement
        }
        return try checkOut(sql, for: plan)
    }

    @inline(never)
    private func checkOut(_ sql: String, for plan: RecordTypeState.UpdatePlan) throws -> Statement {
        release()
        let statement = try connection.checkOutStatement(sql)
        self.statement = statement
        self.plan = plan
        return statement
    }

    /// Gives the statement back to the cache: the updates are over.
    func finish() {
        release()
    }

    private func release() {
        if let statement {
            connection.release(statement)
            self.statement = nil
            plan = nil
        }
    }
}
