/// Reading records: by key, by condition, counted, or lazily.
extension Connection {
    /// The record whose single-column primary key is `id`, or nil.
    ///
    /// ```swift
    /// let student = try conn.find(Student.self, id: 1)
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    public func find<T: Record>(_ type: T.Type, id: some Encodable & Sendable) throws -> T? {
        let context = recordContext
        let state = context.state(for: T.self)
        let key = try singleKeyValue(T.self, context, state, id)
        // The record is decoded into the state's slot, so that `withStatement` runs with a non-generic
        // result: a `T?` result costs a look-up of `Optional<T>`'s metadata on every call (callgrind:
        // about 330 instructions), a slot allocated for each call some 230.
        let slot = state.slot
        defer { slot.discard(T.self) }
        try withStatement(state.selectByKey) { statement in
            try statement.bindFast(key, at: 1)
            do {
                guard try statement.step() else { return }
                let decoder = RowDecoder.attached(to: statement, options: context.options, for: T.self)
                slot.put(try decoder.decodeRow(T.self))
            } catch let error as SQLiteError {
                throw error.with(arguments: [key])
            }
        }
        return slot.take(T.self)
    }

    /// The record with the given composite primary key, or nil.
    ///
    /// ```swift
    /// let enrollment = try conn.find(Enrollment.self, key: ["student_id": 1, "course_id": 7])
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    public func find<T: Record>(_ type: T.Type, key: [String: any Encodable & Sendable]) throws -> T? {
        let state = recordContext.state(for: T.self)
        let values = try keyValues(T.self, state, key)
        return try fetchOne(T.self, sql: SQL(text: state.selectByKey, values: values))
    }

    /// The records matching `condition` (all when nil), sorted by `orderBy`, one page of them when
    /// `limit` (and `offset`) are given.
    ///
    /// ```swift
    /// let page = try conn.fetchAll(Student.self, where: "year >= \(2020)", orderBy: "name", limit: 20, offset: 40)
    /// ```
    public func fetchAll<T: Record>(
        _ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil, limit: Int? = nil, offset: Int? = nil
    ) throws -> [T] {
        try fetchAll(T.self, sql: selectSQL(T.self, condition, order, limit: limit, offset: offset))
    }

    /// The first record matching `condition` in the order `orderBy`, or nil.
    ///
    /// ```swift
    /// let ana = try conn.fetchOne(Student.self, where: "name = \("Ana")")
    /// ```
    public func fetchOne<T: Record>(_ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil) throws
        -> T?
    {
        guard let condition, order == nil else {
            return try fetchOne(T.self, sql: selectSQL(T.self, condition, order, limit: 1, offset: nil))
        }
        return try fetchOne(T.self, where: condition, asRequest: false)
    }

    /// The first record matching `condition`, without an order: for `fetchOne(_:where:)`, and for a
    /// request's `fetchOne` when the request is one condition and nothing more (`asRequest`, whose
    /// statement selects `"table".*`, as the request's own SQL does).
    @inline(__always)
    func fetchOne<T: Record>(_ type: T.Type, where condition: SQL, asRequest: Bool) throws -> T? {
        // The context and the record type's state lent, not retained (see ``Lent``), through local
        // functions marked to be inlined rather than closures, as in insert(_:onConflict:).
        @inline(__always)
        func inContext(_ context: RecordContext) throws -> T? {
            @inline(__always)
            func withState(_ state: RecordTypeState) throws -> T? {
                let calls = state.whereCalls
                let text = asRequest ? calls.requestOne(around: condition) : calls.selectOne(around: condition)
                if condition.hasSpecialValues {
                    // Converted before the statement is prepared, as ``withBoundStatement(_:values:_:)`` does.
                    let arguments = try condition.arguments(encoder: context.values)
                    return try fetchFirst(
                        T.self, context, state, text: text,
                        binding: { statement, _ in try statement.bind(arguments: arguments) },
                        arguments: { _ in arguments })
                }
                return try fetchFirst(
                    T.self, context, state, text: text,
                    binding: { statement, encoder in try condition.bind(to: statement, encoder: encoder) },
                    arguments: { encoder in try condition.arguments(encoder: encoder) })
            }
            return try context.withState(for: T.self, withState)
        }
        return try withRecordContext(inContext)
    }

    /// The first row of the cached statement for `text`, its parameters bound by `bind`, decoded as
    /// `T`, or nil; an SQLite error shows the values that `arguments` gives (converted again, for the
    /// error only), as in ``withBoundStatement(_:binding:arguments:_:)``.
    ///
    /// Decoded into the state's slot, as in ``find(_:id:)``: the lend returns no generic `T?`. The
    /// statement is lent here, as ``find(_:id:)`` lends it, rather than through
    /// ``withBoundStatement(_:binding:arguments:_:)`` with a closure that steps and decodes: each
    /// closure between the call and the statement cost some 50 to 100 instructions a call (callgrind,
    /// `fetchOne(_:where:)` 100,000 times; see the commit that made it so).
    ///
    /// `context` is the connection's ``recordContext``, which the caller has read for `state`: read
    /// again here, it cost a look-up and a retain and release (callgrind: about 60 instructions a call).
    func fetchFirst<T: Record>(
        _ type: T.Type, _ context: RecordContext, _ state: RecordTypeState, text: String,
        binding bind: (Statement, ValueEncoder) throws -> Void, arguments: (ValueEncoder) throws -> [SQLiteValue]
    ) throws -> T? {
        // The options are read where a decoder is made, as in ``find(_:id:)``: copied here, on every
        // call, they cost some 100 instructions of retains and releases (callgrind, issue 39).
        let encoder = context.values
        let slot = state.slot
        defer { slot.discard(T.self) }
        try withStatement(text) { statement in
            try bind(statement, encoder)
            do {
                guard try statement.step() else { return }
                slot.put(
                    try RowDecoder.attached(to: statement, options: context.options, for: T.self).decodeRow(T.self))
            } catch let error as SQLiteError {
                throw error.with(arguments: (try? arguments(encoder)) ?? [])
            }
        }
        return slot.take(T.self)
    }

    /// A lazy cursor over the records matching `condition`, in constant memory.
    public func fetchCursor<T: Record>(_ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil)
        throws -> RecordCursor<T>
    {
        try fetchCursor(T.self, sql: selectSQL(T.self, condition, order, limit: nil, offset: nil))
    }

    /// How many rows match `condition` (all rows when nil).
    ///
    /// ```swift
    /// let n = try conn.count(Student.self, where: "department = \("Physics")")
    /// ```
    public func count<T: Record>(_ type: T.Type, where condition: SQL? = nil) throws -> Int {
        let state = recordContext.state(for: T.self)
        guard let condition else {
            return try withStatement(state.whereCalls.countAll) { statement in
                try statement.step() ? Int(statement.int64(at: 0)) : 0
            }
        }
        return try withBoundStatement(state.whereCalls.count(around: condition), values: condition) { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// Whether a row has the single-column primary key `id`.
    ///
    /// ```swift
    /// let enrolled = try conn.exists(Student.self, id: 1)
    /// ```
    ///
    /// Throws ``RecordError/compositeKey(table:key:)`` for a type whose key has several columns, and
    /// ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type cannot match
    /// the key column (an `Int` for a `UUID` key), instead of matching no row.
    public func exists<T: Record>(_ type: T.Type, id: some Encodable & Sendable) throws -> Bool {
        let context = recordContext
        let state = context.state(for: T.self)
        let key = try singleKeyValue(T.self, context, state, id)
        return try withStatement(state.existsByKey) { statement in
            try statement.bindFast(key, at: 1)
            do {
                return try statement.step() && statement.int64(at: 0) == 1
            } catch let error as SQLiteError {
                throw error.with(arguments: [key])
            }
        }
    }

    /// Whether any row matches `condition` (whether the table has rows, when nil).
    ///
    /// ```swift
    /// let taken = try conn.exists(Student.self, where: "email = \(email)")
    /// ```
    public func exists<T: Record>(_ type: T.Type, where condition: SQL? = nil) throws -> Bool {
        let state = recordContext.state(for: T.self)
        guard let condition else {
            return try withStatement(state.whereCalls.existsAny) { statement in
                try statement.step() && statement.int64(at: 0) != 0
            }
        }
        return try withBoundStatement(state.whereCalls.exists(around: condition), values: condition) { statement in
            try statement.step() && statement.int64(at: 0) != 0
        }
    }

    private func selectSQL<T: Record>(_ type: T.Type, _ condition: SQL?, _ order: SQL?, limit: Int?, offset: Int?)
        -> SQL
    {
        let state = recordContext.state(for: T.self)
        var sql = condition.map { SQL(text: state.whereCalls.selectWhere) + $0 } ?? SQL(text: state.selectAll)
        if let order {
            sql += " ORDER BY " + order
        }
        if limit == 1, offset == nil {
            sql += " LIMIT 1"
        } else if let limit {
            sql += " LIMIT \(limit)"
            if let offset {
                sql += " OFFSET \(offset)"
            }
        } else if let offset {
            sql += " LIMIT -1 OFFSET \(offset)"
        }
        return sql
    }
}
