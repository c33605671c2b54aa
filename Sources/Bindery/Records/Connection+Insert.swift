/// Inserting one record: a plain INSERT when the table stores the row as given, `RETURNING *` when the
/// database fills more.
extension Connection {
    /// Inserts `record` and returns the row as stored: a nil integer id comes back assigned, and columns
    /// with defaults come back filled.
    ///
    /// Properties that are nil are left out of the INSERT, so that column defaults apply to them.
    /// With ``ConflictPolicy/ignore``, a row that was skipped returns `record` as given (and
    /// ``changes`` is 0).
    ///
    /// ```swift
    /// let saved = try conn.insert(Student(id: nil, name: "Ana", year: 2024))
    /// print(saved.id!)  // the new rowid
    /// ```
    ///
    /// When the table stores the row exactly as given, the INSERT asks for nothing back: no column the
    /// record leaves out has a DEFAULT or is generated, no trigger is defined on the table, and every
    /// value is of a kind its column keeps (no affinity conversion, such as a number into a TEXT
    /// column). The id then comes from `sqlite3_last_insert_rowid`, and the record is decoded from the
    /// values bound, or, for a ``StoredAsGiven`` type, returned as given after
    /// ``StoredAsGiven/didInsert(rowID:)``. Otherwise the INSERT ends in `RETURNING *` and the record is
    /// decoded from the row it returns, or, when a trigger changed rows during the INSERT (`RETURNING`
    /// reports the row from before AFTER triggers run), from the row read back by its primary key. The result is the same either way (for a ``StoredAsGiven`` type,
    /// as far as its promise holds); the first is about five times cheaper in SQLite.
    @discardableResult
    public func insert<T: Record>(_ record: T, onConflict policy: ConflictPolicy = .abort) throws -> T {
        // Inside a transaction scope, the check that SQLite did not end it is made when the statement
        // is lent: one `sqlite3_get_autocommit` call, not two.
        guard transactionDepth > 0 || isInTransaction else {
            // The row is written at the first step and read back after: in a transaction of its own,
            // a row that cannot be decoded back is not left behind.
            return try transaction(.immediate) { try $0.insert(record, onConflict: policy) }
        }
        // The context is held for the whole call: it holds the record type's state, which holds the
        // encoder.
        // Local functions marked to be inlined rather than closures, which the optimizer keeps as
        // functions of their own, one call each (callgrind: about 40 instructions each).
        @inline(__always)
        func inContext(_ context: RecordContext) throws -> T {
            @inline(__always)
            func withState(_ state: RecordTypeState) throws -> T {
                try insert(record, onConflict: policy, state: state, context: context)
            }
            return try context.withState(for: T.self, withState)
        }
        return try withRecordContext(inContext)
    }

    /// ``insert(_:onConflict:)`` of a record of the type `state` is for.
    @inline(__always)
    private func insert<T: Record>(
        _ record: T, onConflict policy: ConflictPolicy, state: RecordTypeState, context: RecordContext
    ) throws -> T {
        try state.withEncoder { encoder in
            let row = encoder.row
            // The plain path writes the stored record over `stored`: a `T?` result would cost a look-up
            // of `Optional<T>`'s metadata on every call (callgrind: about 330 instructions each).
            var stored = record
            let inexactCount = encoder.values.inexactCount
            let plainAllowed = !context.insertsReturningAlways
            // The memo of the encoded row's shape, once known to need `RETURNING *`.
            var shapeMemo: InsertMemo?
            var attempt: PlainAttempt?
            if plainAllowed, let last = state.lastInsertLent(for: row, policy: policy) {
                // The record is likely of the last shape inserted: it is bound to that shape's plain
                // INSERT as it is encoded.
                attempt = try last.with { last in
                    guard last.needsReturningAt != schemaGeneration else { return nil }
                    return try insertPlain(
                        &stored, state: state, encoder: encoder, memo: last, context: context, encoding: true,
                        inexactCount: inexactCount)
                }
            }
            switch attempt {
            case .inserted?: return stored
            case .needsReturning?: shapeMemo = state.lastInsert  // the memo just tried: only this call replaces it
            case .otherShape?: break
            case .unprepared?:
                // The last shape's INSERT cannot be prepared (a column the table lacks or generates, which
                // only a record of that shape wrote): forgotten, lest every later record fail on it.
                // Out of the lend above, which held the memo unretained.
                state.lastInsert = nil
                try encoder.encodeRow(stored)
            case nil: try encoder.encodeRow(stored)
            }
            let memo: InsertMemo
            if let shapeMemo {
                memo = shapeMemo
            } else {
                memo = state.insertPlan(for: row, policy: policy)
                if plainAllowed, memo.needsReturningAt != schemaGeneration,
                    try insertPlain(
                        &stored, state: state, encoder: encoder, memo: memo, context: context, encoding: false,
                        inexactCount: inexactCount) == .inserted
                {
                    return stored
                }
            }
            return try insertReturning(record, row: row, memo: memo)
        }
    }

    /// Inserts the encoded `row` of `record` with the `RETURNING *` INSERT of `memo`; returns the row as
    /// stored, or `record` when none was (``ConflictPolicy/ignore``). Out of line: it needs the metadata
    /// of `T?`, which its caller would otherwise look up on every call.
    @inline(never)
    private func insertReturning<T: Record>(_ record: T, row: EncodedRow, memo: InsertMemo) throws -> T {
        try withStatement(memo.returningSQL) { statement in
            try row.bind(to: statement, parameters: memo.parameters)
            let stored = try runReturning(statement, as: T.self, row: row, slots: memo.columns)
            return stored ?? record
        }
    }

    /// Inserts the encoded row of `record` with a plain INSERT when its plan allows and sets `record` to
    /// the record as stored (``PlainAttempt/inserted``), or runs nothing when the row needs `RETURNING *`
    /// (``PlainAttempt/needsReturning``).
    ///
    /// With `encoding`, `record` is encoded here, each value bound to the INSERT of `memo` as it is
    /// encoded (see ``EncodedRow/bindDirectly(to:slots:layout:)``); a row of another shape is encoded but
    /// not inserted (``PlainAttempt/otherShape``). It is encoded once only: when SQLite has the statement prepared again
    /// (`SQLITE_SCHEMA`), the encoded row is bound to the new one; an error thrown while encoding is
    /// thrown as it is, never retried.
    ///
    /// A ``StoredAsGiven`` record is returned as given, after ``StoredAsGiven/didInsert(rowID:)``, when
    /// the encoder's ``ValueEncoder/inexactCount`` is still `inexactCount` (no value was stored in a form
    /// that may decode to another value, a `Date` say) and the plan knows the stored value of every
    /// slot, the rowid being the table's `INTEGER PRIMARY KEY`. Otherwise it is decoded as stored.
    private func insertPlain<T: Record>(
        _ record: inout T, state: RecordTypeState, encoder: RowEncoderCore, memo: InsertMemo, context: RecordContext,
        encoding: Bool, inexactCount: Int
    ) throws -> PlainAttempt {
        let outcome: PlainInsert
        if encoding {
            outcome = try encodeAndInsertPlain(
                &record, state: state, encoder: encoder, memo: memo, context: context, inexactCount: inexactCount)
        } else {
            outcome = try bindAndInsertPlain(
                &record, state: state, encoder: encoder, memo: memo, context: context, inexactCount: inexactCount)
        }
        switch outcome {
        case .unprepared:
            return .unprepared
        case .otherShape:
            return .otherShape
        case .needsReturning:
            return .needsReturning
        case .unchanged:
            return .inserted
        case .stored(let rowid, let plan):
            try decodeStored(&record, state: state, encoder: encoder, rowid: rowid, plan: plan)
            return .inserted
        case .readBack(let rowid, let rowidName):
            try readBack(&record, state: state, rowid: rowid, rowidName: rowidName)
            return .inserted
        }
    }

    /// The plain INSERT of `memo` for `record`, encoded here and bound to the statement as it is
    /// encoded (see ``insertPlain(_:state:encoder:memo:context:encoding:inexactCount:)``).
    ///
    /// The statement is lent (``Connection/lendStatement(_:)``) rather than through
    /// ``Connection/withStatement(_:_:)``, whose closure captured two variables and took eight arguments
    /// on the stack (callgrind: 33 instructions a call fewer).
    @inline(__always)
    private func encodeAndInsertPlain<T: Record>(
        _ record: inout T, state: RecordTypeState, encoder: RowEncoderCore, memo: InsertMemo,
        context: RecordContext, inexactCount: Int
    ) throws -> PlainInsert {
        let row = encoder.row
        let columns = memo.columns
        let sql = memo.plainSQL
        // A local function rather than a closure. It captures no variable (one would be put on the
        // heap): an error from encoding comes out wrapped, to be told apart from one of the INSERT.
        @inline(__always)
        func run(_ statement: Statement, _ record: inout T) throws -> PlainInsert {
            row.bindDirectly(to: statement, slots: columns, layout: memo.layout)
            defer { row.stopBinding() }
            do {
                try encoder.encodeRow(record)
            } catch {
                throw EncodingFailure(error: error)
            }
            // A slot learned by this record (a key seen for the first time) makes it another shape.
            guard row.count == columns.count, row.isBound(to: statement) else { return .otherShape }
            return try runPlain(
                statement, &record, state: state, encoder: encoder, memo: memo, context: context,
                boundAsEncoded: true, inexactCount: inexactCount)
        }
        let lent: Lent<Statement>
        do {
            lent = try lendStatement(sql)
        } catch {
            // Nothing encoded, nothing run: the caller plans the record afresh, and a record of this
            // shape meets the error there.
            return .unprepared
        }
        let outcome: PlainInsert
        do {
            outcome = try lent.with(&record, run)
        } catch {
            lent.with { release($0) }
            if let failure = error as? EncodingFailure {
                // An error from encoding is thrown as it is, never retried.
                throw failure.error
            }
            if let error = error as? SQLiteError, error.code == .schema {
                // SQLite could not prepare the statement again after a schema change: once more with a
                // new one, the row bound as it was encoded.
                return try bindAndInsertPlain(
                    &record, state: state, encoder: encoder, memo: memo, context: context, inexactCount: inexactCount,
                    preparedAgain: true)
            }
            throw error
        }
        try lent.with { try releaseAfterRun($0, sql: sql) }
        return outcome
    }

    /// An error thrown while a record was encoded, on its way out of the function that the statement
    /// is lent to.
    private struct EncodingFailure: Error {
        let error: any Error
    }

    /// The plain INSERT of `memo` for the row `record` was encoded into, bound now; with
    /// `preparedAgain`, with a statement prepared anew (after `SQLITE_SCHEMA`). Out of line, so that
    /// ``runPlain(_:_:state:encoder:memo:context:boundAsEncoded:inexactCount:)`` is inlined on the hot
    /// path only (the INSERT bound as the record is encoded), and the closure handed to
    /// ``Connection/withStatement(_:_:)`` does not enlarge its caller's frame.
    @inline(never)
    private func bindAndInsertPlain<T: Record>(
        _ record: inout T, state: RecordTypeState, encoder: RowEncoderCore, memo: InsertMemo,
        context: RecordContext, inexactCount: Int, preparedAgain: Bool = false
    ) throws -> PlainInsert {
        func run(_ statement: Statement) throws -> PlainInsert {
            try runPlain(
                statement, &record, state: state, encoder: encoder, memo: memo, context: context,
                boundAsEncoded: false, inexactCount: inexactCount)
        }
        return try preparedAgain ? withStatementAgain(memo.plainSQL, run) : withStatement(memo.plainSQL, run)
    }

    /// Runs the plain INSERT `statement` of `memo` for the encoded row when its plan allows: binds the
    /// row unless it was `boundAsEncoded` (then only its TEXT and BLOB values), and says what it did,
    /// or, having run nothing, that the row needs `RETURNING *`. Sets a ``StoredAsGiven`` `record`'s
    /// rowid as ``insertPlain(_:state:encoder:memo:context:encoding:inexactCount:)`` says.
    @inline(__always)
    private func runPlain<T: Record>(
        _ statement: Statement, _ record: inout T, state: RecordTypeState, encoder: RowEncoderCore,
        memo: InsertMemo, context: RecordContext, boundAsEncoded: Bool, inexactCount: Int
    ) throws -> PlainInsert {
        let row = encoder.row
        let columns = memo.columns
        // The plan is lent by the statement, which keeps it: only this call could replace it (the
        // statement is in use), and does so after its last look at it. It is read one property at a
        // time: a closure lending it for the whole body is kept as a function of its own.
        let plan = try insertPlan(for: statement, state: state, row: row, memo: memo)
        guard plan.with({ $0.isPlain }) else {
            memo.needsReturningAt = schemaGeneration
            return .needsReturning
        }
        guard plan.with({ $0.keepsValues(of: row) }) else { return .needsReturning }
        if !boundAsEncoded {
            try row.bind(to: statement, parameters: memo.parameters)
        } else if row.hasDeferredValues {
            try row.bindDeferred(to: statement)
        }
        context.plainInsertCount &+= 1
        do {
            try statement.run()
        } catch let error as SQLiteError {
            let values = row.values
            throw error.with(arguments: values.indices.filter { $0 < columns.count && columns[$0] }.map { values[$0] })
        }
        guard statement.changes > 0 else { return .unchanged }
        let rowid = lastInsertRowID
        guard statement.reprepareCount == plan.with({ $0.reprepareCount }) else {
            // The schema changed under the statement, which SQLite re-prepared as it stepped (or
            // before: the plan is checked here only): the plan may no longer hold, and the row is
            // read back as stored.
            let rowidName = plan.with { $0.rowidName }
            statement.attachment = nil  // frees the plan
            return .readBack(rowid, rowidName)
        }
        if let storedAsGiven = state.storedAsGiven,
            plan.with({ $0.storesRowIDKnowingEverySlot && $0.slots.count == row.count }),
            encoder.values.inexactCount == inexactCount
        {
            ExactCast.Place.with(&record) { storedAsGiven.didInsert(into: $0, rowID: rowid) }
            return .unchanged
        }
        return .stored(rowid, plan.object)
    }

    /// What came of trying a plain INSERT.
    enum PlainAttempt {
        /// The row was inserted and the record is the row as stored.
        case inserted
        /// The record was encoded, but it is not of the shape the INSERT was for: nothing ran.
        case otherShape
        /// The row needs `RETURNING *` (a DEFAULT, a trigger, a value its column converts): nothing ran.
        case needsReturning
        /// The INSERT of the last shape could not be prepared: nothing was encoded, nothing ran.
        case unprepared
    }

    /// What a plain INSERT's statement did.
    private enum PlainInsert {
        /// Nothing ran: the record is of another shape.
        case otherShape
        /// Nothing ran: the row needs `RETURNING *`.
        case needsReturning
        /// Nothing was encoded and nothing ran: the INSERT could not be prepared.
        case unprepared
        /// The record is the result as it is: nothing was inserted (``ConflictPolicy/ignore``), or it
        /// was stored as given and has its rowid (``StoredAsGiven``).
        case unchanged
        /// The row with this rowid was stored as the plan says.
        case stored(Int64, InsertPlan)
        /// The row with this rowid (read by this name) must be read back from the table.
        case readBack(Int64, String)
    }

    /// The plan kept on `statement`, the plain INSERT of `memo` for `row`, when it was made for that
    /// row and that memo, or a new one made from the table's schema and kept there in its place; the
    /// statement holds it.
    @inline(__always)
    private func insertPlan(for statement: Statement, state: RecordTypeState, row: EncodedRow, memo: InsertMemo)
        throws -> Lent<InsertPlan>
    {
        // The plan's re-prepare count is compared after the INSERT ran (a count, it only grows): a plan
        // made before a re-prepare then has its row read back.
        // The plan is the row's own: another row (another record type's, or another encoder's) can
        // make the same INSERT text with its slots laid out otherwise.
        if let plan = statement.lentAttachment(as: InsertPlan.self),
            plan.with({ $0.schemaGeneration == schemaGeneration && $0.serves(row, memo: memo) })
        {
            return plan
        }
        return try newInsertPlan(for: statement, state: state, row: row, memo: memo)
    }

    /// ``insertPlan(for:state:row:memo:)`` when the statement holds no current plan.
    @inline(never)
    private func newInsertPlan(for statement: Statement, state: RecordTypeState, row: EncodedRow, memo: InsertMemo)
        throws -> Lent<InsertPlan>
    {
        let profile = try insertProfile(ofTable: state.tableName)
        let plan = InsertPlan(
            profile: profile, row: row, memo: memo, reprepareCount: statement.reprepareCount,
            schemaGeneration: schemaGeneration)
        statement.attachment = plan
        return Lent(plan)
    }

    /// Sets `record` to the row with `rowid` as `plan` says it was stored: decoded from the values
    /// bound, or read back when they cannot say. Out of line: the decoded record needs room of its
    /// type's size, which its caller would otherwise set aside on every call.
    @inline(never)
    private func decodeStored<T: Record>(
        _ record: inout T, state: RecordTypeState, encoder: RowEncoderCore, rowid: Int64, plan: InsertPlan
    ) throws {
        do {
            record = try encoder.insertedRowDecoder.decode(
                T.self, slots: plan.slots, rowid: rowid)
        } catch is InsertedRowDecoder.GaveUp {
            try readBack(&record, state: state, rowid: rowid, rowidName: plan.rowidName)
        }
    }

    /// Sets `record` to the row with `rowid`, read back from the table and decoded as `RETURNING *` would
    /// have been; leaves it as given when the row is gone.
    private func readBack<T: Record>(_ record: inout T, state: RecordTypeState, rowid: Int64, rowidName: String)
        throws
    {
        let sql = SQL(text: "\(state.selectAll) WHERE \(rowidName) = ?", values: [rowid])
        if let stored = try fetchOne(T.self, sql: sql) {
            record = stored
        }
    }
}
