/// Creating, updating and deleting records, each with SQL built once per record type and a cached
/// statement.
extension Connection {
    /// Inserts many records in one transaction (a savepoint inside an open transaction); returns how
    /// many rows were inserted. Nothing is returned per row.
    ///
    /// Runs of records with the same non-NULL columns go in batches of up to 100 through one multi-row
    /// `INSERT … VALUES (…), (…), …`, which SQLite runs with far less work per row than one INSERT a
    /// record; the others, and the last records when fewer than a batch are left, go one by one through
    /// one statement re-bound for each. The outcome is the same either way: rows in the order given,
    /// each conflict policy with its meaning for each record, and when a record's row fails, nothing
    /// stored and the error of that record, whose ``SQLiteError/recordIndex`` is its position in
    /// `records`.
    ///
    /// ```swift
    /// try conn.insert(contentsOf: students)
    /// ```
    @discardableResult
    public func insert<S: Sequence>(contentsOf records: S, onConflict policy: ConflictPolicy = .abort) throws -> Int
    where S.Element: Record {
        let state = recordContext.state(for: S.Element.self)
        return try transaction(.immediate) { conn in
            let inserter = BulkInserter(connection: conn, state: state, policy: policy)
            defer { inserter.finish() }
            // Walking an array through its buffer avoids the generic iterator's per-element overhead.
            // Each record is encoded where it lies, without a copy; another sequence's records are
            // gathered a batch at a time.
            let done = try records.withContiguousStorageIfAvailable { buffer in
                try inserter.insertAll(buffer, first: 0)
                return true
            }
            if done == nil {
                try Self.inChunks(records) { batch, first in try inserter.insertAll(batch, first: first) }
            }
            return inserter.inserted
        }
    }

    /// Calls `body` with the records of `records` gathered into arrays of ten batches each (chunks)
    /// (``BulkInserter/largestBatch``), with the position of each array's first record.
    static func inChunks<S: Sequence>(_ records: S, _ body: ([S.Element], Int) throws -> Void) rethrows {
        let size = 10 * BulkInserter.largestBatch
        var batch: [S.Element] = []
        batch.reserveCapacity(size)
        var first = 0
        for record in records {
            batch.append(record)
            if batch.count == size {
                try body(batch, first)
                first += batch.count
                batch.removeAll(keepingCapacity: true)
            }
        }
        try body(batch, first)
    }

    /// Inserts many records as ``insert(contentsOf:onConflict:)`` does (in batches through multi-row
    /// statements, or one by one, in one transaction) and returns them as stored, in order: each row
    /// comes back through `RETURNING *`, with its assigned id and its column defaults filled, as
    /// ``insert(_:onConflict:)`` returns one.
    ///
    /// The result has one record for each record given. With ``ConflictPolicy/replace``, the new row
    /// comes back. With ``ConflictPolicy/ignore``, a record whose row was skipped comes back as given,
    /// as ``insert(_:onConflict:)`` returns it, which nothing in the result tells from a row stored as
    /// given (``changes`` reports only the last statement's inserts, and an id the record holds comes
    /// back the same): to know which rows were skipped, call ``insertOrIgnoreAndFetch(contentsOf:)``,
    /// which returns nil for them; ``totalChanges`` read before and after counts the rows inserted.
    ///
    /// ```swift
    /// let saved = try conn.insertAndFetch(contentsOf: [Student(id: nil, name: "Ana", year: 2024)])
    /// print(saved[0].id!)  // the new rowid
    /// ```
    public func insertAndFetch<S: Sequence>(contentsOf records: S, onConflict policy: ConflictPolicy = .abort) throws
        -> [S.Element]
    where S.Element: Record {
        try insertReturningEach(records, policy: policy) { stored, record in stored ?? copy record }
    }

    /// Inserts `records` in one transaction with `RETURNING *` (in batches, or one by one, as
    /// ``insert(contentsOf:onConflict:)`` inserts), and returns, in order, what `result` makes of each
    /// row as stored (nil for a row the policy skipped) and the record given. An array's records are
    /// read where they lie, without a copy.
    func insertReturningEach<S: Sequence, Result>(
        _ records: S, policy: ConflictPolicy,
        result: (S.Element?, borrowing S.Element) -> Result
    ) throws -> [Result] where S.Element: Record {
        typealias T = S.Element
        let state = recordContext.state(for: T.self)
        return try transaction(.immediate) { conn in
            let inserter = BulkInserter(connection: conn, state: state, policy: policy, returning: true)
            defer { inserter.finish() }
            var stored = RecordBuffer<Result>(capacity: records.underestimatedCount)
            defer { stored.deallocate() }
            let done = try records.withContiguousStorageIfAvailable { buffer in
                try inserter.insertAllReturning(buffer, first: 0, into: &stored, result: result)
                return true
            }
            if done == nil {
                try Self.inChunks(records) { batch, first in
                    try inserter.insertAllReturning(batch, first: first, into: &stored, result: result)
                }
            }
            return stored.array()
        }
    }

    /// Updates the row with `record`'s primary key, writing every other column (NULL where the record
    /// holds nil). Throws ``RecordError/notFound(table:key:)`` when no row has that key.
    public func update<T: Record>(_ record: T) throws {
        // The context is lent for the whole call: it holds the record type's state, lent without
        // counting a reference. Local functions marked to be inlined rather than closures, as in
        // insert(_:onConflict:).
        @inline(__always)
        func inContext(_ context: RecordContext) throws {
            @inline(__always)
            func withState(_ state: RecordTypeState) throws {
                try state.withEncoder { encoder in
                    try encoder.encodeRow(record)
                    let row = encoder.row
                    let plan = try state.updatePlan(for: row)
                    try runUpdate(
                        state: state, row: row, keySlots: plan.keySlots, sql: plan.sql, parameters: plan.parameters)
                }
            }
            try context.withState(for: T.self, withState)
        }
        try withRecordContext(inContext)
    }

    /// Updates only the named columns of the row with `record`'s primary key. Throws
    /// ``RecordError/notFound(table:key:)`` when no row has that key, and
    /// ``RecordError/unknownColumns(table:columns:)`` for a name that is not one of the record's columns.
    ///
    /// ```swift
    /// student.year = 2025
    /// try conn.update(student, columns: ["year"])
    /// ```
    public func update<T: Record>(_ record: T, columns names: [String]) throws {
        let state = recordContext.state(for: T.self)
        try state.withEncoder { encoder in
            try encoder.encodeRow(record)
            let row = encoder.row
            let unknown = names.filter { name in !row.columns.contains { $0.equalsIdentifier(name) } }
            guard unknown.isEmpty else {
                throw RecordError.unknownColumns(table: state.tableName, columns: unknown)
            }
            let wanted = row.columns.map { column in names.contains { $0.equalsIdentifier(column) } }
            let slots = zip(row.presentSlots(excluding: state.primaryKey), wanted).map { $0 && $1 }
            let sql = slots.contains(true) ? state.update(row: row, columns: slots) : nil
            let keySlots = try state.keySlots(in: row)
            try runUpdate(
                state: state, row: row, keySlots: keySlots, sql: sql,
                parameters: SlotParameterMap(columns: slots, keySlots: keySlots))
        }
    }

    /// Runs `sql`, the UPDATE of `row` by its primary key, whose columns are the slots `keySlots` (or,
    /// when nil, looks the row up: there is nothing to set); throws ``RecordError/notFound(table:key:)``
    /// when no row has the key. `parameters` places every slot `sql` binds, the key columns last; with
    /// no column to set, they are the key's alone, as the look-up binds them.
    @inline(__always)
    func runUpdate(
        state: RecordTypeState, row: EncodedRow, keySlots: [Int], sql: String?, parameters: SlotParameterMap
    ) throws {
        guard let sql else {
            let found = try withStatement(state.existsByKey) { statement -> Bool in
                try row.bind(to: statement, parameters: parameters)
                return try statement.step() && statement.int64(at: 0) == 1
            }
            if !found {
                throw state.notFound(row, keySlots: keySlots)
            }
            return
        }
        let changed = try withStatement(sql) { statement in
            try row.bind(to: statement, parameters: parameters)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: row.values)
            }
            return statement.changes
        }
        if changed == 0 {
            throw state.notFound(row, keySlots: keySlots)
        }
    }

    /// Inserts `record`, or, when a row with its primary key exists, updates every other column of
    /// that row (`INSERT … ON CONFLICT(primary key) DO UPDATE`); returns the row as stored (read back
    /// by primary key when a trigger changed rows, as ``insert(_:onConflict:)`` does).
    @discardableResult
    public func upsert<T: Record>(_ record: T) throws -> T {
        guard isInTransaction else {
            return try transaction(.immediate) { try $0.upsert(record) }
        }
        let state = recordContext.state(for: T.self)
        // The row returned goes into the state's slot, so that `withStatement` runs with a non-generic
        // result (see `find(_:id:)`).
        let slot = state.slot
        defer { slot.discard(T.self) }
        let key = try state.withEncoder { encoder -> [SQLiteValue] in
            try encoder.encodeRow(record)
            let row = encoder.row
            let plan = state.upsertPlan(for: row)
            try withStatement(plan.sql) { statement in
                try row.bind(to: statement, slots: plan.nonNull, startingAt: 1)
                if let stored = try runReturning(statement, as: T.self, row: row, slots: plan.nonNull) {
                    slot.put(stored)
                }
            }
            return slot.isFull ? [] : try state.primaryKeyValues(in: row)
        }
        if let stored = slot.take(T.self) {
            return stored
        }
        // DO NOTHING (every column is in the key): the row exists as it is.
        return try fetchOne(T.self, sql: SQL(text: state.selectByKey, values: key)) ?? record
    }

    /// Deletes the row with `record`'s primary key; returns whether there was one.
    @discardableResult
    public func delete<T: Record>(_ record: T) throws -> Bool {
        let state = recordContext.state(for: T.self)
        let key = try state.withEncoder { encoder in
            try encoder.encodeRow(record)
            return state.values(in: encoder.row, slots: try state.keySlots(in: encoder.row))
        }
        return try runByKey(state.deleteByKey, key: key) > 0
    }

    /// Deletes the row whose single-column primary key is `id`; returns whether there was one.
    ///
    /// ```swift
    /// try conn.delete(Student.self, id: 7)
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    @discardableResult
    public func delete<T: Record>(_ type: T.Type, id: some Encodable & Sendable) throws -> Bool {
        let context = recordContext
        let state = context.state(for: T.self)
        let key = try singleKeyValue(T.self, context, state, id)
        return try withStatement(state.deleteByKey) { statement in
            try statement.bindFast(key, at: 1)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: [key])
            }
            return statement.changes > 0
        }
    }

    /// Deletes the row with the given composite primary key (every key column named once); returns
    /// whether there was one.
    ///
    /// ```swift
    /// try conn.delete(Enrollment.self, key: ["student_id": 1, "course_id": 7])
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    @discardableResult
    public func delete<T: Record>(_ type: T.Type, key: [String: any Encodable & Sendable]) throws -> Bool {
        let state = recordContext.state(for: T.self)
        let values = try keyValues(T.self, state, key)
        return try runByKey(state.deleteByKey, key: values) > 0
    }

    /// Deletes the rows matching `condition`; returns how many went.
    ///
    /// ```swift
    /// let removed = try conn.delete(Student.self, where: "year < \(2000)")
    /// ```
    @discardableResult
    public func delete<T: Record>(_ type: T.Type, where condition: SQL) throws -> Int {
        let state = recordContext.state(for: T.self)
        try withBoundStatement(state.whereCalls.delete(around: condition), values: condition) { statement in
            try statement.run()
        }
        return changes
    }

    /// Deletes every row of the type's table; returns how many went.
    @discardableResult
    public func deleteAll<T: Record>(_ type: T.Type) throws -> Int {
        let state = recordContext.state(for: T.self)
        try execute("DELETE FROM \(state.table)", arguments: [])
        return changes
    }

    // MARK: Helpers

    /// Steps a one-row INSERT … RETURNING * (or upsert) of a `T` and decodes the row it returns, if
    /// any: the row as stored, read back by primary key (or by the rowid it gave a row it inserted)
    /// when a trigger changed rows (see `Connection+TriggerReadBack.swift`).
    func runReturning<T: Record>(_ statement: Statement, as type: T.Type, row: EncodedRow, slots: [Bool])
        throws -> T?
    {
        let mark = readBackMark()
        let stored: T
        do {
            guard try statement.step() else { return nil }
            stored = try RowDecoder.attached(to: statement, options: recordContext.options, for: T.self)
                .decodeRow(T.self)
            while try statement.step() {}
        } catch let error as SQLiteError {
            throw error.with(arguments: row.values.indices.filter { slots[$0] }.map { row.values[$0] })
        }
        return try storedAfterStatement(stored, state: recordContext.state(for: T.self), since: mark)
    }

    /// Runs `sql`, a statement by primary key, with the key values `key`; returns how many rows it
    /// changed.
    private func runByKey(_ sql: String, key: [SQLiteValue]) throws -> Int {
        try withStatement(sql) { statement in
            for (offset, value) in key.enumerated() {
                try statement.bindFast(value, at: Int32(offset + 1))
            }
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: key)
            }
            return statement.changes
        }
    }

    /// The bound value of a single-column key, checking that the type has one
    /// (``RecordError/compositeKey(table:key:)``) and that the value's type can match the key column.
    ///
    /// A type whose values always match (the key property's own type, optional or not; any type when
    /// the record type's columns cannot be probed) is remembered, and its next values are not checked
    /// again; any other type is checked value by value.
    ///
    /// A remembered type is encoded inline, in the caller (it was remembered for a single-column key
    /// only); any other is checked out of line.
    @inline(__always)
    func singleKeyValue<T: Record, V: Encodable & Sendable>(
        _ type: T.Type, _ context: RecordContext, _ state: RecordTypeState, _ id: V
    ) throws -> SQLiteValue {
        if state.acceptedKeyType == ObjectIdentifier(V.self) {
            return try context.values.encode(id, codingPath: [])
        }
        return try checkedSingleKeyValue(T.self, context, state, id)
    }

    /// ``singleKeyValue(_:_:_:_:)`` for a type of key not remembered yet.
    @inline(never)
    private func checkedSingleKeyValue<T: Record, V: Encodable & Sendable>(
        _ type: T.Type, _ context: RecordContext, _ state: RecordTypeState, _ id: V
    ) throws -> SQLiteValue {
        guard state.primaryKey.count == 1 else {
            throw RecordError.compositeKey(table: state.tableName, key: state.primaryKey)
        }
        let column = state.keyColumns(of: T.self, options: context.options)?[0]
        let stored = try keyValue(id, column: column, record: T.self)
        let ownType = column.map {
            ObjectIdentifier(RecordKeyColumn.unwrapped(V.self)) == ObjectIdentifier($0.swiftType)
        }
        if ownType ?? true {
            state.acceptedKeyType = ObjectIdentifier(V.self)
        }
        return stored
    }

    /// The bound values of a composite key, in primary-key order, checking that every key column is
    /// named once and nothing else is (``RecordError/notKeyColumns(table:key:columns:)``,
    /// ``RecordError/incompleteKey(table:key:missing:)``), and that each value's type can match its column.
    func keyValues<T: Record>(_ type: T.Type, _ state: RecordTypeState, _ key: [String: any Encodable & Sendable])
        throws -> [SQLiteValue]
    {
        let unknown = key.keys.filter { name in !state.primaryKey.contains { $0.equalsIdentifier(name) } }
        guard unknown.isEmpty else {
            throw RecordError.notKeyColumns(table: state.tableName, key: state.primaryKey, columns: unknown.sorted())
        }
        let missing = state.primaryKey.filter { column in !key.keys.contains { $0.equalsIdentifier(column) } }
        guard missing.isEmpty else {
            throw RecordError.incompleteKey(table: state.tableName, key: state.primaryKey, missing: missing)
        }
        guard key.count == state.primaryKey.count else {
            // A column named twice, in two spellings: the ones not spelt as the key are refused.
            let respelt = key.keys.filter { !state.primaryKey.contains($0) }
            throw RecordError.notKeyColumns(table: state.tableName, key: state.primaryKey, columns: respelt.sorted())
        }
        let columns = state.keyColumns(of: T.self, options: recordContext.options)
        return try state.primaryKey.indices.map { index in
            let name = state.primaryKey[index]
            guard let value = key.first(where: { $0.key.equalsIdentifier(name) })?.value else {
                throw RecordError.missingPrimaryKey(table: state.tableName, column: name)
            }
            return try keyValue(value, column: columns?[index], record: T.self)
        }
    }

    /// The stored form of one key value, refused when its type cannot match `column`.
    func keyValue<V: Encodable, T: Record>(_ value: V, column: RecordKeyColumn?, record: T.Type) throws
        -> SQLiteValue
    {
        let stored = try recordContext.values.encode(value, codingPath: [])
        if let column, !column.accepts(stored, ofType: V.self) {
            throw RecordError.keyTypeMismatch(
                record: "\(T.self)", column: column.name, expected: column.expected,
                given: "\(RecordKeyColumn.unwrapped(V.self))")
        }
        return stored
    }
}

extension Connection {
    /// The values of `record`'s primary-key columns, in ``Record/primaryKey`` order, as `record`'s
    /// row would store them.
    func primaryKeyValues<T: Record>(of record: T) throws -> [SQLiteValue] {
        let state = recordContext.state(for: T.self)
        return try state.withEncoder { encoder in
            try encoder.encodeRow(record)
            return try state.primaryKeyValues(in: encoder.row)
        }
    }
}
